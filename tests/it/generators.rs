//! What codeact writes replays: each generator's output runs on a fresh virtual
//! phone and leaves it as the recording left its own — the studio's saves in both
//! forms (a recording begun with the app in front, an act, an "on/off" and an "its
//! text" assertion) and its own run folder's `session.rhai`, a WebDriver session's `session.rhai` (its `execute_driver`
//! scripts defining one function twice), `--export maestro` of a run and of its
//! replay (the same flow), a REPL's `:save` — and a recorded assertion that no
//! longer holds fails the replay as a FAIL (exit 1), never an ERROR.

use std::path::Path;
use std::process::Command;

use crate::common::loopback::Loopback;
use crate::common::{self, SimProcess};

fn said(out: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// `codeact exec FILE --device ADDR` in `dir`.
fn exec(dir: &Path, file: &str, addr: &str, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", file, "--device", addr])
        .args(extra)
        .current_dir(dir)
        .env_remove("OPENAI_API_KEY")
        .output()
        .expect("codeact exec")
}

fn shell(addr: &str, command: &str) {
    let mut d = codeact::device::AdbDevice::direct(addr, std::time::Duration::from_secs(10)).expect("connect");
    codeact::device::Device::shell(&mut d, command).expect("shell");
}

/// What a replay is judged on: the phone's settings and collections (not its
/// clock, focus or animation).
fn world(addr: &str) -> serde_json::Value {
    let mut state = common::sim_state(addr);
    if let Some(map) = state.as_object_mut() {
        for volatile in ["animating", "keyboard_shown", "focused", "ime", "values"] {
            map.remove(volatile);
        }
    }
    state
}

fn studio_call(studio: &Loopback, path: &str, body: &str) -> serde_json::Value {
    let (status, text) = studio.request(
        "POST",
        &format!("/{}/{path}", studio.token),
        &[("Content-Type", "application/json")],
        body.as_bytes(),
    );
    assert_eq!(status, 200, "{path} {body}: {text}");
    serde_json::from_str(&text).unwrap_or(serde_json::Value::Null)
}

#[test]
fn studio_saves_in_both_forms_replay_and_a_broken_assertion_fails() {
    let recorded = SimProcess::start(&[]);
    let dir = tempfile::tempdir().expect("dir");
    let studio = Loopback::start(&["studio", "--device", &recorded.addr, "--port", "0"], dir.path(), &[]);
    // The app in front before recording starts: the saves must start it themselves.
    studio_call(&studio, "api/act", r#"{"action": "open_app", "package": "com.android.settings"}"#);
    studio_call(&studio, "api/recording", r#"{"on": true, "from_app": true}"#);
    studio_call(&studio, "api/act", r##"{"action": "tap", "selector": "#{id: \"wifi_switch\"}"}"##);
    studio_call(
        &studio,
        "api/assert",
        r##"{"kind": "state", "selector": "#{id: \"wifi_switch\"}", "checked": false}"##,
    );
    studio_call(
        &studio,
        "api/assert",
        r##"{"kind": "text", "selector": "#{id: \"summary\", nth: 0}", "text": "Off"}"##,
    );
    for path in ["wifi_off.rhai", "flows/wifi_off.yaml"] {
        studio_call(&studio, "api/save", &format!(r#"{{"path": "{path}"}}"#));
    }
    drop(studio);
    let after = world(&recorded.addr);
    // The studio's own run folder holds every act as a step, and its session.rhai
    // (written after each one) replays to the same phone.
    let run =
        std::fs::read_dir(dir.path().join("runs")).expect("runs").flatten().map(|e| e.path()).next().expect("a run");
    let events = std::fs::read_to_string(run.join("events.jsonl")).unwrap_or_default();
    assert_eq!(events.matches("\"event\":\"studio_act\"").count(), 4, "{events}");
    let fresh = SimProcess::start(&[]);
    let out = exec(&run, "session.rhai", &fresh.addr, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert_eq!(world(&fresh.addr), after, "the studio's session.rhai does what the studio did");
    let flow = std::fs::read_to_string(dir.path().join("flows/wifi_off.yaml")).expect("the flow");
    assert!(flow.contains("launchApp"), "the flow starts the app as the script does: {flow}");
    assert!(flow.contains("checked: false") && flow.contains("text: \"Off\""), "its assertions: {flow}");
    for saved in ["wifi_off.rhai", "flows/wifi_off.yaml"] {
        let fresh = SimProcess::start(&[]);
        let out = exec(dir.path(), saved, &fresh.addr, &[]);
        assert_eq!(out.status.code(), Some(0), "{saved}: {}", said(&out));
        assert_eq!(world(&fresh.addr), after, "{saved} leaves the phone as the recording did");
        // Wi-Fi already off: the tap turns it on, and the recorded assertion FAILs.
        let off = SimProcess::start(&[]);
        shell(&off.addr, "simctl set settings.wifi false");
        let out = exec(dir.path(), saved, &off.addr, &[]);
        assert_eq!(out.status.code(), Some(1), "{saved}: a FAIL, not an ERROR: {}", said(&out));
        assert!(said(&out).contains("FAIL"), "{saved}: {}", said(&out));
    }
}

#[test]
fn maestro_exports_of_a_run_and_of_its_replay_are_the_same_flow() {
    let dir = tempfile::tempdir().expect("dir");
    let fixtures = format!("{}/tests/fixtures/maestro", env!("CARGO_MANIFEST_DIR"));
    for flow in ["wifi_off", "add_note", "send_message", "find_contact", "back_and_keys"] {
        let first = exec(
            dir.path(),
            &format!("{fixtures}/{flow}.yaml"),
            "sim",
            &["--trajectory", &format!("{flow}-1"), "--export", "maestro"],
        );
        assert_eq!(first.status.code(), Some(0), "{flow}: {}", said(&first));
        let exported = std::fs::read_to_string(dir.path().join(format!("{flow}-1/flow.yaml"))).expect("flow.yaml");
        let again = exec(
            dir.path(),
            &format!("{flow}-1/flow.yaml"),
            "sim",
            &["--trajectory", &format!("{flow}-2"), "--export", "maestro"],
        );
        assert_eq!(again.status.code(), Some(0), "{flow}: {}", said(&again));
        let re_exported = std::fs::read_to_string(dir.path().join(format!("{flow}-2/flow.yaml"))).expect("flow.yaml");
        let body = |y: &str| y.lines().filter(|l| !l.starts_with("name:")).collect::<Vec<_>>().join("\n");
        assert_eq!(body(&re_exported), body(&exported), "{flow}: the export of a replay is the export");
    }
}

#[test]
fn a_webdriver_sessions_script_replays_with_a_function_defined_twice() {
    let recorded = SimProcess::start(&[]);
    let dir = tempfile::tempdir().expect("dir");
    let served = crate::webdriver::Served::start(&recorded.addr, dir.path(), &[]);
    let id = served.session(r#"{"platformName": "Android"}"#);
    let run = |script: &str| {
        let body = serde_json::json!({"script": script, "type": "rhai"}).to_string();
        let (status, reply) = served.call("POST", &format!("/session/{id}/appium/execute_driver"), &body);
        assert_eq!(status, 200, "{script}: {reply}");
    };
    run("fn open_it() { start_app(\"com.android.settings\"); }\nopen_it();");
    run("fn open_it() { start_app(\"com.android.settings\"); tap(#{id: \"wifi_switch\"}); }\nopen_it();");
    run("fn check() { wait_for(#{id: \"wifi_switch\"}).checked }\ncheck()");
    assert_eq!(served.call("DELETE", &format!("/session/{id}"), "").0, 200);
    drop(served);
    let after = world(&recorded.addr);
    let runs = dir.path().join("runs");
    let folder = std::fs::read_dir(&runs).expect("runs").flatten().map(|e| e.path()).next().expect("a run");
    let fresh = SimProcess::start(&[]);
    let out = exec(&folder, "session.rhai", &fresh.addr, &[]);
    let script = std::fs::read_to_string(folder.join("session.rhai")).unwrap_or_default();
    assert_eq!(out.status.code(), Some(0), "{}\n{script}", said(&out));
    assert_eq!(world(&fresh.addr), after, "the replay does what the session did:\n{script}");
}

#[test]
fn a_repl_save_replays() {
    let recorded = SimProcess::start(&[]);
    let dir = tempfile::tempdir().expect("dir");
    let lines = "fn flip() { tap(#{id: \"wifi_switch\"}); }\nstart_app(\"com.android.settings\")\nflip()\n\
                 fn flip() { tap(#{id: \"bluetooth_switch\"}); }\nflip()\n:save session.rhai\n:quit\n";
    let mut child = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["repl", "--device", &recorded.addr])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("codeact repl");
    use std::io::Write as _;
    child.stdin.take().expect("stdin").write_all(lines.as_bytes()).expect("type");
    let out = child.wait_with_output().expect("repl ends");
    let script = std::fs::read_to_string(dir.path().join("session.rhai")).unwrap_or_default();
    assert!(script.contains("flip_2"), "{}\n{script}", said(&out));
    let after = world(&recorded.addr);
    let fresh = SimProcess::start(&[]);
    let replay = exec(dir.path(), "session.rhai", &fresh.addr, &[]);
    assert_eq!(replay.status.code(), Some(0), "{}\n{script}", said(&replay));
    assert_eq!(world(&fresh.addr), after, "{script}");
}

#[test]
fn explores_tests_replay_the_way_the_walk_went_state_changes_included() {
    let dir = tempfile::tempdir().expect("dir");
    let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args([
            "explore",
            "--app",
            "com.codeact.shop",
            "--device",
            "sim",
            "--budget",
            "300",
            "--no-screenshots",
            "--json",
        ])
        .args(["--out", "runs"])
        .current_dir(dir.path())
        .output()
        .expect("codeact explore");
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the summary");
    let run = dir.path().join(summary["dir"].as_str().expect("its folder"));
    let tests: Vec<String> = summary["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .filter_map(|t| t["file"].as_str().map(str::to_string))
        .collect();
    let checkout = tests.iter().find(|t| t.contains("checkout")).expect("a test reaches the checkout");
    let text = std::fs::read_to_string(run.join(checkout)).expect("the checkout test");
    assert!(text.contains("Add to cart"), "the cart is filled on the way, as the walk did: {text}");
    let mut args: Vec<&str> = vec!["exec"];
    args.extend(tests.iter().map(String::as_str));
    args.extend(["--device", "sim"]);
    let replayed = Command::new(env!("CARGO_BIN_EXE_codeact")).args(&args).current_dir(&run).output().expect("exec");
    assert_eq!(replayed.status.code(), Some(0), "every test it wrote passes: {}", said(&replayed));
}

/// An agent's run, its steps defining one function twice: both exports
/// (`script.rhai`, `script.selectors.rhai`) replay on a fresh phone and leave it as
/// the run did.
#[test]
fn an_agents_exports_replay_with_a_function_defined_twice() {
    use crate::common::llm::{ScriptedLlm, reply};
    let recorded = SimProcess::start(&[]);
    let llm = ScriptedLlm::start(vec![
        reply(
            "Thought: Settings first.\n```rhai\nfn flip_it() { start_app(\"com.android.settings\"); }\nflip_it();\n```",
        ),
        reply("Thought: Wi-Fi off.\n```rhai\nfn flip_it() { tap(#{id: \"wifi_switch\"}); }\nflip_it();\n```"),
        reply("Thought: done.\n```rhai\ncomplete(true, \"Wi-Fi is off\");\n```"),
    ]);
    let out = tempfile::tempdir().expect("dir");
    let ran = crate::agent_run::run(&llm, &recorded.addr, out.path(), &["--vision", "off"], "Turn off Wi-Fi");
    assert_eq!(ran.status.code(), Some(0), "{}", said(&ran));
    let after = world(&recorded.addr);
    let dir = crate::agent_run::run_dir(out.path());
    for export in ["script.rhai", "script.selectors.rhai"] {
        let text = std::fs::read_to_string(dir.join(export)).unwrap_or_default();
        assert!(text.contains("fn flip_it_2()"), "{export}: the second flip_it is renamed: {text}");
        let fresh = SimProcess::start(&[]);
        let replay = exec(&dir, export, &fresh.addr, &[]);
        assert_eq!(replay.status.code(), Some(0), "{export}: {}\n{text}", said(&replay));
        assert_eq!(world(&fresh.addr), after, "{export} does what the run did");
    }
}
