//! `codeact run` end to end: the real binary, the virtual device over ADB, and a
//! scripted OpenAI-compatible server on loopback (real HTTP through async-openai).
//! Success is judged by the device's state (`simctl state`) and the run directory.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use codeact::device::{AdbDevice, Device};
use common::llm::{Canned, ScriptedLlm, last_user_text, reply};

pub(crate) const FAKE_KEY: &str = "sk-codeact-test-KEY-7f3a9c21e0";

pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("codeact-run-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// `codeact run` with the scripted server and the given device; the key is a fake
/// one we can look for later.
pub(crate) fn run(llm: &ScriptedLlm, device: &str, out: &Path, extra: &[&str], task: &str) -> Output {
    run_against(&llm.base_url, device, out, extra, task, &[])
}

/// `codeact run` against the LLM at `base_url`, with the fake key and `env` set and
/// the caller's own LLM settings removed.
pub(crate) fn run_against(
    base_url: &str,
    device: &str,
    out: &Path,
    extra: &[&str],
    task: &str,
    env: &[(&str, &str)],
) -> Output {
    Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["run", "--device", device, "--base-url", base_url, "--model", "scripted"])
        .args(["--out", out.to_str().unwrap_or_default()])
        .args(extra)
        .arg(task)
        // A collector the caller's shell names is not the test's.
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .envs(env.iter().copied())
        .env("OPENAI_API_KEY", FAKE_KEY)
        .env_remove("OPENAI_BASE_URL")
        .env_remove("CODEACT_MODEL")
        .env_remove("CODEACT_PERSONA")
        .env_remove("CODEACT_CONFIG")
        // Each test's memory is its own: a remembered run would replay instead.
        .env("XDG_DATA_HOME", out.join(".memory"))
        .current_dir(out)
        .output()
        .expect("run codeact run")
}

pub(crate) fn run_dir(out: &Path) -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(out)
        .expect("out dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.pop().expect("a run directory")
}

pub(crate) fn json_file(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).expect("JSON")
}

pub(crate) fn events(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("events.jsonl"))
        .expect("events.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

pub(crate) use common::sim_state as state;

pub(crate) fn shell(addr: &str, cmd: &str) {
    let mut d = AdbDevice::direct(addr, Duration::from_secs(10)).expect("connect");
    d.shell(cmd).expect("shell");
}

pub(crate) fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub(crate) const OPEN_SETTINGS: &str =
    "Thought: Wi-Fi lives in Settings; I open it.\n```rhai\nstart_app(\"com.android.settings\");\n```";
const TAP_WIFI: &str = "Thought: The Wi-Fi switch is element 6 and it is on; I tap it.\n```rhai\ntap_by_index(6);\nrefresh();\n\
     let s = ui_state.filter(|e| e.id == \"wifi_switch\")[0];\nif s.checked { complete(false, \"still on\") }\n\
     complete(true, \"Wi-Fi is off\");\n```";

/// The README's first line on a machine with no model: one clear error that says
/// how to give it one and what runs without one, nothing written.
#[test]
fn the_first_line_without_a_model_names_what_runs_without_one() {
    let out = scratch("no-model");
    let ran = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["run", "--device", "sim", "Turn off Wi-Fi"])
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("CODEACT_MODEL")
        .env_remove("CODEACT_BASE_URL")
        .env_remove("CODEACT_CONFIG")
        .env("XDG_DATA_HOME", out.join(".memory"))
        .current_dir(&out)
        .output()
        .expect("run codeact run");
    let err = stderr(&ran);
    assert_eq!(ran.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    for works_without in [
        "export OPENAI_API_KEY=",
        "--base-url http://localhost:11434/v1",
        "codeact exec scripts/send_message.rhai --device sim",
        "codeact repl --device sim",
        "codeact eval --agent oracle",
    ] {
        assert!(err.contains(works_without), "{works_without} missing from: {err}");
    }
    assert!(!out.join("runs").exists(), "nothing is written for a run that cannot start");
}

/// The replay of a run that did not succeed cannot pass: the run stopped at
/// --max-steps with the work undone, and its exported scripts end in that failure.
#[test]
fn a_failed_runs_replay_fails_too() {
    let llm = ScriptedLlm::start(vec![reply(OPEN_SETTINGS)]);
    let out = scratch("failed-replay");
    let result = run(&llm, "sim", &out, &["--vision", "off", "--max-steps", "1"], "Turn off Wi-Fi");
    assert_eq!(result.status.code(), Some(1), "{}", stderr(&result));
    let dir = run_dir(&out);
    for script in ["script.rhai", "script.selectors.rhai"] {
        let replay = Command::new(env!("CARGO_BIN_EXE_codeact"))
            .args(["exec", "--device", "sim"])
            .arg(dir.join(script))
            .output()
            .expect("run codeact exec");
        let err = String::from_utf8_lossy(&replay.stderr);
        assert_eq!(replay.status.code(), Some(1), "{script}: {err}");
        assert!(err.contains("the recorded run did not succeed"), "{script}: {err}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn turn_off_wifi_writes_a_run_directory_that_replays() {
    let sim = common::SimProcess::start(&[]);
    let llm = ScriptedLlm::start(vec![reply(OPEN_SETTINGS), reply(TAP_WIFI)]);
    let out = scratch("wifi");
    let result = run(&llm, &sim.addr, &out, &["--persona", "big_agent", "--vision", "off"], "Turn off Wi-Fi");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert_eq!(state(&sim.addr)["settings"]["wifi"], false);

    let dir = run_dir(&out);
    for file in
        ["events.jsonl", "summary.json", "script.rhai", "script.selectors.rhai", "ui/0001.xml", "screenshots/0002.png"]
    {
        assert!(dir.join(file).is_file(), "{file} is in {}", dir.display());
    }
    let summary = json_file(&dir.join("summary.json"));
    assert_eq!((summary["outcome"].as_str(), summary["steps"].as_u64()), (Some("success"), Some(2)));
    assert_eq!(summary["reason"], "Wi-Fi is off");
    assert!(summary["tokens"]["prompt_tokens"].as_u64().unwrap_or(0) > 0, "token usage is summed");
    let kinds: Vec<String> = events(&dir).iter().map(|e| e["event"].as_str().unwrap_or("").to_string()).collect();
    for kind in [
        "run_start",
        "step_start",
        "observation",
        "llm_request",
        "llm_reply",
        "code",
        "action",
        "completion",
        "run_end",
    ] {
        assert!(kinds.iter().any(|k| k == kind), "events.jsonl has {kind}: {kinds:?}");
    }
    let tap = events(&dir).into_iter().find(|e| e["tool"] == "tap_by_index").expect("the tap is an event");
    assert_eq!(tap["target"], "#{id: \"wifi_switch\"}");

    // The model saw the screen only in the newest message.
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    let second = requests[1]["messages"].as_array().expect("messages");
    assert_eq!(second.len(), 4, "system, task, reply, result + screen");
    assert!(last_user_text(&requests[1]).contains("Switch #wifi_switch"), "the screen is in the last message");
    assert!(!second[1]["content"].as_str().unwrap_or("").contains("Current screen"), "older screens are dropped");
    assert!(last_user_text(&requests[1]).contains("start_app(\"com.android.settings\") -> ok"));

    let selectors = std::fs::read_to_string(dir.join("script.selectors.rhai")).expect("selectors script");
    assert!(selectors.contains("tap(#{id: \"wifi_switch\"})") && !selectors.contains("tap_by_index(6)"), "{selectors}");
    for script in ["script.rhai", "script.selectors.rhai"] {
        shell(&sim.addr, "simctl reset");
        assert_eq!(state(&sim.addr)["settings"]["wifi"], true);
        let replay = Command::new(env!("CARGO_BIN_EXE_codeact"))
            .args(["exec", dir.join(script).to_str().unwrap_or_default(), "--device", &sim.addr])
            .output()
            .expect("codeact exec");
        assert!(replay.status.success(), "{script}: {}", stderr(&replay));
        assert_eq!(state(&sim.addr)["settings"]["wifi"], false, "{script} reaches the same state");
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// A replay asserts what its run left changed, so it cannot pass by accident: the
/// model here never checks its tap, yet the exported scripts assert that the switch
/// is off (after the step that flipped it) and that the run ended on Settings. Run
/// on a phone where Wi-Fi is already off, the tap turns it on, and the replay fails.
#[test]
fn a_replay_asserts_what_its_run_left_changed() {
    let sim = common::SimProcess::start(&[]);
    let unchecked = "Thought: The Wi-Fi switch is element 6; I tap it.\n```rhai\ntap_by_index(6);\ncomplete(true, \"Wi-Fi is off\");\n```";
    let again = "Thought: The switch is off.\n```rhai\ncomplete(true, \"Wi-Fi is off\");\n```";
    let llm = ScriptedLlm::start(vec![reply(OPEN_SETTINGS), reply(unchecked), reply(again)]);
    let out = scratch("effects-replay");
    let result = run(&llm, &sim.addr, &out, &["--persona", "big_agent", "--vision", "off"], "Turn off Wi-Fi");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let dir = run_dir(&out);
    let selectors = std::fs::read_to_string(dir.join("script.selectors.rhai")).expect("selectors script");
    assert!(selectors.contains("tap(#{id: \"wifi_switch\"});\n// complete(true"), "{selectors}");
    assert!(selectors.contains("assert_visible(#{id: \"wifi_switch\", checked: false});"), "{selectors}");
    assert!(
        selectors.contains(
            "if phone_state.app != \"com.android.settings\" || (phone_state.screen != \"\" && phone_state.screen != \"Settings\")"
        ),
        "{selectors}"
    );
    for script in ["script.rhai", "script.selectors.rhai"] {
        // From the state the run started in, the replay passes.
        shell(&sim.addr, "simctl reset");
        let replay = Command::new(env!("CARGO_BIN_EXE_codeact"))
            .args(["exec", dir.join(script).to_str().unwrap_or_default(), "--device", &sim.addr])
            .output()
            .expect("codeact exec");
        assert_eq!(replay.status.code(), Some(0), "{script}: {}", stderr(&replay));
        assert_eq!(state(&sim.addr)["settings"]["wifi"], false);
        // With Wi-Fi already off, the same taps turn it on: the replay fails.
        let replay = Command::new(env!("CARGO_BIN_EXE_codeact"))
            .args(["exec", dir.join(script).to_str().unwrap_or_default(), "--device", &sim.addr])
            .output()
            .expect("codeact exec");
        let err = stderr(&replay);
        assert_eq!(replay.status.code(), Some(1), "{script}: {err}");
        assert!(err.contains("assert_visible") && err.contains("wifi_switch"), "{script}: {err}");
        assert_eq!(state(&sim.addr)["settings"]["wifi"], true, "{script}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// The agent on the virtual phone reached as an iPhone (`--device sim:ios`, its
/// WebDriverAgent door): the same conversation completes the task, and the screen
/// the model reads has the shape it has on Android (the same element lines).
#[test]
fn a_run_on_the_virtual_iphone_or_harmony_phone_reads_the_screen_as_on_android() {
    let tap = "Thought: I tap the Wi-Fi switch.\n```rhai\ntap(#{id: \"wifi_switch\"});\nwait_for(#{id: \"wifi_switch\", checked: false});\ncomplete(true, \"Wi-Fi is off\");\n```";
    let mut screens = Vec::new();
    for device in ["sim", "sim:ios", "sim:harmony"] {
        let llm = ScriptedLlm::start(vec![reply(OPEN_SETTINGS), reply(tap)]);
        let out = scratch(&format!("platform-{}", device.replace(':', "-")));
        let result = run(&llm, device, &out, &["--vision", "off", "--no-memory"], "Turn off Wi-Fi");
        assert_eq!(result.status.code(), Some(0), "{device}: {}", stderr(&result));
        let summary = json_file(&run_dir(&out).join("summary.json"));
        assert_eq!(summary["outcome"], "success", "{device}");
        screens.push(last_user_text(&llm.requests()[1]));
        // One script, three platforms: the replay a run exports passes on the others.
        let replay = run_dir(&out).join("script.selectors.rhai");
        for other in ["sim", "sim:ios", "sim:harmony"].into_iter().filter(|d| *d != device) {
            let done = Command::new(env!("CARGO_BIN_EXE_codeact"))
                .args(["exec", replay.to_str().unwrap_or_default(), "--device", other])
                .output()
                .expect("codeact exec");
            assert!(done.status.success(), "recorded on {device}, replayed on {other}: {}", stderr(&done));
        }
        let _ = std::fs::remove_dir_all(&out);
    }
    let element_lines = |text: &str| -> Vec<String> {
        text.lines().filter(|l| l.contains("wifi_switch") || l.contains("\"Wi-Fi\"")).map(str::to_string).collect()
    };
    for other in &screens[1..] {
        assert!(other.contains("Switch #wifi_switch"), "{other}");
        assert_eq!(element_lines(&screens[0]).len(), element_lines(other).len(), "{}\n---\n{other}", screens[0]);
    }
}

#[test]
fn missing_code_and_syntax_errors_are_fed_back() {
    let llm = ScriptedLlm::start(vec![
        reply("I think I should open Settings."),
        reply("```rhai\nstart_app(\"com.android.settings\"\n```"),
        reply(OPEN_SETTINGS),
        reply("Done.\n```rhai\ncomplete(true, \"Settings is open\");\n```"),
    ]);
    let out = scratch("feedback");
    let result = run(&llm, "sim", &out, &["--vision", "off"], "Open Settings");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let requests = llm.requests();
    assert_eq!(requests.len(), 4);
    assert!(last_user_text(&requests[1]).contains("no code"), "{}", last_user_text(&requests[1]));
    let parse = last_user_text(&requests[2]);
    assert!(
        parse.contains("did not parse") && parse.contains("syntax error") && parse.contains("line 2, column 1"),
        "{parse}"
    );
    let script = std::fs::read_to_string(run_dir(&out).join("script.rhai")).expect("script");
    assert!(script.contains("// Not run: "), "the bad step is kept as a comment: {script}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn rate_limits_and_server_errors_are_retried() {
    let llm = ScriptedLlm::start(vec![
        Canned::Status(429, "Rate limit reached".into()),
        Canned::Status(500, "The server had an error".into()),
        reply("Done.\n```rhai\ncomplete(true, \"nothing to do\");\n```"),
    ]);
    let out = scratch("retry");
    let result = run(&llm, "sim", &out, &["--vision", "off"], "Nothing");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert_eq!(llm.requests().len(), 3, "two retries, then the answer");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn max_steps_and_loops_end_a_run_that_never_completes() {
    let llm = ScriptedLlm::start(vec![reply("Look around.\n```rhai\nprint(ui_state.len());\n```")]);
    let out = scratch("steps");
    let result = run(&llm, "sim", &out, &["--vision", "off", "--max-steps", "2"], "Never done");
    assert_eq!(result.status.code(), Some(1));
    let summary = json_file(&run_dir(&out).join("summary.json"));
    assert_eq!(summary["outcome"], "failure");
    assert!(summary["reason"].as_str().unwrap_or("").contains("--max-steps 2"), "{summary}");

    let llm = ScriptedLlm::start(vec![reply("Look around.\n```rhai\nprint(ui_state.len());\n```")]);
    let out2 = scratch("loop");
    let result = run(&llm, "sim", &out2, &["--vision", "off", "--max-steps", "10", "--json"], "Never done");
    assert_eq!(result.status.code(), Some(1));
    let summary: serde_json::Value = serde_json::from_slice(&result.stdout).expect("--json prints the summary");
    assert_eq!(summary["steps"], 3, "stopped at the third identical snippet");
    assert!(summary["reason"].as_str().unwrap_or("").contains("loop"), "{summary}");
    assert!(last_user_text(&llm.requests()[2]).contains("Warning: this is the same code"), "the model was warned");
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&out2);
}

#[test]
fn a_tool_outside_the_persona_is_function_not_found() {
    let llm = ScriptedLlm::start(vec![
        reply("Tap.\n```rhai\ntap_by_index(0);\n```"),
        reply("Fine.\n```rhai\ncomplete(false, \"cannot tap in this persona\");\n```"),
    ]);
    let out = scratch("persona");
    let result = run(&llm, "sim", &out, &["--persona", "app_starter"], "Tap something");
    assert_eq!(result.status.code(), Some(1), "a failed completion is a failure");
    let fed_back = last_user_text(&llm.requests()[1]);
    assert!(fed_back.contains("Function not found: tap_by_index"), "{fed_back}");
    assert!(
        fed_back.contains("start_app, open_app, list_packages, complete"),
        "the allowed tools are named: {fed_back}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn vision_sends_the_screenshot_as_a_data_url_and_only_when_on() {
    let done = reply("Done.\n```rhai\ncomplete(true, \"seen\");\n```");
    for (vision, expect_image) in [("on", true), ("off", false)] {
        let llm = ScriptedLlm::start(vec![done.clone()]);
        let out = scratch(&format!("vision-{vision}"));
        let result = run(&llm, "sim", &out, &["--vision", vision], "Look");
        assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
        let request = llm.requests()[0].to_string();
        assert_eq!(request.contains("data:image/png;base64,iVBORw0KGgo"), expect_image, "vision {vision}");
        let _ = std::fs::remove_dir_all(&out);
    }
    // With vision off no image is sent, even after the model took a screenshot().
    let llm = ScriptedLlm::start(vec![reply("Let me look.\n```rhai\nscreenshot();\n```"), done]);
    let out = scratch("vision-asked");
    let result = run(&llm, "sim", &out, &["--vision", "off", "--persona", "big_agent"], "Look");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert!(llm.requests().iter().all(|r| !r.to_string().contains("data:image")), "a text-only model gets text");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn the_completion_gate_catches_a_blind_batch_that_typed_into_the_wrong_field() {
    // The minutes go into the hour field (it still has focus), Save refuses 730,
    // and the snippet declares victory without looking.
    let blind = "Thought: add the alarm in one go.\n```rhai\nstart_app(\"com.android.deskclock\");\ntap(#{desc: \"Add alarm\"});\n\
         input_text(\"7\");\ninput_text(\"30\");\ntap(#{desc: \"Save\"});\ncomplete(true, \"alarm set for 7:30\");\n```";
    let fix = "Thought: the hour field says 730; I fill both fields and look.\n```rhai\nset_text(#{id: \"hour\"}, \"7\");\n\
         set_text(#{id: \"minute\"}, \"30\");\ntap(#{desc: \"Save\"});\nrefresh();\ncomplete(true, \"alarm set for 7:30\");\n```";
    let has_730 = |addr: &str| {
        state(addr)["alarms"].as_array().is_some_and(|a| a.iter().any(|x| x["hour"] == 7 && x["minute"] == 30))
    };

    let sim = common::SimProcess::start(&[]);
    let llm = ScriptedLlm::start(vec![reply(blind), reply(fix)]);
    let out = scratch("gate");
    let result = run(&llm, &sim.addr, &out, &["--vision", "off", "--persona", "big_agent"], "Set an alarm for 7:30");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let requests = llm.requests();
    assert_eq!(requests.len(), 2, "the held completion cost one more step");
    let second = last_user_text(&requests[1]);
    assert!(second.contains("without looking at what the actions did"), "{second}");
    assert!(second.contains("\"730\""), "the model sees the field it typed into: {second}");
    assert!(second.contains("tap(#{\"desc\": \"Save\"}) -> ok; retried once: no visible change"), "{second}");
    assert!(has_730(&sim.addr), "{}", state(&sim.addr));
    let dir = run_dir(&out);
    assert!(events(&dir).iter().any(|e| e["event"] == "completion_held"));
    // The replay goes on past the held completion, as the run did.
    shell(&sim.addr, "simctl reset");
    let replay = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "--device", &sim.addr, "--keep-state"])
        .arg(dir.join("script.rhai"))
        .output()
        .expect("replay");
    assert_eq!(replay.status.code(), Some(0), "{}", stderr(&replay));
    assert!(has_730(&sim.addr), "the replay set the alarm too: {}", stderr(&replay));
    let _ = std::fs::remove_dir_all(&out);

    // Without the gate the same reply "succeeds", and there is no alarm.
    let sim = common::SimProcess::start(&[]);
    let llm = ScriptedLlm::start(vec![reply(blind)]);
    let out = scratch("nogate");
    let result =
        run(&llm, &sim.addr, &out, &["--vision", "off", "--verify-completion", "off"], "Set an alarm for 7:30");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert!(!has_730(&sim.addr));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn steps_that_go_nowhere_make_the_model_change_approach_then_end_the_run() {
    let sim = common::SimProcess::start(&[]);
    let ghost = |n: usize| reply(&format!("Thought: try ghost {n}.\n```rhai\ntap(\"Ghost button {n}\");\n```"));
    let llm = ScriptedLlm::start((1..=4).map(ghost).collect());
    let out = scratch("stall");
    let result = run(&llm, &sim.addr, &out, &["--vision", "off", "--error-threshold", "2"], "Press the ghost button");
    assert_eq!(result.status.code(), Some(1), "{}", stderr(&result));
    let requests = llm.requests();
    assert_eq!(requests.len(), 4, "twice the threshold ends it");
    assert!(!last_user_text(&requests[1]).contains("Change approach"));
    assert!(last_user_text(&requests[2]).contains("Change approach"), "{}", last_user_text(&requests[2]));
    let summary = json_file(&run_dir(&out).join("summary.json"));
    assert_eq!(summary["outcome"], "failure");
    assert!(summary["reason"].as_str().unwrap_or_default().contains("4 steps in a row"), "{summary}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_dialog_is_cleared_before_the_model_sees_it_and_the_replay_clears_it_once() {
    let sim = common::SimProcess::start(&[]);
    shell(&sim.addr, "simctl fault dialog anr");
    let off = "Thought: Settings is open; I switch Wi-Fi off and check.\n```rhai\ntap(#{id: \"wifi_switch\"});\n\
         wait_for(#{id: \"wifi_switch\", checked: false});\ncomplete(true, \"Wi-Fi is off\");\n```";
    let llm = ScriptedLlm::start(vec![reply(OPEN_SETTINGS), reply(off)]);
    let out = scratch("watch");
    let result = run(&llm, &sim.addr, &out, &["--vision", "off"], "Turn off Wi-Fi");
    assert_eq!(result.status.code(), Some(0), "asserted after acting: no gate: {}", stderr(&result));
    let second = last_user_text(&llm.requests()[1]);
    assert!(
        second.contains("start_app(\"com.android.settings\") -> ok; opened com.android.settings/.Settings"),
        "{second}"
    );
    assert!(
        second.contains(
            "Since then: a watcher cleared a blocker: the anr watcher tapped \"Wait\" on \"System UI isn't responding\""
        ),
        "{second}"
    );
    assert!(!second.contains("isn't responding\" (id alertTitle)"), "the screen shown is the cleared one: {second}");
    assert_eq!(state(&sim.addr)["settings"]["wifi"], false);

    // The replay meets the same dialog: the watcher clears it once, and the script
    // itself taps no "Wait".
    let dir = run_dir(&out);
    let replay = std::fs::read_to_string(dir.join("script.selectors.rhai")).expect("replay script");
    assert!(!replay.contains("Wait"), "{replay}");
    shell(&sim.addr, "simctl reset");
    shell(&sim.addr, "simctl fault dialog anr");
    let ran = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "--device", &sim.addr, "--keep-state"])
        .arg(dir.join("script.selectors.rhai"))
        .output()
        .expect("replay");
    let err = stderr(&ran);
    assert_eq!(ran.status.code(), Some(0), "{err}");
    assert_eq!(err.matches("watcher(\"anr\")").count(), 1, "{err}");
    assert_eq!(state(&sim.addr)["settings"]["wifi"], false);
    let _ = std::fs::remove_dir_all(&out);
}
