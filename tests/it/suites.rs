//! `codeact exec` as a test runner: a folder of tagged scripts run on two virtual
//! phones at once and in shards, every case in JUnit; output that arrives while a
//! script still runs; assertions that wait; colour only where it belongs.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;

use common::codeact;

/// Twenty scripts in a folder tree, tagged: every one `suite`, the even ones `smoke`,
/// every fourth `wifi` (it turns Wi-Fi off and checks), the first two `slow` (they
/// wait a second, so both phones are busy at once); a module the scripts import,
/// which is not a test.
fn twenty_scripts(dir: &Path) {
    std::fs::create_dir_all(dir.join("more/lib")).expect("dirs");
    std::fs::write(dir.join("more/lib/open.rhai"), "fn settings() { start_app(\"com.android.settings\"); }\n")
        .expect("module");
    for i in 0..20 {
        let mut tags = vec!["suite"];
        if i % 2 == 0 {
            tags.push("smoke");
        }
        if i % 4 == 0 {
            tags.push("wifi");
        }
        if i < 2 {
            tags.push("slow");
        }
        let mut code = format!("// Case {i}.\n// tags: {}\n", tags.join(", "));
        if i >= 10 {
            code.push_str("import \"lib/open\" as open;\nopen::settings();\n");
        } else {
            code.push_str("start_app(\"com.android.settings\");\n");
        }
        if i < 2 {
            code.push_str("wait(1000);\n");
        }
        if i % 4 == 0 {
            code.push_str("tap(#{id: \"wifi_switch\"});\nassert_visible(#{id: \"wifi_switch\", checked: false});\n");
        } else {
            code.push_str("assert_visible(\"Network & internet\");\n");
        }
        code.push_str(&format!("print(\"case {i} done\");\n"));
        let folder = if i >= 10 { dir.join("more") } else { dir.to_path_buf() };
        std::fs::write(folder.join(format!("case{i:02}.rhai")), code).expect("script");
    }
}

/// The test cases a JUnit file holds, by name.
fn junit_cases(path: &Path) -> Vec<String> {
    let xml = std::fs::read_to_string(path).expect("junit");
    let doc = roxmltree::Document::parse(&xml).expect("JUnit parses");
    let cases: Vec<_> = doc.descendants().filter(|n| n.has_tag_name("testcase")).collect();
    for case in &cases {
        assert!(!case.children().any(|c| c.has_tag_name("failure") || c.has_tag_name("error")), "{xml}");
    }
    cases.iter().map(|c| c.attribute("name").unwrap_or_default().to_string()).collect()
}

fn json_lines(out: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
        .collect()
}

#[test]
fn a_tagged_folder_runs_on_two_virtual_phones_and_in_shards() {
    let dir = tempfile::tempdir().expect("dir");
    let suite = dir.path().join("suite");
    twenty_scripts(&suite);
    let suite_arg = suite.to_str().expect("path");
    let every: Vec<String> = (0..20).map(|i| format!("case{i:02}")).collect();

    // Two phones at once: every case passes, JUnit has each, both phones worked,
    // and the two slow scripts ran side by side.
    let junit = dir.path().join("parallel.xml");
    let out =
        codeact(&["exec", suite_arg, "-d", "sim", "--parallel", "2", "--json", "--junit", junit.to_str().expect("p")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let events = json_lines(&out.stdout);
    let mut cases = junit_cases(&junit);
    cases.sort();
    assert_eq!(cases, every);
    let summary = events.last().expect("a summary");
    assert_eq!((summary["event"].as_str(), summary["passed"].as_u64()), (Some("summary"), Some(20)), "{summary}");
    let workers: std::collections::BTreeSet<u64> =
        events.iter().filter(|e| e["event"] == "start").filter_map(|e| e["worker"].as_u64()).collect();
    assert_eq!(workers.into_iter().collect::<Vec<_>>(), [0, 1]);
    let first_verdict = events.iter().position(|e| e["event"] == "verdict").expect("a verdict");
    let started_before = events[..first_verdict].iter().filter(|e| e["event"] == "start").count();
    assert_eq!(started_before, 2, "both phones were busy at once: {events:?}");
    assert!(
        events.iter().any(|e| e["event"] == "print" && e["text"] == "case 13 done"),
        "prints are events: {events:?}"
    );
    assert!(
        !events.iter().any(|e| e["script"].as_str().is_some_and(|s| s.contains("lib/open"))),
        "a module is no test"
    );

    // Two shards: each runs half, together the whole suite, none twice.
    let mut union = Vec::new();
    for shard in ["1/2", "2/2"] {
        let junit = dir.path().join(format!("shard{}.xml", &shard[..1]));
        let out = codeact(&["exec", suite_arg, "-d", "sim", "--shard", shard, "--junit", junit.to_str().expect("p")]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(err.contains("10 passed, 0 failed, 0 errors ("), "the closing line: {err}");
        assert!(err.contains("PASS ") && err.contains("case"), "verdicts name their scripts: {err}");
        let cases = junit_cases(&junit);
        assert_eq!(cases.len(), 10, "{cases:?}");
        union.extend(cases);
    }
    union.sort();
    assert_eq!(union, every);
    // The shards' reports as one: every case once, the counts summed again.
    let (one, two, all) = (dir.path().join("shard1.xml"), dir.path().join("shard2.xml"), dir.path().join("all.xml"));
    let paths = [one.to_str().expect("p"), two.to_str().expect("p"), all.to_str().expect("p")];
    let out = codeact(&["exec", "--merge", paths[0], paths[1], "--junit", paths[2]]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut merged = junit_cases(&all);
    merged.sort();
    assert_eq!(merged, every);
    let doc = std::fs::read_to_string(&all).expect("all.xml");
    assert!(doc.contains("tests=\"20\" failures=\"0\" errors=\"0\""), "{doc:.300}");
    let out = codeact(&["exec", "--merge", paths[0], paths[0], "--junit", paths[2]]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is one shard given twice?"));
    // With no --shard, the CI's variables choose: GitLab counts from 1.
    let listed = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", suite_arg, "--list"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("CI_NODE_INDEX", "2")
        .env("CI_NODE_TOTAL", "2")
        .output()
        .expect("exec --list");
    let flagged = codeact(&["exec", suite_arg, "--shard", "2/2", "--list"]);
    assert_eq!(String::from_utf8_lossy(&listed.stdout), String::from_utf8_lossy(&flagged.stdout));
    assert!(String::from_utf8_lossy(&listed.stderr).contains("shard 2/2 (from CI_NODE_INDEX=2 of CI_NODE_TOTAL=2)"));

    // Tags choose: smoke but not wifi is every even case not a multiple of 4.
    let out = codeact(&["exec", suite_arg, "--include-tags", "smoke", "--exclude-tags", "wifi,slow", "--list"]);
    let listed = String::from_utf8_lossy(&out.stdout);
    let names: Vec<&str> = listed.lines().filter_map(|l| l.split("case").nth(1)).map(|l| &l[..2]).collect();
    assert_eq!(names, ["02", "06", "10", "14", "18"], "{listed}");
    let out = codeact(&["exec", suite_arg, "--include-tags", "nightly"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no script has the tags") && err.contains("smoke, suite, wifi"), "{err}");

    // A second --device that is not a virtual phone, or too few phones, is refused
    // before anything runs.
    let out = codeact(&["exec", suite_arg, "-d", "127.0.0.1:9", "--parallel", "2"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--parallel 2 needs 2 phones"), "{err}");
}

#[test]
fn output_arrives_while_the_script_runs_and_assertions_wait() {
    let sim = common::SimProcess::start(&[]);
    let dir = tempfile::tempdir().expect("dir");
    let script = dir.path().join("waits.rhai");
    std::fs::write(
        &script,
        "start_app(\"com.android.settings\");\nprint(\"ready\");\n\
         assert_not_visible(\"Network & internet\", 8000);\nprint(\"gone\");\n\
         assert_visible(\"Never there\", 300);\n",
    )
    .expect("script");
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", script.to_str().expect("p"), "--device", &sim.addr])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("codeact exec");
    let stderr = child.stderr.take().expect("stderr");
    let err_lines = std::thread::spawn(move || {
        BufReader::new(stderr).lines().map_while(Result::ok).map(|l| (started.elapsed(), l)).collect::<Vec<_>>()
    });
    let mut out_lines = Vec::new();
    for line in BufReader::new(child.stdout.take().expect("stdout")).lines().map_while(Result::ok) {
        out_lines.push((started.elapsed(), line.clone()));
        if line == "ready" {
            // The script now waits for the row to go: take it away after a while.
            std::thread::sleep(Duration::from_millis(1500));
            let mut phone = codeact::device::AdbDevice::direct(&sim.addr, Duration::from_secs(10)).expect("connect");
            codeact::device::Device::shell(&mut phone, "input keyevent KEYCODE_HOME").expect("home");
        }
    }
    let status = child.wait().expect("exit");
    let err_lines = err_lines.join().expect("stderr lines");
    let all_err: Vec<&str> = err_lines.iter().map(|(_, l)| l.as_str()).collect();
    let at = |lines: &[(Duration, String)], wanted: &str| {
        lines.iter().find(|(_, l)| l.contains(wanted)).map(|(t, _)| *t).unwrap_or_else(|| panic!("no {wanted:?}"))
    };
    // The first print and action came as they happened, the rest 1.5 s later.
    let (ready, gone) = (at(&out_lines, "ready"), at(&out_lines, "gone"));
    assert!(gone >= ready + Duration::from_millis(1400), "ready at {ready:?}, gone at {gone:?}");
    assert!(at(&err_lines, "start_app(") + Duration::from_millis(1400) <= gone, "{all_err:?}");
    // The waiting assertion passed when the row went; the last one failed the test.
    assert_eq!(status.code(), Some(1), "{all_err:?}");
    let verdict = all_err.iter().find(|l| l.starts_with("FAIL ")).expect("a FAIL line");
    assert!(verdict.contains("waits.rhai") && verdict.contains("\"Never there\" is not on screen (looked for 300 ms)"));
    assert!(all_err.iter().any(|l| l.starts_with("0 passed, 1 failed, 0 errors (")), "{all_err:?}");
    assert!(!all_err.iter().any(|l| l.contains('\u{1b}')), "no colour when piped: {all_err:?}");
}

#[test]
fn colour_follows_the_conventions() {
    let dir = tempfile::tempdir().expect("dir");
    let script = dir.path().join("ok.rhai");
    std::fs::write(&script, "print(\"hi\");\n").expect("script");
    let script = script.to_str().expect("p");
    let run = |env: &[(&str, &str)]| {
        let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
            .args(["exec", script, "-d", "sim"])
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .envs(env.iter().copied())
            .output()
            .expect("codeact exec");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let forced = run(&[("CLICOLOR_FORCE", "1")]);
    assert!(forced.contains("\u{1b}[1m\u{1b}[32mPASS"), "PASS in green: {forced:?}");
    let plain = run(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]);
    assert!(plain.contains("PASS ") && !plain.contains('\u{1b}'), "NO_COLOR wins: {plain:?}");
}

#[test]
fn tools_memory_and_eval_speak_json_lines() {
    let out = codeact(&["tools", "--json"]);
    let forms = json_lines(&out.stdout);
    assert!(forms.iter().any(|f| f["signature"] == "assert_visible(sel[, timeout_ms])"), "{forms:?}");
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("memory.sqlite");
    let out = codeact(&["memory", "list", "--json", "--memory", db.to_str().expect("p")]);
    assert!(out.status.success() && out.stdout.is_empty(), "an empty memory lists nothing");
    let out_dir = dir.path().join("eval");
    let out = codeact(&[
        "eval",
        "--agent",
        "oracle",
        "--tasks",
        "settings_wifi_off",
        "--json",
        "--min-score",
        "1",
        "--out",
        out_dir.to_str().expect("p"),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let events = json_lines(&out.stdout);
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["event"].as_str()).collect();
    assert_eq!(kinds, ["planned", "instance", "summary"], "{events:?}");
    assert_eq!(events[1]["score"].as_f64(), Some(1.0));
    assert_eq!(events[2]["passed_min_score"], true);
}
