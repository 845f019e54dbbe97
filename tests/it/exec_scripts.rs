//! `codeact exec` runs the shipped scripts against a virtual device, and the world's
//! state (read through `simctl state`, as any client would) proves what they did.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use codeact::config::{FileConfig, Flags};
use codeact::device::{DeviceSpec, open};
use codeact::session::Session;

use crate::common;
use crate::repl_sim::repl_output;

/// A session with every tool and the default limits, on a virtual device of its own.
pub(crate) fn session() -> Session {
    let mut settings = FileConfig::default().resolve(&Flags::default()).expect("settings");
    settings.worker = common::worker();
    let device = open(&DeviceSpec::Sim, Duration::from_secs(10)).expect("sim");
    Session::new(device, &settings).expect("session")
}

fn exec(addr: &str, script: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", script, "--device", addr])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run codeact exec")
}

pub(crate) use common::sim_state as state;

/// Opens Messages (allowing its notifications if it asks) and starts a new chat:
/// the recipient field then has focus.
pub(crate) const NEW_CHAT: &str = r#"start_app("com.google.android.apps.messaging");
if find(#{id: "permission_allow_button"}) != () { tap(#{id: "permission_allow_button"}); }
tap(#{desc: "Start chat"});
"#;

type Check = fn(&serde_json::Value) -> bool;

/// The bundled scripts, each with what the world must show after it.
fn shipped_scripts() -> [(&'static str, Check); 6] {
    [
        ("scripts/find_contact.rhai", |s| s["activity"] == "com.android.contacts.activities.ContactDetail"),
        ("scripts/dismiss_permission_dialog.rhai", |s| {
            s["dialog"].is_null() && s["values"]["perm.messaging_notifications"] == true
        }),
        ("scripts/turn_off_wifi.rhai", |s| s["settings"]["wifi"] == false),
        ("scripts/send_message.rhai", |s| {
            s["messages"].as_array().is_some_and(|m| m.iter().any(|m| m["to"] == "张三" && m["text"] == "你好"))
        }),
        ("scripts/add_note.rhai", |s| {
            s["notes"]
                .as_array()
                .is_some_and(|n| n.iter().any(|n| n["title"] == "Shopping" && n["body"] == "milk, eggs"))
        }),
        ("scripts/add_alarm.rhai", |s| {
            s["alarms"]
                .as_array()
                .is_some_and(|a| a.iter().any(|a| a["hour"] == 7 && a["minute"] == 30 && a["enabled"] == true))
        }),
    ]
}

#[test]
fn shipped_scripts_pass_and_change_the_world() {
    for (script, check) in shipped_scripts() {
        let sim = common::SimProcess::start(&[]);
        let out = exec(&sim.addr, script);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{script} failed: {stderr}");
        assert!(stderr.contains(&format!("PASS {script} (")) && stderr.contains(") completed: "), "{stderr}");
        assert!(check(&state(&sim.addr)), "{script}: the world does not show it");
    }
}

/// The same scripts, unchanged, on the virtual phone reached as an iPhone (its
/// WebDriverAgent door, `--device ios:URL`): the same world changes the same way,
/// read through the door's own test hook.
#[test]
fn shipped_scripts_pass_unchanged_on_the_virtual_iphone() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    for (script, check) in shipped_scripts() {
        let sim = common::SimProcess::start(&["--platform", "ios"]);
        let url = format!("http://{}", sim.addr);
        let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
            .args(["exec", script, "--device", &format!("ios:{url}")])
            .output()
            .expect("codeact exec");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{script} failed on iOS: {stderr}");
        let state: serde_json::Value = reqwest::blocking::Client::new()
            .post(format!("{url}/codeact/simctl"))
            .body(r#"{"args": "state"}"#)
            .send()
            .and_then(|r| r.json())
            .expect("the state through the door");
        let state: serde_json::Value =
            serde_json::from_str(state["value"]["stdout"].as_str().unwrap_or_default()).expect("state JSON");
        assert!(check(&state), "{script}: the world does not show it: {state}");
    }
}

#[test]
fn shipped_scripts_pass_unchanged_on_the_virtual_harmony_phone() {
    for (script, check) in shipped_scripts() {
        let sim = common::SimProcess::start(&["--platform", "harmony"]);
        let port = sim.addr.rsplit(':').next().unwrap_or_default();
        let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
            .args(["exec", script, "--device", "hdc"])
            .env("OHOS_HDC_SERVER_PORT", port)
            .output()
            .expect("codeact exec");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{script} failed on HarmonyOS: {stderr}");
        let state = common::hdc::state(&sim.addr);
        assert!(check(&state), "{script}: the world does not show it: {state}");
    }
}

#[test]
fn a_failing_script_exits_non_zero_with_its_line() {
    let dir = std::env::temp_dir().join(format!("codeact-exec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let script = dir.join("bad.rhai");
    std::fs::write(&script, "let a = 1;\ntap_by_index(999);\n").expect("write");
    let sim = common::SimProcess::start(&[]);
    let out = exec(&sim.addr, script.to_str().unwrap_or_default());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("line 2") && stderr.contains("no element 999"), "{stderr}");
    let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "--check", script.to_str().unwrap_or_default()])
        .output()
        .expect("check");
    assert!(out.status.success(), "--check only parses");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A mistyped tool is caught before anything runs (`--check`) and named when it
/// runs: the tool it is a slip of, not the list of every function.
#[test]
fn a_mistyped_tool_is_caught_by_check_and_named_when_run() {
    let dir = std::env::temp_dir().join(format!("codeact-typo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let typo = dir.join("typo.rhai");
    std::fs::write(&typo, "fn open() { open_app(\"Settings\"); }\nopen();\ntapp(\"Wi-Fi\");\n").expect("write");
    let outside = dir.join("outside.rhai");
    std::fs::write(&outside, "start_app(\"com.android.settings\");\nrefresh();\n").expect("write");
    let fine = dir.join("fine.rhai");
    std::fs::write(&fine, "fn twice(x) { x * 2 }\nlet n = twice(len(\"ab\"));\nprint(n);\nif n > 3 { tap(\"OK\") }\n")
        .expect("write");
    let check = |files: &[&Path], extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
            .arg("exec")
            .arg("--check")
            .args(extra)
            .args(files)
            .output()
            .expect("check");
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, err) = check(&[&typo], &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("line 3") && err.contains("Function not found: tapp; did you mean tap()?"), "{err}");
    assert!(!err.contains("the functions this session has"), "a slip names its tool, not every one: {err}");
    // A tool the persona leaves out is not there for the check either.
    let (code, err) = check(&[&outside], &["--persona", "app_starter"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("Function not found: refresh"), "{err}");
    let (code, err) = check(&[&fine], &[]);
    assert_eq!(code, Some(0), "the engine's own functions and the script's are known: {err}");
    // Run, the slip is named the same way.
    let sim = common::SimProcess::start(&[]);
    let out = exec(&sim.addr, typo.to_str().unwrap_or_default());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("did you mean tap()?") && !err.contains("the functions this session has"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A CI job's timeout (SIGTERM) in the middle of a script: the scripts that ran
/// keep their verdicts, the one in hand is an interrupted JUnit case with its run
/// directory finished (summary.json, report.html), none starts after it, exit 143.
#[test]
fn a_terminated_exec_writes_its_records_before_it_exits() {
    let dir = std::env::temp_dir().join(format!("codeact-term-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let scripts = [("a_first", "home();\n"), ("b_long", "loop { wait(100); }\n"), ("c_never", "home();\n")];
    for (name, code) in scripts {
        std::fs::write(dir.join(format!("{name}.rhai")), code).expect("write");
    }
    let (junit, runs) = (dir.join("junit.xml"), dir.join("runs"));
    let child = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "--device", "sim"])
        .args(scripts.map(|(name, _)| dir.join(format!("{name}.rhai"))))
        .arg("--junit")
        .arg(&junit)
        .arg("--trajectory")
        .arg(&runs)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start codeact exec");
    // Wait until the long script runs (its events are being written).
    let started = std::time::Instant::now();
    while !runs.join("b_long/events.jsonl").exists() && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("a pid"));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("SIGTERM");
    let out = child.wait_with_output().expect("exec ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{err}");
    assert!(err.contains("terminated: finishing") && err.contains("stopped after 2 of 3 scripts"), "{err}");
    let xml = std::fs::read_to_string(&junit).expect("the JUnit report is written");
    assert!(xml.contains("testcase name=\"a_first\"") && xml.contains("testcase name=\"b_long\""), "{xml}");
    assert!(xml.contains("<error message=\"interrupted:"), "the running case is interrupted: {xml}");
    assert!(!xml.contains("c_never"), "no script starts after the signal: {xml}");
    for file in ["summary.json", "report.html", "events.jsonl"] {
        assert!(runs.join("b_long").join(file).is_file(), "b_long/{file}");
    }
    assert!(runs.join("report.html").is_file(), "the index of the scripts that ran");
    assert!(!runs.join("c_never").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn complete_ends_the_snippet_and_failures_need_a_reason() {
    let mut sb = session();
    let r = sb.eval("print(\"a\"); complete(true, \"done\"); print(\"never\");");
    assert_eq!(r.output, "a\n");
    let c = r.completion.clone().expect("completed");
    assert!(c.success && c.reason == "done" && r.ok());
    let r = sb.eval("complete(false);");
    assert!(r.error.expect("refused").message.contains("needs a reason"));
    let r = sb.eval("complete(false, \"no wifi\");");
    assert!(!r.ok() && r.error.is_none(), "a failed completion is not an error");
}

#[test]
fn tool_failures_are_classified_without_reading_messages() {
    use codeact::sandbox::{ErrorKind, FailureKind};
    let mut sb = session();
    let failure = |r: codeact::sandbox::RunResult| r.error.map(|e| e.kind);
    let tool = |name: &str, failure: FailureKind| Some(ErrorKind::Tool { tool: name.into(), failure });
    assert_eq!(
        failure(sb.eval("assert_visible(\"Nothing like this\");")),
        tool("assert_visible", FailureKind::Assertion)
    );
    assert_eq!(failure(sb.eval("tap_by_index(999);")), tool("tap_by_index", FailureKind::BadArgument));
    assert_eq!(failure(sb.eval("tap(\"Nothing like this\");")), tool("tap", FailureKind::NotFound));
    // Caught and thrown again, the failure keeps its kind; a script's own string does not
    // become one, however it reads.
    let rethrown = "try { assert_visible(\"Nope\"); } catch (e) { throw e; }";
    assert_eq!(failure(sb.eval(rethrown)), tool("assert_visible", FailureKind::Assertion));
    let own = "throw \"assert_visible: assertion failed: \\\"Nope\\\" is not on screen\";";
    assert_eq!(failure(sb.eval(own)), Some(ErrorKind::Script));
}

/// Runs `code` as a script file through `codeact exec --device sim`; (exit code,
/// stdout, stderr).
pub(crate) fn exec_sim(name: &str, code: &str) -> (Option<i32>, String, String) {
    exec_sim_with(name, code, &[])
}

/// [`exec_sim`] with more flags for `codeact exec`.
pub(crate) fn exec_sim_with(name: &str, code: &str, flags: &[&str]) -> (Option<i32>, String, String) {
    let dir = std::env::temp_dir().join(format!("codeact-exec-{}-{name}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let script = dir.join(format!("{name}.rhai"));
    std::fs::write(&script, code).expect("write script");
    let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "--device", "sim"])
        .args(flags)
        .arg(&script)
        .output()
        .expect("run codeact exec");
    let _ = std::fs::remove_dir_all(&dir);
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

#[test]
fn each_script_starts_on_a_fresh_virtual_phone_unless_kept() {
    let dir = std::env::temp_dir().join(format!("codeact-fresh-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let off = dir.join("a_wifi_off.rhai");
    let read = dir.join("b_read_wifi.rhai");
    std::fs::write(&off, "start_app(\"com.android.settings\");\ntap(#{id: \"wifi_switch\"});\n").expect("write");
    std::fs::write(&read, "print(parse_json(shell(\"simctl state\").output).settings.wifi);\n").expect("write");
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
            .args(["exec", "--device", "sim"])
            .args(extra)
            .arg(&off)
            .arg(&read)
            .output()
            .expect("run codeact exec");
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    assert_eq!(run(&[]), (Some(0), "true\n".to_string()), "the second script sees a fresh phone");
    assert_eq!(run(&["--keep-state"]), (Some(0), "false\n".to_string()), "or the first one's world");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn retries_and_failure_screenshots_reach_the_junit_report() {
    let dir = std::env::temp_dir().join(format!("codeact-retries-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::create_dir_all(&dir);
    // Fails while Wi-Fi is on (and turns it off): passes on its second attempt when the
    // phone is kept between attempts.
    let flaky = dir.join("flaky.rhai");
    std::fs::write(
        &flaky,
        "start_app(\"com.android.settings\");\nlet on = find(#{id: \"wifi_switch\"}).checked;\ntap(#{id: \"wifi_switch\"});\nif on { throw \"Wi-Fi was on\"; }\n",
    )
    .expect("write");
    let broken = dir.join("broken.rhai");
    std::fs::write(&broken, "start_app(\"com.android.settings\");\nassert_visible(\"Nothing like this\");\n")
        .expect("write");
    let report = dir.join("report.xml");
    let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "--device", "sim", "--keep-state", "--retries", "1", "--junit"])
        .arg(&report)
        .arg(&flaky)
        .arg(&broken)
        .output()
        .expect("run codeact exec");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "broken still fails: {err}");
    assert!(err.contains("PASS (attempt 2)"), "{err}");
    let xml = std::fs::read_to_string(&report).expect("report");
    assert!(xml.contains("<property name=\"attempts\" value=\"2\"/>"), "{xml}");
    let shot = dir.join("broken-attempt2-failure.png");
    assert!(shot.is_file(), "the failure screen is saved: {xml}");
    assert!(xml.contains(&format!("[[ATTACHMENT|{}]]", shot.display())), "{xml}");
    assert!(xml.contains("ms assert_visible(&quot;Nothing like this&quot;)"), "the steps are in the report: {xml}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn scripts_import_helpers_from_their_own_folder_only() {
    let dir = std::env::temp_dir().join(format!("codeact-subflows-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("lib")).expect("dirs");
    std::fs::write(
        dir.join("helpers.rhai"),
        "import \"lib/steps\" as s;\nprint(\"helpers loaded\");\nfn open_settings() { start_app(\"com.android.settings\"); }\nfn twice(x) { s::add(x, x) }\n",
    )
    .expect("write");
    std::fs::write(dir.join("lib/steps.rhai"), "fn add(a, b) { a + b }\n").expect("write");
    std::fs::write(
        dir.join("main.rhai"),
        "import \"helpers\" as h;\nh::open_settings();\nprint(h::twice(21));\nprint(phone_state.app);\n",
    )
    .expect("write");
    std::fs::write(dir.join("escape.rhai"), "import \"../x\" as x;\n").expect("write");
    std::fs::write(dir.join("loud.rhai"), "tap(1, 1);\n").expect("write");
    std::fs::write(dir.join("uses_loud.rhai"), "import \"loud\" as l;\n").expect("write");
    let run = |script: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
            .args(["exec", "--device", "sim"])
            .arg(dir.join(script))
            .output()
            .expect("run codeact exec");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, err) = run("main.rhai");
    assert_eq!((code, out.as_str()), (Some(0), "42\ncom.android.settings\n"), "{err}");
    let (code, _, err) = run("escape.rhai");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("only files inside"), "{err}");
    let (code, _, err) = run("uses_loud.rhai");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("in module \"loud\"") && err.contains("top level cannot call tools"), "{err}");
    // The REPL loads a file, imports and all.
    let shown =
        repl_output(&format!(":load {}\nimport \"helpers\" as h; h::twice(4)\n", dir.join("main.rhai").display()));
    assert!(shown.contains("42\ncom.android.settings\n") && shown.contains("\n8\n"), "{shown}");
    // Each print and each action once: echoed as it happens, not again at the end.
    assert_eq!(shown.matches("42\n").count(), 1, "{shown}");
    assert_eq!(shown.matches("start_app(").count(), 1, "{shown}");
    let _ = std::fs::remove_dir_all(&dir);
    // An LLM snippet (or any session without a script) cannot import.
    let mut sb = session();
    let r = sb.eval("import \"helpers\" as h;");
    assert!(r.error.is_some_and(|e| e.message.to_lowercase().contains("module")));
}

#[test]
fn a_script_that_does_not_parse_is_not_retried() {
    let dir = std::env::temp_dir().join(format!("codeact-noretry-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let script = dir.join("broken.rhai");
    std::fs::write(&script, "let x = ;\n").expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "--device", "sim", "--retries", "3"])
        .arg(&script)
        .output()
        .expect("run codeact exec");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("syntax error") && !err.contains("attempt 2"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn exec_can_refuse_a_completion_that_never_looked() {
    let blind = "start_app(\"com.android.settings\");\ntap(#{id: \"wifi_switch\"});\ncomplete(true, \"off\");\n";
    let (exit, _, err) = exec_sim("blind-default", blind);
    assert_eq!(exit, Some(0), "off by default for scripts: {err}");
    let (exit, _, err) = exec_sim_with("blind", blind, &["--verify-completion", "on"]);
    assert_eq!(exit, Some(1), "{err}");
    assert!(err.contains("complete(true) came right after acting"), "{err}");
    let looked = blind.replace("complete(", "wait_for(#{id: \"wifi_switch\", checked: false});\ncomplete(");
    let (exit, _, err) = exec_sim_with("looked", &looked, &["--verify-completion", "on"]);
    assert_eq!(exit, Some(0), "{err}");
    // A script that acts and ends without completing, with nothing checking: the same.
    let silent = "start_app(\"com.android.settings\");\ntap(#{id: \"wifi_switch\"});\n";
    let (exit, _, err) = exec_sim_with("silent", silent, &["--verify-completion", "on"]);
    assert_eq!(exit, Some(1), "{err}");
    assert!(err.contains("ended with nothing checking what its last actions did"), "{err}");
    let checked = format!("{silent}assert_visible(#{{id: \"wifi_switch\", checked: false}});\n");
    let (exit, _, err) = exec_sim_with("checked", &checked, &["--verify-completion", "on"]);
    assert_eq!(exit, Some(0), "{err}");
}
