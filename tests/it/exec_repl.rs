//! `codeact exec` reports (JUnit, trajectories), settings from flags and codeact.toml,
//! the tools added for issue 4 (open_app, screenshot, per-mille coordinates, action
//! recording) and `codeact repl` driven through a pipe — all against the virtual
//! device over ADB, judged through `simctl state` or the files written.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use codeact::config::{FileConfig, Flags};
use codeact::device::{DeviceSpec, open};
use codeact::session::Session;

use common::codeact;

use common::sim_state as state;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("codeact-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn session(settings_toml: &str) -> Session {
    let file = FileConfig::parse(settings_toml, Path::new("test.toml")).expect("settings");
    let mut settings = file.resolve(&Flags::default()).expect("resolve");
    settings.worker = crate::common::worker();
    let device = open(&DeviceSpec::Sim, Duration::from_secs(10)).expect("sim");
    Session::new(device, &settings).expect("session")
}

#[test]
fn exec_writes_junit_and_a_trajectory_per_script() {
    let sim = common::SimProcess::start(&[]);
    let dir = scratch("report");
    let failing = dir.join("wifi_still_on.rhai");
    std::fs::write(&failing, "start_app(\"com.android.settings\");\nassert_visible(#{id: \"no_such_id\"});\n")
        .expect("write script");
    let junit = dir.join("report.xml");
    let runs = dir.join("runs");
    let out = codeact(&[
        "exec",
        "scripts/turn_off_wifi.rhai",
        failing.to_str().unwrap_or_default(),
        "-d",
        &sim.addr,
        "--junit",
        junit.to_str().unwrap_or_default(),
        "--trajectory",
        runs.to_str().unwrap_or_default(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "one script failed, so exec fails");
    assert!(stderr.contains("PASS scripts/turn_off_wifi.rhai") && stderr.contains("FAIL "), "{stderr}");
    assert!(stderr.contains("1 of 2 scripts did not pass"), "{stderr}");
    assert_eq!(state(&sim.addr)["settings"]["wifi"], false, "the passing script ran first");

    let xml = std::fs::read_to_string(&junit).expect("the JUnit report");
    let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
    let suite = doc.descendants().find(|n| n.has_tag_name("testsuite")).expect("a testsuite");
    assert_eq!((suite.attribute("tests"), suite.attribute("failures")), (Some("2"), Some("1")));
    assert_eq!(suite.attribute("errors"), Some("0"), "an assertion is a failure, not an error");
    let failure = doc.descendants().find(|n| n.has_tag_name("failure")).expect("a failure");
    assert!(failure.attribute("message").unwrap_or_default().contains("no_such_id"));

    let wifi = runs.join("turn_off_wifi");
    for file in ["events.jsonl", "summary.json", "script.rhai", "screenshots/0001.png", "ui/0001.xml"] {
        assert!(wifi.join(file).is_file(), "{file} is in the run directory");
    }
    let events = std::fs::read_to_string(wifi.join("events.jsonl")).expect("events");
    let parsed: Vec<serde_json::Value> =
        events.lines().map(|l| serde_json::from_str(l).expect("one JSON object per line")).collect();
    assert_eq!(parsed.first().map(|e| e["event"].clone()), Some("start".into()));
    let last_two: Vec<&serde_json::Value> = parsed.iter().rev().take(2).map(|e| &e["event"]).collect();
    assert_eq!(last_two, ["run_end", "end"], "the script's end, then the run's end with its summary");
    let tap = parsed.iter().find(|e| e["tool"] == "tap_by_index").expect("the tap is recorded");
    let png = std::fs::read(wifi.join(tap["screenshot"].as_str().unwrap_or_default())).expect("its screenshot");
    assert_eq!(common::png_size(&png), (1080, 2400));
    let ui = std::fs::read_to_string(wifi.join(tap["ui"].as_str().unwrap_or_default())).expect("its UI dump");
    let dump = roxmltree::Document::parse(common::dump_xml(&ui)).expect("the dump parses");
    let switch = dump
        .descendants()
        .find(|n| n.attribute("resource-id").is_some_and(|id| id.ends_with("wifi_switch")))
        .expect("the Wi-Fi switch is in the dump");
    assert_eq!(switch.attribute("checked"), Some("false"), "the dump after the tap shows Wi-Fi off");
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(wifi.join("summary.json")).expect("summary")).expect("JSON");
    assert_eq!(summary["outcome"], "pass");
    let failed: serde_json::Value = serde_json::from_slice(
        &std::fs::read(runs.join("wifi_still_on").join("summary.json")).expect("summary of the failing script"),
    )
    .expect("JSON");
    assert_eq!(failed["outcome"], "fail");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn settings_come_from_codeact_toml_and_flags_override_them() {
    let dir = scratch("config");
    let config = dir.join("codeact.toml");
    std::fs::write(&config, "device = \"sim\"\n[limits]\ntimeout_ms = 400\nmax_operations = 1_000_000_000\n")
        .expect("write config");
    let busy = dir.join("busy.rhai");
    std::fs::write(&busy, "loop { }\n").expect("write script");
    let (config_s, busy_s) = (config.to_str().unwrap_or_default(), busy.to_str().unwrap_or_default());
    let out = codeact(&["exec", busy_s, "--config", config_s]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("time limit of 0.4 s"), "the file's limit applies: {stderr}");
    let out = codeact(&["exec", busy_s, "--config", config_s, "--limit", "timeout_ms=200"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("time limit of 0.2 s"), "--limit wins over the file");
    let out = codeact(&["exec", busy_s, "--config", config_s, "--limit", "timeout=1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unknown limit \"timeout\"") && stderr.contains("timeout_ms"), "{stderr}");
    std::fs::write(&config, "[limits]\nmax_operations = 0\n").expect("write config");
    let out = codeact(&["exec", busy_s, "--config", config_s]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("codeact.toml") && stderr.contains("unlimited"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn open_app_knows_names_in_several_languages() {
    let mut s = session("");
    let r = s.eval("let p = open_app(\"设置\"); print(p); print(phone_state.app);");
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.output, "com.android.settings\ncom.android.settings\n");
    let r = s.eval("open_app(\"Messages\"); print(phone_state.app); open_app(\"notes\"); print(phone_state.app);");
    assert_eq!(r.output, "com.google.android.apps.messaging\ncom.example.notes\n", "{:?}", r.error);
    let r = s.eval("open_app(\"WeChat\")");
    let err = r.error.expect("not installed").message;
    assert!(err.contains("not installed") && err.contains("com.tencent.mm"), "{err}");
}

#[test]
fn screenshots_and_per_action_recording() {
    let mut s = session("[tools]\nrecord = \"all\"\n");
    let r = s.eval("let shot = screenshot(); print(`${shot.width}x${shot.height}`); tap(\"Settings\");");
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.output, "1080x2400\n");
    let [shot, tap] = &r.actions[..] else { panic!("two actions, got {}", r.actions.len()) };
    assert!(shot.capture.screenshot.as_ref().is_some_and(|p| p.starts_with(b"\x89PNG")));
    assert!(tap.capture.screenshot.is_some(), "an action keeps the screenshot after it");
    let ui = tap.capture.ui_xml.as_deref().unwrap_or_default();
    assert!(ui.contains("com.android.settings"), "and the UI dump after it");

    let mut quiet = session("[tools]\nrecord = \"none\"\n");
    let r = quiet.eval("tap(\"Settings\");");
    let capture = &r.actions[0].capture;
    assert_eq!((&capture.screenshot, &capture.ui_xml), (&None, &None), "recording off keeps nothing");
    // What the tap changed is said whatever is recorded: it costs no device call.
    assert_eq!(capture.effect.as_deref(), Some("opened com.android.settings/.Settings"));
}

#[test]
fn per_mille_coordinates_for_vision_models() {
    let mut s = session("[tools]\ncoordinate_scale = 1000\n");
    // The Settings icon is at (135, 861) on a 1080x2400 screen: 125‰, 359‰.
    let r = s.eval("tap(125, 359); print(phone_state.app);");
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.output, "com.android.settings\n");
    let r = s.eval("tap(1200, 10)");
    assert!(r.error.expect("out of range").message.contains("outside 0..1000"));
    let mut pixels = session("");
    let r = pixels.eval("tap(5000, 10)");
    assert!(r.error.expect("off screen").message.contains("off the screen (0..1079)"));
}

#[test]
fn the_repl_keeps_state_reads_multi_line_input_and_runs_meta_commands() {
    let sim = common::SimProcess::start(&[]);
    let dir = scratch("repl");
    let shot = dir.join("shot.png");
    let input = format!(
        "let n = 20;\nfn twice(x) {{\n  x * 2\n}}\ntwice(n + 1)\n:vars\n:state\nlet bad = ;\nopen_app(\"Settings\")\n\
         :screenshot {}\n:reset\n:vars\n:nope\ntwice(1)\n:quit\nprint(\"never\");\n",
        shot.display()
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["repl", "-d", &sim.addr, "--history", dir.join("history").to_str().unwrap_or_default()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the repl");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("type");
    let out = child.wait_with_output().expect("repl output");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("\n42\n"), "a function over several lines, then its value: {stdout}");
    assert!(stdout.contains("n = 20 (i64)"), ":vars: {stdout}");
    assert!(
        stdout.contains("app com.android.launcher3/") && stdout.contains("TextView #icon \"Settings\""),
        "{stdout}"
    );
    assert!(stdout.contains("syntax error") && stdout.contains("  let bad = ;\n            ^"), "a caret: {stdout}");
    assert!(stdout.contains("\"com.android.settings\""), "open_app's value: {stdout}");
    assert_eq!(common::png_size(&std::fs::read(&shot).expect(":screenshot saved")), (1080, 2400));
    assert!(stdout.contains("(no variables"), ":reset forgot n: {stdout}");
    assert!(stdout.contains("unknown command :nope"), "{stdout}");
    assert!(stdout.contains("Function not found: twice"), ":reset forgot twice too: {stdout}");
    assert!(!stdout.contains("never"), ":quit stops reading");
    let history = std::fs::read_to_string(dir.join("history")).expect("history saved");
    assert!(history.contains("let n = 20;"), "{history}");
    assert_eq!(state(&sim.addr)["foreground_package"], "com.android.settings");
    let _ = std::fs::remove_dir_all(&dir);
}
