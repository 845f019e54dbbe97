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

use common::sim_state as state;

pub(crate) fn shell(addr: &str, cmd: &str) {
    let mut d = AdbDevice::direct(addr, Duration::from_secs(10)).expect("connect");
    d.shell(cmd).expect("shell");
}

pub(crate) fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const OPEN_SETTINGS: &str =
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
fn a_lost_device_ends_the_run_clearly_with_its_files_complete() {
    let sim = std::sync::Arc::new(std::sync::Mutex::new(Some(common::SimProcess::start(&[]))));
    let addr = sim.lock().ok().and_then(|s| s.as_ref().map(|s| s.addr.clone())).unwrap_or_default();
    let dropper = sim.clone();
    // The device goes away while the model thinks about step 2.
    let hook = Box::new(move |n: usize| {
        if n == 2 {
            dropper.lock().map(|mut s| s.take()).ok();
        }
    });
    let llm = ScriptedLlm::start_with_hook(
        vec![reply(OPEN_SETTINGS), reply("Tap it.\n```rhai\ntap_by_index(6);\n```")],
        Some(hook),
    );
    let out = scratch("drop");
    let result = run(&llm, &addr, &out, &["--vision", "off", "--timeout", "3"], "Turn off Wi-Fi");
    assert!(!result.status.success());
    let dir = run_dir(&out);
    let summary = json_file(&dir.join("summary.json"));
    assert_eq!(summary["outcome"], "error", "{summary}");
    assert!(summary["reason"].as_str().unwrap_or("").contains("the device stopped answering"), "{summary}");
    let all = events(&dir);
    assert_eq!(all.last().map(|e| e["event"].clone()), Some("run_end".into()), "events.jsonl is complete");
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
fn the_api_key_is_used_but_never_written() {
    let llm = ScriptedLlm::start(vec![reply("Done.\n```rhai\nprint(\"hello\");\ncomplete(true, \"ok\");\n```")]);
    let out = scratch("key");
    let result = run(&llm, "sim", &out, &["--save-trajectory", "action"], "Say hello");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert_eq!(llm.auth_headers(), [format!("Bearer {FAKE_KEY}")], "the key reached the server");
    let mut seen = String::from_utf8_lossy(&result.stdout).into_owned() + stderr(&result).as_str();
    for entry in walk(&run_dir(&out)) {
        seen.push_str(&String::from_utf8_lossy(&std::fs::read(&entry).unwrap_or_default()));
    }
    assert!(!seen.contains(FAKE_KEY) && !seen.contains("7f3a9c21e0"), "the key leaked");
    let _ = std::fs::remove_dir_all(&out);

    // A provider that echoes the key in its error: the error is shown, the key is not.
    let llm = ScriptedLlm::start(vec![Canned::Status(401, format!("Incorrect API key provided: {FAKE_KEY}"))]);
    let out = scratch("key-401");
    let result = run(&llm, "sim", &out, &[], "Say hello");
    assert_eq!(result.status.code(), Some(2), "an LLM that refuses is an error");
    let mut seen = String::from_utf8_lossy(&result.stdout).into_owned() + stderr(&result).as_str();
    for entry in walk(&run_dir(&out)) {
        seen.push_str(&String::from_utf8_lossy(&std::fs::read(&entry).unwrap_or_default()));
    }
    assert!(seen.contains("answered 401: Incorrect API key provided: [key]"), "{seen}");
    assert!(!seen.contains(FAKE_KEY) && !seen.contains("7f3a9c21e0"), "the key leaked through the error");
    let _ = std::fs::remove_dir_all(&out);
}

/// Everything a run showed or wrote: stdout, stderr and every file of its directory.
pub(crate) fn everything_seen(result: &Output, out: &Path) -> String {
    let mut seen = String::from_utf8_lossy(&result.stdout).into_owned() + stderr(result).as_str();
    for entry in walk(&run_dir(out)) {
        seen.push_str(&String::from_utf8_lossy(&std::fs::read(&entry).unwrap_or_default()));
    }
    seen
}

#[test]
fn a_provider_that_echoes_the_key_in_any_reply_never_gets_it_shown() {
    // A 5xx (retried; async-openai logs it), a 4xx-free good reply that repeats the key
    // in its prose, its code and its completion, all with every log line switched on.
    let llm = ScriptedLlm::start(vec![
        Canned::Status(500, format!("Server error; the key was {FAKE_KEY}")),
        reply(&format!(
            "Your key is {FAKE_KEY}.\n```rhai\nprint(\"{FAKE_KEY}\");\nlet k = \"{FAKE_KEY}\";\ncomplete(true, `echoed ${{k}}`);\n```"
        )),
    ]);
    let out = scratch("key-echo");
    let extra = ["--vision", "off", "--save-trajectory", "action"];
    let result = run_against(&llm.base_url, "sim", &out, &extra, "Echo", &[("CODEACT_LOG", "trace")]);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let seen = everything_seen(&result, &out);
    assert!(seen.contains("echoed [key]"), "the reply went through, redacted: {}", stderr(&result));
    assert!(!seen.contains(FAKE_KEY) && !seen.contains("7f3a9c21e0"), "the key leaked");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn model_text_cannot_drive_the_terminal() {
    // Escape sequences, a NUL and a right-to-left override in the prose, the code's
    // output, its error and the completion: shown escaped, kept exact in the files.
    let nasty = "\u{1b}[2J\u{1b}[31mred\u{0}\u{202e}txt";
    // The same characters as Rhai escapes (a raw NUL in code is refused by name).
    let escaped = r"\x1b[2J\x1b[31mred\x00\u202etxt";
    let llm = ScriptedLlm::start(vec![
        reply(&format!("{nasty} thinking\n```rhai\nprint(\"{escaped}\");\nthrow \"{escaped}\";\n```")),
        reply(&format!("Done {nasty}\n```rhai\ncomplete(true, \"{escaped}\");\n```")),
    ]);
    let out = scratch("terminal");
    let result = run(&llm, "sim", &out, &["--vision", "off"], "Show me");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let shown = String::from_utf8_lossy(&result.stdout).into_owned() + stderr(&result).as_str();
    for raw in ['\u{1b}', '\u{0}', '\u{202e}'] {
        assert!(!shown.contains(raw), "{raw:?} reached the terminal: {shown}");
    }
    assert!(shown.contains("\\u{1b}[2J"), "shown escaped: {shown}");
    let events = std::fs::read_to_string(run_dir(&out).join("events.jsonl")).unwrap_or_default();
    assert!(events.contains("\\u001b[2J"), "the files keep the exact text");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_reply_cut_off_mid_body_is_not_called_unreachable() {
    use std::io::{Read, Write};
    // A server that accepts, promises a body and hangs up halfway through it.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let base_url = format!("http://{}/v1", listener.local_addr().expect("addr"));
    std::thread::spawn(move || {
        for stream in listener.incoming().take(4) {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 65536];
            let _ = stream.read(&mut request);
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 5000\r\n\r\n{\"id\": \"x\", \"choi",
            );
        }
    });
    let out = scratch("cut-body");
    let result = run_against(&base_url, "sim", &out, &["--vision", "off"], "Anything", &[]);
    let err = String::from_utf8_lossy(&result.stdout).into_owned() + stderr(&result).as_str();
    assert_eq!(result.status.code(), Some(2), "{err}");
    assert!(!err.contains("cannot reach"), "the server was reached: {err}");
    assert!(err.contains("broke off") || err.contains("not an OpenAI chat completion"), "{err}");
    let _ = std::fs::remove_dir_all(&out);
}

pub(crate) fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() { files.extend(walk(&path)) } else { files.push(path) }
    }
    files
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
fn ctrl_c_finishes_the_run_directory_and_marks_it_interrupted() {
    interrupt_a_run("-INT", 130);
}

/// SIGTERM (a CI job's timeout) finishes the run directory the same way, exit 143.
#[test]
fn sigterm_finishes_the_run_directory_and_exits_143() {
    interrupt_a_run("-TERM", 143);
}

/// Sends `signal` to a run while its model thinks, and checks the run directory
/// is finished and marked interrupted, and the exit code.
fn interrupt_a_run(signal: &str, exit: i32) {
    use std::sync::Mutex;
    use std::sync::mpsc::channel;
    let (arrived_tx, arrived_rx) = channel::<()>();
    let (release_tx, release_rx) = channel::<()>();
    let (arrived_tx, release_rx) = (Mutex::new(arrived_tx), Mutex::new(release_rx));
    // The second request hangs (a slow model) until the test lets it go.
    let hook = Box::new(move |n: usize| {
        if n == 2 {
            arrived_tx.lock().map(|t| t.send(())).ok();
            release_rx.lock().map(|r| r.recv_timeout(Duration::from_secs(30))).ok();
        }
    });
    let llm = ScriptedLlm::start_with_hook(vec![reply(OPEN_SETTINGS)], Some(hook));
    let out = scratch(&format!("interrupt{signal}"));
    let child = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["run", "--device", "sim", "--base-url", &llm.base_url, "--model", "scripted", "--vision", "off"])
        .args(["--no-memory", "--out", out.to_str().unwrap_or_default(), "Turn off Wi-Fi"])
        .env_remove("CODEACT_CONFIG")
        .current_dir(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start codeact run");
    arrived_rx.recv_timeout(Duration::from_secs(60)).expect("the second request arrives");
    let status = Command::new("kill").args([signal, &child.id().to_string()]).status().expect("kill");
    assert!(status.success());
    let result = child.wait_with_output().expect("codeact run ends");
    let _ = release_tx.send(());
    assert_eq!(result.status.code(), Some(exit), "{}", stderr(&result));
    let dir = run_dir(&out);
    let summary = json_file(&dir.join("summary.json"));
    assert_eq!(summary["outcome"], "interrupted", "{summary}");
    assert_eq!(events(&dir).last().map(|e| e["event"].clone()), Some("run_end".into()));
    assert!(dir.join("script.rhai").is_file());
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_dropped_connection_is_reported_to_the_model_and_the_run_recovers() {
    let sim = common::SimProcess::start(&[]);
    let addr = sim.addr.clone();
    // While the model writes step 2, the device is told to drop its next command.
    let hook = Box::new(move |n: usize| {
        if n == 2 {
            shell(&addr, "simctl fault drop 0");
        }
    });
    let tap_and_finish = "Thought: tap the Wi-Fi switch.\n```rhai\ntap_by_index(6);\ncomplete(true, \"tapped\");\n```";
    let llm = ScriptedLlm::start_with_hook(vec![reply(OPEN_SETTINGS), reply(tap_and_finish)], Some(hook));
    let out = scratch("fault");
    // The gate would hold the blind completion for a step more: not this test's point.
    let flags = ["--persona", "big_agent", "--vision", "off", "--verify-completion", "off"];
    let result = run(&llm, &sim.addr, &out, &flags, "Turn off Wi-Fi");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let requests = llm.requests();
    assert_eq!(requests.len(), 3, "the dropped step, then the retry");
    let fed_back = last_user_text(&requests[2]);
    assert!(fed_back.contains("connection was lost"), "the model is told: {fed_back}");
    assert_eq!(state(&sim.addr)["settings"]["wifi"], false);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_step_that_kills_the_engine_is_fed_back_and_the_run_directory_is_complete() {
    let llm = ScriptedLlm::start(vec![
        reply(concat!("```rhai\n", include_str!("hostile/memory_bomb.rhai"), "```")),
        reply("That was too big.\n```rhai\ncomplete(true, \"recovered\");\n```"),
    ]);
    let out = scratch("engine-death");
    let result = run(&llm, "sim", &out, &["--vision", "off", "--limit", "max_memory_mb=128"], "Use memory");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let requests = llm.requests();
    let fed_back = last_user_text(&requests[1]);
    assert!(fed_back.contains("more than 128 MiB") && fed_back.contains("variables"), "{fed_back}");
    let dir = run_dir(&out);
    assert_eq!(json_file(&dir.join("summary.json"))["outcome"], "success");
    assert!(events(&dir).iter().any(|e| e["event"] == "run_end"), "run_end is written");
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
