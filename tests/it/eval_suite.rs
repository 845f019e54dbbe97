//! `codeact eval` end to end: the real binary on in-process virtual phones. The oracle
//! over the whole built-in suite (every template solvable, every judge 0 at the start
//! and 1 at the oracle's end), a scripted LLM through async-openai's real HTTP path
//! (success, failure, partial credit, a wrong answer), `--compare`, and the same seed
//! giving the same instances.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::llm::{Canned, ScriptedLlm, calls, reply};
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("codeact-eval-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn eval(args: &[&str], out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_codeact"))
        .arg("eval")
        .args(args)
        .args(["--out", out.to_str().unwrap_or_default()])
        .env("OPENAI_API_KEY", "sk-codeact-eval-test-KEY-00000")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("CODEACT_MODEL")
        .env_remove("CODEACT_CONFIG")
        .output()
        .expect("run codeact eval")
}

fn results(out: &Path) -> Value {
    let text = std::fs::read_to_string(out.join("results.json")).expect("results.json");
    serde_json::from_str(&text).expect("results.json parses")
}

fn by_task<'a>(results: &'a Value, task: &str) -> &'a Value {
    results["results"].as_array().and_then(|r| r.iter().find(|r| r["task"] == task)).expect("the task's result")
}

#[test]
fn the_oracle_solves_every_template_and_no_judge_passes_the_start() {
    let out = scratch("oracle");
    let run = eval(&["--agent", "oracle", "--parallel", "2"], &out);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&run.stderr));
    let r = results(&out);
    assert_eq!(r["schema"], 1);
    let all = r["results"].as_array().expect("results");
    let templates: std::collections::HashSet<&str> = all.iter().filter_map(|x| x["task"].as_str()).collect();
    let apps: std::collections::HashSet<&str> = all.iter().filter_map(|x| x["app"].as_str()).collect();
    assert!(templates.len() >= 116, "{} templates", templates.len());
    assert!(apps.len() >= 14, "apps: {apps:?}");
    let categories: Vec<&str> = codeact::eval::tags::CATEGORIES.iter().map(|(c, _)| *c).collect();
    for x in all {
        // Every built-in template is tagged, its difficulty being its oracle's band.
        let actions = x["actions"].as_u64().unwrap_or(0);
        let band = codeact::eval::tags::Difficulty::of_actions(actions).as_str();
        assert_eq!(x["difficulty"], band, "{}: {actions} actions", x["task"]);
        assert!(categories.contains(&x["category"].as_str().unwrap_or("")), "{}: {}", x["task"], x["category"]);
        assert_eq!(x["score"], 1.0, "{}: {}", x["task"], x["error"]);
        assert_eq!(x["initial_score"], 0.0, "{}", x["task"]);
        assert_eq!(x["broken"], false, "{}", x["task"]);
        let dir = x["run_dir"].as_str().expect("a run directory per instance");
        assert!(Path::new(dir).join("events.jsonl").exists(), "{dir}");
    }
    assert!(stdout.contains("| settings_wifi_off | settings | operation | 1 | 1.00 |"), "{stdout}");
    assert!(stdout.contains("| difficulty | n |") && stdout.contains("| validation |"), "{stdout}");
    let junit = std::fs::read_to_string(out.join("junit.xml")).expect("junit.xml");
    assert_eq!(junit.matches("<testcase ").count(), all.len());
    // Written as it went, one line per instance.
    let lines = std::fs::read_to_string(out.join("results.jsonl")).expect("results.jsonl");
    assert_eq!(lines.lines().count(), all.len());
    // The folder now holds an eval: a second run into it is refused, and loses nothing.
    let again = eval(&["--agent", "oracle", "--tasks", "settings_wifi_off"], &out);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already holds an eval"));
    assert_eq!(std::fs::read_to_string(out.join("results.jsonl")).expect("kept").lines().count(), all.len());
    let _ = std::fs::remove_dir_all(&out);
}

/// The suite on the virtual phones reached as iPhones (their WebDriverAgent door,
/// codeact's iOS backend): the oracle solves every template iOS can run, and the
/// ones it cannot are left out by name, with why.
#[test]
fn the_oracle_solves_every_template_on_ios_and_harmony() {
    let templates = codeact::eval::load(None).map(|t| t.len()).unwrap_or(0);
    for platform in ["ios", "harmony"] {
        let out = scratch(&format!("oracle-{platform}"));
        let run = eval(&["--agent", "oracle", "--platform", platform, "--parallel", "2"], &out);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(0), "{platform}: {stderr}");
        let all = results(&out)["results"].as_array().cloned().unwrap_or_default();
        assert_eq!(all.len(), templates, "{platform}: every template runs: {stderr}");
        for x in &all {
            assert_eq!(x["score"], 1.0, "{platform}: {}: {}", x["task"], x["error"]);
        }
        let _ = std::fs::remove_dir_all(&out);
    }
    // A suite's own template that iOS cannot run is left out there, by name and why.
    let suite = scratch("suite-not-on-ios");
    std::fs::create_dir_all(&suite).expect("suite dir");
    let task = |id: &str, extra: &str| {
        format!(
            r#"[[task]]
id = "{id}"
{extra}apps = ["settings"]
kind = "operation"
goal = "Turn off Wi-Fi."
setup = [{{ set = "settings.wifi", to = true }}]
judge = "!state.settings.wifi"
oracle = 'start_app("com.android.settings"); tap(#{{id: "wifi_switch"}}); complete(true, "off");'

"#
        )
    };
    let file =
        [task("wifi_anywhere", ""), task("wifi_android", "not_on_ios = \"it needs the Android shell\"\n")].concat();
    std::fs::write(suite.join("mine.toml"), file).expect("task file");
    let out = scratch("oracle-not-on-ios");
    let run = eval(&["--agent", "oracle", "--platform", "ios", "--suite", suite.to_str().unwrap_or_default()], &out);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("left out on iOS: wifi_android (it needs the Android shell)"), "{stderr}");
    let ran: Vec<String> = results(&out)["results"]
        .as_array()
        .map(|a| a.iter().map(|x| x["task"].as_str().unwrap_or_default().to_string()).collect())
        .unwrap_or_default();
    assert_eq!(ran, ["wifi_anywhere"]);
    for d in [suite, out] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn the_same_seed_gives_the_same_instances_and_another_seed_others() {
    let pick = ["--agent", "oracle", "--tasks", "contacts_*,notes_delete,clock_alarm_create", "--instances", "2"];
    let key = |out: &Path| -> Vec<(String, String, String)> {
        results(out)["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|x| (x["task"].to_string(), x["params"].to_string(), x["score"].to_string()))
            .collect()
    };
    let (a, b, c) = (scratch("seed-a"), scratch("seed-b"), scratch("seed-c"));
    assert_eq!(eval(&[&pick[..], &["--seed", "7", "--parallel", "2"]].concat(), &a).status.code(), Some(0));
    assert_eq!(eval(&[&pick[..], &["--seed", "7", "--parallel", "1"]].concat(), &b).status.code(), Some(0));
    assert_eq!(eval(&[&pick[..], &["--seed", "8"]].concat(), &c).status.code(), Some(0));
    assert_eq!(key(&a), key(&b), "same seed, same instances, whatever the parallelism");
    assert_ne!(key(&a), key(&c), "another seed draws other parameters");
    for d in [a, b, c] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn a_scripted_llm_is_judged_on_the_phone_and_compare_shows_the_difference() {
    // Plan order is suite order: wifi_off, airplane_on, private_dns_host,
    // bluetooth_question, brightness_question. One reply each, one step each.
    let llm = ScriptedLlm::start(vec![
        reply(
            "Open Settings and switch Wi-Fi off.\n```rhai\nstart_app(\"com.android.settings\");\ntap(#{id: \"wifi_switch\"});\ncomplete(true, \"Wi-Fi is off\");\n```",
        ),
        reply("I give up.\n```rhai\ncomplete(false, \"I cannot find airplane mode\");\n```"),
        reply(
            "Set a hostname (the wrong one).\n```rhai\nstart_app(\"com.android.settings\");\ntap(\"Private DNS\");\nset_text(#{id: \"private_dns_host\"}, \"dns.wrong.example\");\ntap(\"Save\");\ncomplete(true, \"set\");\n```",
        ),
        reply(
            "Read the switch.\n```rhai\nstart_app(\"com.android.settings\");\nanswer(if find(#{id: \"bluetooth_switch\"}).checked { \"yes\" } else { \"no\" });\ncomplete(true, \"answered\");\n```",
        ),
        reply(
            "Read the level and get it wrong by one.\n```rhai\nstart_app(\"com.android.settings\", \".DisplaySettings\");\nlet level = parse_int(find(#{text_matches: \"\\\\d+%\"}).text.split(\"%\")[0]);\nanswer(`${level + 1}%`);\ncomplete(true, \"answered\");\n```",
        ),
    ]);
    let tasks = "settings_wifi_off,settings_airplane_on,settings_private_dns_host,settings_bluetooth_question,settings_brightness_question";
    let out = scratch("llm");
    let run = eval(
        &[
            "--base-url",
            &llm.base_url,
            "--model",
            "scripted",
            "--persona",
            "big_agent",
            "--parallel",
            "1",
            "--verify-completion",
            "off",
            "--tasks",
            tasks,
        ],
        &out,
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    let r = results(&out);
    assert_eq!(r["agent"], "llm");
    assert_eq!(r["model"], "scripted");
    let wifi = by_task(&r, "settings_wifi_off");
    assert_eq!(wifi["score"], 1.0, "success: {wifi}");
    assert_eq!(wifi["outcome"], "success");
    assert_eq!(wifi["llm_calls"], 1);
    assert!(wifi["actions"].as_u64().unwrap_or(0) > 0, "an LLM instance's device actions are counted: {wifi}");
    assert!(wifi["prompt_tokens"].as_u64().unwrap_or(0) > 0);
    assert!(Path::new(wifi["run_dir"].as_str().unwrap_or_default()).join("summary.json").exists());
    let airplane = by_task(&r, "settings_airplane_on");
    assert_eq!((airplane["score"].as_f64(), airplane["outcome"].as_str()), (Some(0.0), Some("failure")));
    let dns = by_task(&r, "settings_private_dns_host");
    assert_eq!(dns["score"], 0.5, "partial credit: the mode is right, the host is not: {dns}");
    let bt = by_task(&r, "settings_bluetooth_question");
    assert_eq!(bt["score"], 1.0, "a right answer: {bt}");
    let brightness = by_task(&r, "settings_brightness_question");
    assert_eq!(brightness["score"], 0.0, "a wrong answer scores 0: {brightness}");
    assert!(brightness["answer"].as_str().is_some_and(|a| a.ends_with('%')));
    assert_eq!(llm.requests().len(), 5);
    // One agent everywhere: with --vision at its default (auto), eval shows the model
    // the screenshots the persona asks for, as `codeact run` does.
    assert!(llm.requests().iter().all(|r| r.to_string().contains("image_url")), "a screenshot each step");
    assert!(!std::fs::read_to_string(out.join("results.json")).unwrap_or_default().contains("sk-codeact-eval-test"));

    let oracle = scratch("llm-oracle");
    assert_eq!(eval(&["--agent", "oracle", "--tasks", tasks], &oracle).status.code(), Some(0));
    let compare = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["eval", "--compare"])
        .arg(oracle.join("results.json"))
        .arg(out.join("results.json"))
        .output()
        .expect("compare");
    let table = String::from_utf8_lossy(&compare.stdout);
    assert_eq!(compare.status.code(), Some(0));
    assert!(table.contains("| settings_airplane_on | 1.00 | 0.00 | -1.00 |"), "{table}");
    assert!(table.contains("| settings_private_dns_host | 1.00 | 0.50 | -0.50 |"), "{table}");
    assert!(table.contains("| settings_wifi_off | 1.00 | 1.00 | +0.00 |"), "{table}");
    assert!(table.contains("Δ mean score -0.500"), "{table}");
    for d in [out, oracle] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn shards_add_up_to_the_suite_and_merge_back() {
    let pick = ["--agent", "oracle", "--tasks", "settings_*,notes_*", "--instances", "2", "--parallel", "1"];
    let (s0, s1, merged) = (scratch("shard0"), scratch("shard1"), scratch("merged"));
    assert_eq!(eval(&[&pick[..], &["--shard", "1/2"]].concat(), &s0).status.code(), Some(0));
    // The second as a Kubernetes Indexed Job's pod says it: index 1 (from 0) of 2.
    let pod = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .arg("eval")
        .args(pick)
        .args(["--shards", "2", "--out"])
        .arg(&s1)
        .env("JOB_COMPLETION_INDEX", "1")
        .output()
        .expect("a pod's eval");
    let said = String::from_utf8_lossy(&pod.stderr);
    assert_eq!(pod.status.code(), Some(0), "{said}");
    assert!(said.contains("shard 2/2 (from JOB_COMPLETION_INDEX=1 of 2 (--shards))"), "{said}");
    let (a, b) = (results(&s0), results(&s1));
    assert_eq!((a["shard"].as_str(), b["shard"].as_str()), (Some("1/2"), Some("2/2")));
    let n = |r: &Value| r["results"].as_array().map_or(0, Vec::len);
    let merge = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["eval", "--merge"])
        .args([s0.join("results.json"), s1.join("results.json")])
        .arg("--out")
        .arg(&merged)
        .output()
        .expect("merge");
    assert_eq!(merge.status.code(), Some(0), "{}", String::from_utf8_lossy(&merge.stderr));
    let m = results(&merged);
    assert_eq!(n(&m), n(&a) + n(&b));
    assert_eq!(m["summary"]["all"]["solved"], n(&m));
    // The same shard twice is refused.
    let twice = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["eval", "--merge"])
        .args([s0.join("results.json"), s0.join("results.json")])
        .args(["--out", scratch("twice").to_str().unwrap_or_default()])
        .output()
        .expect("merge twice");
    assert_eq!(twice.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&twice.stderr).contains("is in two of the files"));
    // Shards count from 1 everywhere; a 0 says how to count.
    let bad_shard = eval(&["--shard", "0/2"], &scratch("bad-shard"));
    assert_eq!(bad_shard.status.code(), Some(2));
    let said = String::from_utf8_lossy(&bad_shard.stderr);
    assert!(said.contains("counted from 1") && said.contains("JOB_COMPLETION_INDEX"), "{said}");
    for d in [s0, s1, merged] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn an_llm_that_never_answers_stops_the_suite_at_once_and_keeps_what_ran() {
    let llm = ScriptedLlm::start(vec![Canned::Status(401, "Incorrect API key provided".into())]);
    let out = scratch("llm-401");
    let run = eval(
        &["--base-url", &llm.base_url, "--model", "scripted", "--parallel", "1", "--tasks", "settings_wifi_*,clock_*"],
        &out,
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("stopped: an instance ended before the LLM answered once"), "{stderr}");
    assert!(!stderr.contains("sk-codeact-eval-test"), "{stderr}");
    let r = results(&out);
    assert_eq!(r["results"].as_array().map(Vec::len), Some(1), "one instance ran, none after it");
    assert_eq!(llm.requests().len(), 1, "a refused key is not asked again");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn with_dialog_faults_the_watchers_make_the_difference() {
    let pick = ["--agent", "oracle", "--tasks", "settings_*", "--faults", "dialog", "--parallel", "2"];
    let on = scratch("faults-on");
    assert_eq!(eval(&pick, &on).status.code(), Some(0));
    let off = scratch("faults-off");
    let _ = eval(&[&pick[..], &["--watchers", "off"]].concat(), &off);
    let mean = |out: &Path| results(out)["summary"]["all"]["mean_score"].as_f64().unwrap_or(-1.0);
    assert_eq!(mean(&on), 1.0, "{}", results(&on)["summary"]["all"]);
    assert!(mean(&off) < 0.5, "the reference scripts handle no dialog: {}", results(&off)["summary"]["all"]);
    let _ = std::fs::remove_dir_all(&on);
    let _ = std::fs::remove_dir_all(&off);
}

#[test]
fn every_strategy_runs_the_suite_and_results_say_which() {
    let open = "Thought: Settings.\n```rhai\nstart_app(\"com.android.settings\");\ncomplete(true, \"open\");\n```";
    let open_only = "Thought: Settings.\n```rhai\nstart_app(\"com.android.settings\");\n```";
    let tap = "Thought: the switch.\n```rhai\ntap(#{id: \"wifi_switch\"});\ncomplete(true, \"Wi-Fi is off\");\n```";
    let plan = "{\"steps\": [{\"goal\": \"Open Settings\"}, {\"goal\": \"Turn off Wi-Fi\"}]}";
    let apps = "{\"apps\": [{\"app\": \"Settings\", \"goal\": \"turn off Wi-Fi\"}]}";
    // The tree's first sub-goal runs unasked; the reviewer judges the second.
    let split = "{\"subgoals\": [{\"goal\": \"Open Settings\", \"do\": \"start_app(\\\"com.android.settings\\\")\"}, \
                 {\"goal\": \"Turn off Wi-Fi\", \"expect\": \"Wi-Fi off\"}]}";
    for (strategy, actor, planner, calls) in [
        ("react", [open_only, tap], plan, 2),
        ("plan", [open, tap], plan, 3),
        ("hierarchical", [open, tap], apps, 3),
        ("tree", [split, tap], plan, 3),
    ] {
        let llm = ScriptedLlm::per_model(vec![
            ("scripted", actor.iter().map(|r| reply(r)).collect()),
            ("planner", vec![reply(planner)]),
            ("reflector", vec![reply("On track.")]),
        ]);
        let out = scratch(&format!("strategy-{strategy}"));
        let mut args = vec!["--base-url", &llm.base_url, "--model", "scripted", "--planner-model", "planner"];
        args.extend(["--reflector-model", "reflector", "--strategy", strategy, "--tasks", "settings_wifi_off"]);
        args.extend(["--parallel", "1", "--verify-completion", "off"]);
        if strategy != "hierarchical" {
            args.extend(["--persona", "big_agent"]);
        }
        let run = eval(&args, &out);
        assert_eq!(run.status.code(), Some(0), "{strategy}: {}", String::from_utf8_lossy(&run.stderr));
        let r = results(&out);
        assert_eq!(r["strategy"], strategy);
        let wifi = by_task(&r, "settings_wifi_off");
        assert_eq!(wifi["score"], 1.0, "{strategy}: {wifi}");
        assert_eq!(wifi["llm_calls"], calls, "{strategy}: every role's calls count");
        let roles = wifi["roles"].as_object().cloned().unwrap_or_default();
        let by_role: u64 = roles.values().map(|r| r["calls"].as_u64().unwrap_or(0)).sum();
        assert_eq!(by_role, calls, "{strategy}: {roles:?}");
        assert!(roles.values().all(|r| r["tokens"]["total_tokens"].as_u64().unwrap_or(0) > 0), "{roles:?}");
        assert_eq!(r["summary"]["all"]["roles"], wifi["roles"], "{strategy}: the totals count them too");
        if strategy == "tree" {
            assert_eq!((roles["actor"]["calls"].as_u64(), roles["reflector"]["calls"].as_u64()), (Some(2), Some(1)));
        }
        let _ = std::fs::remove_dir_all(&out);
    }
}

#[test]
fn survival_replays_one_recording_in_four_forms_and_heals_only_the_diverging_steps() {
    let out = scratch("survival");
    let healed = "Thought: the switch is switch_wifi now.\n```rhai\ntap(#{id: \"switch_wifi\"});\ncomplete(true, \"step done\");\n```";
    let dismiss = "Thought: a What's new dialog.\n```rhai\ntap(\"Got it\");\n```";
    // Variant 2 diverges once (the renamed switch); variant 3 twice (the dialog, then the switch).
    let llm = ScriptedLlm::start(vec![reply(healed), reply(dismiss), reply(healed)]);
    let args = ["--survival", "--tasks", "settings_wifi_off", "--base-url", &llm.base_url, "--model", "healer"];
    let run = eval(&args, &out);
    let table = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(table.starts_with("| Layout variant | coordinates | indices | selectors | selectors+healing |"), "{table}");
    let row = |n: &str| table.lines().find(|l| l.starts_with(&format!("| {n}:"))).unwrap_or_default().to_string();
    assert_eq!(row("0"), "| 0: as written | 100% (1/1) | 100% (1/1) | 100% (1/1) | 100% (1/1, 0 LLM calls) |");
    assert!(row("1").contains("| 0% (0/1) | 0% (0/1) | 100% (1/1) | 100% (1/1, 0 LLM calls) |"), "{table}");
    assert!(row("2").ends_with("| 0% (0/1) | 100% (1/1, 1 LLM call) |"), "{table}");
    assert!(row("3").ends_with("| 0% (0/1) | 100% (1/1, 2 LLM calls) |"), "{table}");
    assert_eq!(llm.requests().len(), 3);
    let script = std::fs::read_to_string(out.join("recorded/coordinates/settings_wifi_off.rhai")).unwrap_or_default();
    assert!(
        script.starts_with("start_app(\"com.android.settings\");\ntap(") && script.contains("complete(true"),
        "{script}"
    );
    let json: Value = serde_json::from_str(&std::fs::read_to_string(out.join("survival.json")).unwrap_or_default())
        .expect("survival.json");
    assert_eq!(json["cells"]["3"]["selectors+healing"]["llm_calls"], 2);
    let _ = std::fs::remove_dir_all(&out);
}

/// `--actions code,json`: the same instances once per format, each in its own
/// folder, and the two side by side (formats.md, formats.json, report.html).
#[test]
fn code_and_function_calls_run_the_same_instances_side_by_side() {
    let llm = ScriptedLlm::by_format(
        vec![
            reply(
                "Open Settings and switch Wi-Fi off.\n```rhai\nstart_app(\"com.android.settings\");\ntap(#{id: \"wifi_switch\"});\ncomplete(true, \"Wi-Fi is off\");\n```",
            ),
            reply("I give up.\n```rhai\ncomplete(false, \"I cannot find airplane mode\");\n```"),
        ],
        vec![
            calls(&[("start_app", r#"{"package": "com.android.settings"}"#)]),
            calls(&[
                ("tap", r#"{"sel": {"id": "wifi_switch"}}"#),
                ("complete", r#"{"success": true, "reason": "Wi-Fi is off"}"#),
            ]),
            calls(&[("complete", r#"{"success": false, "reason": "I cannot find airplane mode"}"#)]),
        ],
    );
    let out = scratch("formats");
    let run = eval(
        &[
            "--base-url",
            &llm.base_url,
            "--model",
            "gpt-4o-mini",
            "--persona",
            "big_agent",
            "--vision",
            "off",
            "--parallel",
            "1",
            "--verify-completion",
            "off",
            "--actions",
            "code,json",
            "--tasks",
            "settings_wifi_off,settings_airplane_on",
        ],
        &out,
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&run.stderr));
    for (format, calls) in [("code", 2), ("json", 3)] {
        let r = results(&out.join(format));
        assert_eq!(r["action_format"], format);
        assert_eq!(by_task(&r, "settings_wifi_off")["score"], 1.0, "{format}: {r}");
        assert_eq!(by_task(&r, "settings_airplane_on")["score"], 0.0, "{format}");
        assert_eq!(r["summary"]["all"]["llm_calls"], calls, "{format}");
    }
    let formats: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("formats.json")).expect("formats.json")).expect("JSON");
    assert_eq!(formats["formats"], serde_json::json!(["code", "json"]));
    let totals = formats["totals"].as_array().expect("totals");
    assert_eq!((totals[0]["solved"].as_u64(), totals[1]["solved"].as_u64()), (Some(1), Some(1)));
    assert_eq!((totals[0]["llm_calls"].as_u64(), totals[1]["llm_calls"].as_u64()), (Some(2), Some(3)));
    assert!(totals.iter().all(|t| t["cost_usd"].as_f64().is_some_and(|c| c > 0.0)), "gpt-4o-mini's listed price");
    assert!(stdout.contains("| settings_wifi_off | 1/1 / 1/1 | 1 / 2 |"), "{stdout}");
    let page = std::fs::read_to_string(out.join("report.html")).expect("report.html");
    assert!(page.contains("solved (code / json)") && page.contains("json/report.html"), "both columns, both suites");
    let _ = std::fs::remove_dir_all(out);
}
