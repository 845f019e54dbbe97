//! `codeact exec` runs the shipped scripts against a virtual device, and the world's
//! state (read through `simctl state`, as any client would) proves what they did.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use codeact::config::{FileConfig, Flags};
use codeact::device::{DeviceSpec, open};
use codeact::session::Session;

use crate::common;

/// A session with every tool and the default limits, on a virtual device of its own.
fn session() -> Session {
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

use common::sim_state as state;

/// Opens Messages (allowing its notifications if it asks) and starts a new chat:
/// the recipient field then has focus.
const NEW_CHAT: &str = r#"start_app("com.google.android.apps.messaging");
if find(#{id: "permission_allow_button"}) != () { tap(#{id: "permission_allow_button"}); }
tap(#{desc: "Start chat"});
"#;

/// `codeact repl` on its own virtual phone, its stdin and stdout piped.
fn repl_on_sim() -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["repl", "--device", "sim", "--no-history"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start the repl")
}

/// What the REPL prints for `input` typed into it, to its end.
fn repl_output(input: &str) -> String {
    use std::io::Write;
    let mut repl = repl_on_sim();
    if let Some(mut stdin) = repl.stdin.take() {
        let _ = stdin.write_all(input.as_bytes());
    }
    let out = repl.wait_with_output().expect("repl output");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

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

/// The index belongs to the screen it was read from, whatever ran in between: the
/// refusal says which screen that was, which is in front now, and what to do.
#[test]
fn an_index_read_before_opening_an_app_is_refused_with_both_screens_named() {
    let (code, _, err) = exec_sim(
        "stale-after-open",
        "home();\nrefresh();\nlet s = ui_state;\nopen_app(\"Settings\");\ntap_by_index(7);\n",
    );
    assert_eq!(code, Some(2), "a script's mistake, not the screen's: {err}");
    assert!(err.contains("ui_state[7]") && err.contains("is no longer at that index"), "{err}");
    assert!(err.contains("read on com.android.launcher3/") && err.contains("now com.android.settings/"), "{err}");
    assert!(err.contains("call refresh() and read ui_state again, or name the element: #{"), "{err}");
}

#[test]
fn a_stale_index_is_refused_not_tapped() {
    let mut sb = session();
    // The index of the Settings icon on the home screen, then the screen changes.
    let r = sb.eval(
        "let i = ui_state.filter(|e| e.text == \"Settings\")[0].index;\n\
         start_app(\"com.android.contacts\");\n\
         tap_by_index(i);",
    );
    let err = r.error.expect("refused");
    assert!(err.message.contains("no longer at that index"), "{}", err.message);
    let stale = codeact::sandbox::FailureKind::Stale;
    assert_eq!(err.kind, codeact::sandbox::ErrorKind::Tool { tool: "tap_by_index".into(), failure: stale });
    assert_eq!(err.line, Some(3));
    assert_eq!(r.actions.len(), 2, "start_app and the refused tap are both recorded");
    // After refresh() indices are fresh again.
    let r = sb.eval("refresh(); let c = ui_state.filter(|e| e.text == \"Contacts\"); print(c.len());");
    assert!(r.error.is_none(), "{:?}", r.error);
    // Setting the clipboard shows nothing on screen: the indices stay good.
    let r = sb.eval(
        "home(); refresh(); let i = ui_state.filter(|e| e.text == \"Settings\")[0].index;\n\
         set_clipboard(\"hello\");\ntap_by_index(i);",
    );
    assert!(r.error.is_none(), "{:?}", r.error);
}

#[test]
fn registered_tools_are_the_catalog_and_the_readme_table() {
    // What the engine registered, name by name and arity by arity, is what the
    // catalog's signatures document.
    let sb = session();
    let mut registered: Vec<(String, usize)> = sb.registered().iter().map(|(n, a)| (n.to_string(), *a)).collect();
    let mut documented: Vec<(String, usize)> =
        codeact::tools::CATALOG.iter().flat_map(|t| t.arities().map(|a| (t.name.to_string(), a))).collect();
    registered.sort();
    documented.sort();
    assert_eq!(registered, documented, "registrations and signatures disagree");
    let names: std::collections::BTreeSet<&str> = codeact::tools::CATALOG.iter().map(|t| t.name).collect();
    assert_eq!(sb.tool_names(), codeact::tools::names(), "every tool, once, in catalog order");
    assert_eq!(sb.tool_names().len(), names.len());
    let generated = codeact::tools::markdown_table(&|_| true);
    for (doc, text) in [
        ("README.md", include_str!("../../README.md")),
        ("docs/ARCHITECTURE.md", include_str!("../../docs/ARCHITECTURE.md")),
    ] {
        assert!(
            text.contains(&generated),
            "{doc}'s tool table is stale: paste the output of `codeact tools --markdown`"
        );
    }
}

/// The completion gate's README names the checks a snippet may end with; every
/// built-in persona that acts has them all (a model that follows the README must not
/// meet "Function not found"), and the default persona has what a model needs besides.
#[test]
fn every_acting_persona_has_the_checks_the_readme_names() {
    let readme = include_str!("../../README.md").split_whitespace().collect::<Vec<_>>().join(" ");
    let start = readme.find("A snippet that checked its outcome after its last action (").expect("the gate's sentence");
    let end = start + readme[start..].find("passes at once").expect("the end of the gate's sentence");
    let tools = codeact::tools::names();
    let named: Vec<&str> = readme[start..end]
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|word| word.trim_end_matches("()"))
        .filter(|word| tools.contains(word))
        .collect();
    assert!(named.len() >= 4, "the README names the checks: {named:?}");
    let mut acting = 0;
    for persona in codeact::persona::Persona::built_in() {
        if !["tap", "tap_by_index"].iter().any(|t| persona.allows(t)) {
            continue;
        }
        acting += 1;
        let missing: Vec<&&str> = named.iter().filter(|t| !persona.allows(t)).collect();
        assert!(missing.is_empty(), "persona {} lacks {missing:?}, which the README's gate names", persona.name);
    }
    assert!(acting >= 3, "default, ui_expert and big_agent act");
    let default = codeact::persona::Persona::load("default").expect("the default persona");
    for needed in ["wait", "back", "set_text", "long_press"] {
        assert!(default.allows(needed), "the default persona lacks {needed}");
    }
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

/// A script's intent wins over the watchers: with them on (the default), a script
/// that waits for the permission dialog and taps "Don't allow" gets "Don't allow"
/// (the permission watcher would allow it); a dialog in the way of a script's action
/// is still answered for it.
#[test]
fn a_script_that_answers_a_dialog_itself_gets_its_own_answer() {
    let state = |out: &str| out.lines().last().unwrap_or_default().to_string();
    let deny = "start_app(\"com.google.android.apps.messaging\");\nwait_for(\"Don't allow\");\ntap(\"Don't allow\");\n\
                print(parse_json(shell(\"simctl state\").output).values[\"perm.messaging_notifications\"]);\n";
    let (code, out, err) = exec_sim("deny-myself", deny);
    assert_eq!((code, state(&out).as_str()), (Some(0), "false"), "{err}");
    assert!(!err.contains("watcher(\"permission\")"), "the watcher left the dialog to the script: {err}");
    // The same dialog in the way of something else: answered for the script.
    let past = "start_app(\"com.google.android.apps.messaging\");\ntap(\"Alice Johnson\");\n\
                print(parse_json(shell(\"simctl state\").output).values[\"perm.messaging_notifications\"]);\n";
    let (code, out, err) = exec_sim("dialog-in-the-way", past);
    assert_eq!((code, state(&out).as_str()), (Some(0), "true"), "{err}");
    assert!(err.contains("watcher(\"permission\") -> ok; tapped \"Allow\""), "one line says what it did: {err}");
    // An index read before a dialog came up: the dialog is answered, then the very
    // element the index named is tapped.
    let under = "start_app(\"com.android.settings\");\nrefresh();\n\
                 let i = ui_state.filter(|e| e.id == \"wifi_switch\")[0].index;\n\
                 shell(\"simctl fault dialog anr\");\ntap(#{id: \"bluetooth_switch\"});\ntap_by_index(i);\n\
                 print(parse_json(shell(\"simctl state\").output).settings.wifi);\n";
    let (code, out, err) = exec_sim("index-under-dialog", under);
    assert_eq!((code, state(&out).as_str()), (Some(0), "false"), "{err}");
    assert!(err.contains("watcher(\"anr\") -> ok; tapped \"Wait\""), "{err}");
}

#[test]
fn a_persona_hides_the_tools_it_does_not_allow() {
    let sim = common::SimProcess::start(&[]);
    let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "scripts/turn_off_wifi.rhai", "--device", &sim.addr, "--persona", "app_starter"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run codeact exec");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("Function not found: refresh"), "{stderr}");
    assert!(
        stderr.contains("the functions this session has: start_app, open_app, list_packages, complete"),
        "the error names the tools that exist: {stderr}"
    );
    assert_eq!(state(&sim.addr)["settings"]["wifi"], true, "nothing was toggled");
}

#[test]
fn selectors_find_wait_and_assert_on_the_live_screen() {
    let mut sb = session();
    let r = sb.eval(
        r#"start_app("com.android.settings");
           let bt = find(#{class: "Switch", below: "Wi-Fi"});
           print(bt.id);
           print(find_all(#{class: "Switch"}).len());
           print(type_of(find("No such row")));
           tap(#{id: "bluetooth_switch"});
           assert_visible(#{id: "bluetooth_switch", checked: true});
           let about = scroll_until_visible("About phone");
           tap("About phone");
           wait_for("Android version", 2000);
           assert_not_visible("Bluetooth");"#,
    );
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.output, "bluetooth_switch\n3\n()\n");
    let r = sb.eval(r#"wait_for("Never there", 300);"#);
    let err = r.error.expect("a timeout");
    assert!(err.message.contains("did not appear within 300 ms"), "{}", err.message);
    let r = sb.eval(r#"tap("Nothing like this");"#);
    let err = r.error.expect("not found");
    assert!(
        err.message.contains("nothing on screen matches") && err.message.contains("nearest on screen:"),
        "{}",
        err.message
    );
    let r = sb.eval(r#"assert_visible(#{colour: "red"});"#);
    assert!(r.error.expect("bad key").message.contains("unknown selector key"));
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
fn exec_sim(name: &str, code: &str) -> (Option<i32>, String, String) {
    exec_sim_with(name, code, &[])
}

/// [`exec_sim`] with more flags for `codeact exec`.
fn exec_sim_with(name: &str, code: &str, flags: &[&str]) -> (Option<i32>, String, String) {
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
fn selectors_are_literal_unless_asked_and_their_errors_say_what_to_write() {
    // A string: exact, else contains (any case); a literal with regex characters.
    let (code, out, err) = exec_sim(
        "literal",
        r#"start_app("com.android.settings");
print(find("Wi-Fi").id);
print(find("network & INTERNET").text);
print(find(#{text_starts_with: "Network &"}).text);
print(find(#{text_matches: "Wi-.i"}).text);
print(find(#{id: "com.android.settings:id/wifi_switch"}).class);
print(find(#{class: "Switch", right_of: "Bluetooth"}).id);
print(find(#{class: "Switch", nth: 1}).id);
print(find(#{text: "Wi-Fi", inside: #{clickable: true}}).text);
print(find(#{text: "34% used - 84.2 GB (free)"}));
"#,
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        "title\nNetwork & internet\nNetwork & internet\nWi-Fi\nSwitch\nbluetooth_switch\nbluetooth_switch\nWi-Fi\n\n",
        "{err}"
    );
    // Mistakes: an invalid regex, `index`, an unknown key, a near miss.
    for (name, code_line, wanted) in [
        ("bad_regex", r#"find(#{text_matches: "(Mobile"});"#, "not a valid regex"),
        ("index_key", r#"tap(#{id: "wifi_switch", index: 3});"#, "tap_by_index(3)"),
        ("unknown_key", r#"find(#{colour: "red"});"#, "unknown selector key \"colour\""),
        ("near_miss", r#"tap("Wifi network");"#, "(closest: #{text: \"Wi-Fi\"})"),
    ] {
        let (code, _, err) = exec_sim(name, &format!("start_app(\"com.android.settings\");\n{code_line}\n"));
        // A wrong selector is the script's error; a near miss is the screen not as
        // the script expected: a failure.
        let expected = if name == "near_miss" { 1 } else { 2 };
        assert_eq!(code, Some(expected), "{name}: {err}");
        assert!(err.contains(wanted), "{name}: {err}");
    }
    // Nothing matches: the few elements nearest to what was asked, a count, once.
    let (code, _, err) = exec_sim("listed", "start_app(\"com.android.settings\");\ntap(\"Wi-Fi network\");\n");
    assert_eq!(code, Some(1), "a failure, not an error: {err}");
    assert!(err.contains("Switch (id wifi_switch)") && err.contains("on screen)"), "{err}");
    assert!(!err.contains("TextView \"Battery\" (id title)"), "not the whole screen: {err}");
    assert_eq!(err.matches("nothing on screen matches").count(), 1, "said once: {err}");
    assert!(err.contains("tap(\"Wi-Fi network\") -> failed (not found)"), "{err}");
    let (code, _, err) = exec_sim("wait_timeout", "wait_for(\"Never there\", 300);\n");
    assert_eq!(code, Some(1), "a wait that times out is a failure: {err}");
    assert!(err.contains("FAIL ") && err.contains("did not appear within 300 ms"), "{err}");
}

#[test]
fn typing_is_checked_and_an_unseen_index_is_refused() {
    let cases = [
        ("unseen_index", "start_app(\"com.android.settings\");\ntap_by_index(4);\n", "ui_state was not read"),
        (
            "set_text_on_a_label",
            "start_app(\"com.android.settings\");\nset_text(\"Wi-Fi\", \"hello\");\n",
            "not a text field",
        ),
        ("typing_into_nothing", "home();\ninput_text(\"hello\");\n", "no text field has focus"),
    ];
    for (name, code, wanted) in cases {
        let (exit, _, err) = exec_sim(name, code);
        assert_eq!(exit, Some(2), "{name}: {err}");
        assert!(err.contains(wanted), "{name}: {err}");
    }
    // Wi-Fi was not toggled by the refused set_text (it starts on).
    let (exit, out, err) = exec_sim(
        "typing_works",
        &[
            r#"start_app("com.android.settings");
print(find(#{id: "wifi_switch"}).checked);
let seen = ui_state;
tap_by_index(seen.filter(|e| e.id == "wifi_switch")[0].index);
home();
"#,
            NEW_CHAT,
            r#"set_text(#{editable: true}, "张三");
input_text(" 2");
print(find(#{editable: true}).text);
"#,
        ]
        .concat(),
    );
    assert_eq!(exit, Some(0), "{err}");
    assert_eq!(out, "true\n张三 2\n", "{err}");
}

#[test]
fn errors_inside_functions_point_inside_and_name_forms_in_catalog_words() {
    let (exit, _, err) = exec_sim(
        "inner",
        "fn walk(x) {\n  let y = x + 1;\n  tap(y, \"b\");\n}\nfn outer() {\n  walk(1);\n}\nouter();\n",
    );
    assert_eq!(exit, Some(2), "{err}");
    assert!(err.contains("line 3, column 3") && err.contains("  tap(y, \"b\");"), "{err}");
    assert!(err.contains("walk() was called at line 6 in outer(), outer() was called at line 8"), "{err}");
    let (_, _, err) = exec_sim("forms", "tap(\"a\", \"b\", \"c\");\n");
    assert!(err.contains("tap() cannot take (string, string, string); use tap(x, y) or tap(sel)"), "{err}");
    let (_, _, err) = exec_sim("types", "let n = 5;\nn.text\n");
    assert!(err.contains("type 'integer'") && !err.contains("i64"), "{err}");
}

#[test]
fn a_cancel_stops_tool_waits_at_once() {
    use codeact::sandbox::ErrorKind;
    let mut sb = session();
    for code in ["wait(20000);", "wait_for(\"Never there\", 20000);", "loop { wait(50); }"] {
        let handle = sb.cancel_handle();
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            handle.cancel();
            std::time::Instant::now()
        });
        let r = sb.eval(code);
        let ended = std::time::Instant::now();
        let cancelled_at = canceller.join().expect("canceller");
        assert_eq!(r.error.map(|e| e.kind), Some(ErrorKind::Cancelled), "{code}");
        let late = ended.saturating_duration_since(cancelled_at);
        assert!(late < Duration::from_millis(500), "{code}: stopped {late:?} after the cancel");
    }
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
fn stop_app_and_hide_keyboard_act_on_the_phone() {
    let (exit, out, err) = exec_sim(
        "control",
        &[
            NEW_CHAT,
            r#"set_text(#{editable: true}, "x");
print(phone_state.keyboard_shown);
print(hide_keyboard());
refresh();
print(phone_state.keyboard_shown);
stop_app("com.google.android.apps.messaging");
refresh();
print(phone_state.app);
"#,
        ]
        .concat(),
    );
    assert_eq!(exit, Some(0), "{err}");
    assert_eq!(out, "true\ntrue\nfalse\ncom.android.launcher3\n", "{err}");
}

#[test]
fn in_scripts_ui_state_follows_the_screen_after_an_action() {
    let (exit, out, err) = exec_sim(
        "follow",
        r#"start_app("com.android.settings");
let wifi_on = || ui_state.filter(|e| e.id == "wifi_switch")[0].checked;
print(wifi_on.call());
tap(#{id: "wifi_switch"});
print(wifi_on.call());
"#,
    );
    assert_eq!(exit, Some(0), "{err}");
    assert_eq!(out, "true\nfalse\n", "{err}");
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
fn erase_scroll_and_named_screenshots() {
    let dir = std::env::temp_dir().join(format!("codeact-named-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let script = std::env::temp_dir().join(format!("codeact-named-{}.rhai", std::process::id()));
    std::fs::write(
        &script,
        [
            NEW_CHAT,
            r#"set_text(#{editable: true}, "hello");
erase(2);
print(find(#{editable: true}).text);
screenshot("typed");
home();
start_app("com.android.contacts");
let first = find(#{clickable: true, nth: 0}).text;
scroll(#{scrollable: true}, "down");
print(first != find(#{clickable: true, nth: 0}).text);
"#,
        ]
        .concat(),
    )
    .expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "--device", "sim", "--record", "none", "--trajectory"])
        .arg(&dir)
        .arg(&script)
        .output()
        .expect("run codeact exec");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hel\ntrue\n");
    let shots: Vec<String> = std::fs::read_dir(dir.join("screenshots"))
        .expect("screenshots")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(shots.len(), 1, "only the named one with --record none: {shots:?}");
    assert!(shots[0].ends_with("-typed.png"), "{shots:?}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&script);
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
fn the_virtual_phone_refuses_bad_alarms_sorts_them_and_keeps_a_denied_permission() {
    // The permission watcher is told to deny, and the script denies itself: the
    // dialog is what it targets, so it answers it.
    let (exit, out, err) = exec_sim_with(
        "fidelity",
        r#"open_app("Clock");
fn add(h, m) {
  tap(#{desc: "Add alarm"});
  set_text(#{id: "hour"}, h);
  set_text(#{id: "minute"}, m);
  tap("Save");
}
add("25", "61");
print(phone_state.activity);
tap("Cancel");
add("09", "30");
add("07", "05");
let w = parse_json(shell("simctl state").output);
print(w.alarms.map(|a| `${a.hour}:${a.minute}`));
home();
start_app("com.android.settings");
tap(#{id: "airplane_switch"});
let w = parse_json(shell("simctl state").output);
print([w.settings.wifi, w.settings.bluetooth, w.settings.airplane_mode]);
start_app("com.google.android.apps.messaging");
tap("Don’t allow");
let w = parse_json(shell("simctl state").output);
print(w.values["perm.messaging_notifications"]);
home();
start_app("com.google.android.apps.messaging");
print(find("Don’t allow") == ());
"#,
        &["--watchers", "permission=deny"],
    );
    assert_eq!(exit, Some(0), "{err}");
    // The script answers the dialog itself: its intent wins over the watcher's.
    assert!(err.contains("tap(\"Don’t allow\") -> ok") && !err.contains("watcher(\"permission\")"), "{err}");
    assert_eq!(
        out,
        "com.android.deskclock.AlarmEditActivity\n[\"7:0\", \"7:5\", \"8:30\", \"9:30\"]\n[false, false, true]\nfalse\ntrue\n",
        "{err}"
    );
}

#[test]
fn clear_app_data_and_a_clean_start_forget_what_the_app_kept() {
    let (exit, out, err) = exec_sim(
        "clear",
        r#"let notes = || parse_json(shell("simctl state").output).notes.len();
print(notes.call() > 0);
clear_app_data("com.example.notes");
print(notes.call());
start_app("com.google.android.apps.messaging");
tap("Allow");
start_app("com.google.android.apps.messaging", #{clear: true});
print(find("Allow") != ());
"#,
    );
    assert_eq!(exit, Some(0), "{err}");
    assert_eq!(out, "true\n0\ntrue\n", "{err}");
    let (exit, _, err) = exec_sim("bad_option", "start_app(\"com.android.settings\", #{colour: 1});\n");
    assert_eq!(exit, Some(2));
    assert!(err.contains("unknown option \"colour\""), "{err}");
}

#[test]
fn the_repl_echoes_prints_and_actions_in_the_order_they_happen() {
    let shown = repl_output("for i in 0..2 { print(i); remember(\"x\"); }\nfor i in 0..60 { remember(\"y\"); }\n");
    assert!(
        shown.contains("0\n  · remember(\"x\") ok") && shown.contains("1\n  · remember(\"x\") ok"),
        "interleaved: {shown}"
    );
    assert_eq!(shown.matches("remember(\"y\") ok").count(), 50, "a loop's echo stops at 50: {shown}");
    assert!(shown.contains("  · … and 10 more calls"), "{shown}");
}

#[test]
fn open_url_opens_the_app_that_handles_the_link() {
    let (exit, out, err) = exec_sim(
        "deep_link",
        "open_url(\"sms:张三\");\nprint(phone_state.activity);\ntry { open_url(\"nothing://x\"); } catch (e) { print(e); }\n",
    );
    assert_eq!(exit, Some(0), "{err}");
    assert!(out.starts_with("com.google.android.apps.messaging.ui.conversation.ConversationActivity\n"), "{out}");
    assert!(out.contains("no app opened \"nothing://x\""), "{out}");
}

#[test]
fn tab_and_enter_move_to_the_next_field_on_the_virtual_phone() {
    let (exit, out, err) = exec_sim(
        "tab_enter",
        r#"open_app("Clock");
tap(#{desc: "Add alarm"});
tap(#{id: "hour"});
input_text("6");
press_key("tab");
input_text("45");
press_key("enter");
input_text("Gym");
press_key("enter");
print(phone_state.keyboard_shown);
tap("Save");
let alarm = parse_json(shell("simctl state").output).alarms[0];
print(`${alarm.hour}:${alarm.minute} ${alarm.label}`);
"#,
    );
    assert_eq!(exit, Some(0), "{err}");
    assert_eq!(out, "false\n6:45 Gym\n", "{err}");
}

#[test]
fn the_clipboard_round_trips_and_pastes_on_the_virtual_phone() {
    let (exit, out, err) = exec_sim(
        "clipboard",
        &[
            r#"set_clipboard("Grüße aus Berlin (1/2) 'x'");
print(get_clipboard());
"#,
            NEW_CHAT,
            r#"tap(#{editable: true});
press_key("KEYCODE_PASTE");
print(find(#{editable: true}).text);
"#,
        ]
        .concat(),
    );
    assert_eq!(exit, Some(0), "{err}");
    assert_eq!(out, "Grüße aus Berlin (1/2) 'x'\nGrüße aus Berlin (1/2) 'x'\n", "{err}");
}

#[test]
fn ctrl_c_in_the_repl_stops_a_waiting_snippet_and_the_repl_goes_on() {
    use std::io::{BufRead, Write};
    let mut repl = repl_on_sim();
    let mut stdin = repl.stdin.take().expect("stdin");
    let stdout = repl.stdout.take().expect("stdout");
    let (lines, seen) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let _ = writeln!(stdin, "print(\"waiting\"); wait(20000);");
    let _ = stdin.flush();
    let mut waiting = false;
    while let Ok(line) = seen.recv_timeout(Duration::from_secs(10)) {
        if line.contains("waiting") {
            waiting = true;
            break;
        }
    }
    assert!(waiting, "the snippet started");
    std::thread::sleep(Duration::from_millis(200));
    let pid = nix::unistd::Pid::from_raw(repl.id() as i32);
    let sent = std::time::Instant::now();
    let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT);
    let mut stopped = None;
    while let Ok(line) = seen.recv_timeout(Duration::from_secs(10)) {
        if line.contains("cancelled") {
            stopped = Some(sent.elapsed());
            break;
        }
    }
    let stopped = stopped.expect("the snippet said it was cancelled");
    assert!(stopped < Duration::from_secs(2), "took {stopped:?}");
    let _ = writeln!(stdin, "print(\"still here\")");
    drop(stdin);
    let after: Vec<String> = seen.iter().collect();
    assert!(after.iter().any(|l| l.contains("still here")), "{after:?}");
    let _ = repl.wait();
}

/// The continuation prompt needs a terminal: the REPL runs under `script` (util-linux)
/// for a pseudo-terminal, and each line is typed once the prompt asking for it shows.
#[test]
fn the_repl_prompts_for_each_further_line_of_an_unfinished_snippet() {
    use std::io::Write;
    let (mut child, mut stdin, seen) = crate::common::repl_in_terminal();
    let mut screen = String::new();
    let wait_for = |wanted: &str, screen: &mut String| {
        let until = std::time::Instant::now() + Duration::from_secs(15);
        while !screen.contains(wanted) && std::time::Instant::now() < until {
            if let Ok(chunk) = seen.recv_timeout(Duration::from_millis(200)) {
                screen.push_str(&chunk);
            }
        }
        screen.contains(wanted)
    };
    assert!(wait_for("rhai> ", &mut screen), "{screen}");
    for (line, next_prompt) in [("fn twice(x) {", "  ... "), ("  x * 2", "  ... "), ("}", "rhai> ")] {
        let before = screen.matches(next_prompt).count();
        let _ = write!(stdin, "{line}\r");
        let _ = stdin.flush();
        let until = std::time::Instant::now() + Duration::from_secs(15);
        while screen.matches(next_prompt).count() <= before && std::time::Instant::now() < until {
            if let Ok(chunk) = seen.recv_timeout(Duration::from_millis(200)) {
                screen.push_str(&chunk);
            }
        }
        assert!(screen.matches(next_prompt).count() > before, "after {line:?}: {screen}");
    }
    let _ = write!(stdin, "twice(21)\r");
    let _ = stdin.flush();
    assert!(wait_for("42", &mut screen), "{screen}");
    let _ = write!(stdin, ":quit\r");
    drop(stdin);
    let _ = child.wait();
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
fn answer_keeps_text_refuses_nothing_and_bounds_its_size() {
    let (exit, out, err) = exec_sim(
        "answer",
        r#"answer(42);
let long = "x"; long.pad(5000, "y");
try { answer(long); } catch (e) { print(e); }
try { answer(" 42 ".trim()); } catch (e) { print(e); }
"#,
    );
    assert_eq!(exit, Some(0), "{err}");
    assert!(out.contains("keep the answer short: 5000 bytes is over 4096"), "{out}");
    assert!(out.contains("got () instead of an answer"), "{out}");
}

#[test]
fn each_action_says_what_it_changed_and_a_silent_tap_is_made_once_more() {
    let (exit, _, err) = exec_sim(
        "effects",
        r#"start_app("com.android.settings");
tap(#{id: "airplane_switch"});
tap("Mobile network");
tap("Bluetooth");
"#,
    );
    assert_eq!(exit, Some(0), "{err}");
    assert!(
        err.contains("Switch (id airplane_switch) unchecked → checked; Switch (id wifi_switch) checked → unchecked"),
        "the toggle and what it flipped: {err}"
    );
    // Disabled in airplane mode: nothing happens, and a row is safe to tap again.
    assert!(err.contains("tap(\"Mobile network\") -> ok; retried once: no visible change"), "{err}");
    assert!(err.contains("tap(\"Bluetooth\") -> ok; Switch (id bluetooth_switch) unchecked → checked"), "{err}");
}

#[test]
fn blocker_watchers_clear_every_kind_of_dialog_unless_turned_off() {
    let script = |kind: &str| {
        format!(
            r#"shell("simctl fault dialog {kind}");
start_app("com.android.settings");
tap(#{{id: "wifi_switch"}});
print(parse_json(shell("simctl state").output).settings.wifi);
"#
        )
    };
    for kind in ["anr", "crash", "permission", "rate", "update"] {
        let (exit, out, err) = exec_sim(&format!("watch-{kind}"), &script(kind));
        assert_eq!((exit, out.as_str()), (Some(0), "false\n"), "{kind}: {err}");
        let watcher = if matches!(kind, "rate" | "update") { "popups" } else { kind };
        assert!(err.contains(&format!("watcher(\"{watcher}\") -> ok; tapped ")), "{kind}: {err}");
        let (exit, out, err) = exec_sim_with(&format!("nowatch-{kind}"), &script(kind), &["--watchers", "off"]);
        assert_eq!((exit, out.as_str()), (Some(1), ""), "{kind}: the dialog is all there is (a failure): {err}");
        assert!(err.contains("nothing on screen matches") && !err.contains("watcher("), "{err}");
    }
    // `ask` leaves a permission request to the script (which answers it itself here:
    // the dialog is what it targets, so no watcher has a word to say).
    let (exit, out, err) = exec_sim_with(
        "watch-ask",
        r#"shell("simctl fault dialog permission");
start_app("com.android.settings");
print(find("Don’t allow") != ());
tap("Don’t allow");
print(parse_json(shell("simctl state").output).values["permission.com.android.settings"]);
"#,
        &["--watchers", "permission=ask"],
    );
    assert_eq!((exit, out.as_str()), (Some(0), "true\ndenied\n"), "{err}");
    assert!(err.matches("watcher(\"permission\") -> ok; left").count() <= 1, "said once at most: {err}");
    let (exit, _, err) = exec_sim_with("watch-bad", "home();\n", &["--watchers", "all,nagging"]);
    assert_eq!(exit, Some(2));
    assert!(err.contains("unknown watcher \"nagging\""), "{err}");
}

#[test]
fn the_keyboard_watcher_hides_the_keyboard_over_a_target() {
    let script = r#"open_app("Clock");
tap(#{desc: "Add alarm"});
set_text(#{id: "hour"}, "7");
tap("Cancel");
print(phone_state.activity);
"#;
    let (exit, out, err) = exec_sim("keyboard", script);
    assert_eq!((exit, out.as_str()), (Some(0), "com.android.deskclock.DeskClock\n"), "{err}");
    assert!(err.contains("watcher(\"keyboard\") -> ok; hid the keyboard covering Button \"Cancel\""), "{err}");
    let (_, out, err) = exec_sim_with("no-keyboard", script, &["--watchers=-keyboard"]);
    assert_eq!(out, "com.android.deskclock.AlarmEditActivity\n", "the tap lands on the keyboard: {err}");
}

/// A script's own `back()`, meant for the keyboard, is the one that hides it: with
/// the watchers on, nothing hides the keyboard ahead of the script, so the Back
/// press does not fall through to the editor and leave it. The watcher answers
/// only a tap the keyboard covers.
#[test]
fn a_scripts_own_back_hides_the_keyboard_with_the_watchers_on() {
    let script = r#"open_app("Clock");
tap(#{desc: "Add alarm"});
set_text(#{id: "hour"}, "7");
print(phone_state.keyboard_shown);
back();
print(phone_state.activity);
print(phone_state.keyboard_shown);
"#;
    let (exit, out, err) = exec_sim("own-back", script);
    assert_eq!((exit, out.as_str()), (Some(0), "true\ncom.android.deskclock.AlarmEditActivity\nfalse\n"), "{err}");
    assert!(!err.contains("watcher(\"keyboard\")"), "{err}");
}

#[test]
fn a_selector_that_matches_nothing_scrolls_the_list_unless_told_not_to() {
    let (exit, out, err) = exec_sim(
        "fallback",
        r#"start_app("com.android.settings");
tap("About phone");
print(phone_state.activity);
back();
let r = 0;
// Back on the list, still scrolled to its end.
try { tap(#{text: "Mobile network", no_scroll: true}); } catch (e) { print(e.contains("nothing on screen matches")); }
try { tap("Teleport"); } catch (e) { print(e.contains("after scrolling the list down and back up")); }
"#,
    );
    assert_eq!((exit, out.as_str()), (Some(0), "com.android.settings.AboutPhone\ntrue\ntrue\n"), "{err}");
}

#[test]
fn a_scripts_own_watcher_runs_its_function_first_and_can_be_removed() {
    let (exit, out, err) = exec_sim(
        "script-watch",
        r#"let name = watch("Enjoying Settings?", |el| { print(`saw ${el.text}`); tap("Not now"); });
shell("simctl fault dialog rate");
start_app("com.android.settings");
tap(#{id: "wifi_switch"});
print(parse_json(shell("simctl state").output).settings.wifi);
print(unwatch(name));
print(unwatch(name));
try { watch("x", 1); } catch (e) { print(e.contains("must be a function")); }
watch("Wi-Fi", |el| throw "boom");
try { tap("Bluetooth"); } catch (e) { print(e.starts_with("watcher \"Wi-Fi\": boom")); }
"#,
    );
    assert_eq!((exit, out.as_str()), (Some(0), "saw Enjoying Settings?\nfalse\ntrue\nfalse\ntrue\ntrue\n"), "{err}");
    assert!(err.contains("watch(\"Enjoying Settings?\", \"closure\") -> ok"), "{err}");
    assert!(err.contains("watcher(\"Enjoying Settings?\") -> ok; matched TextView \"Enjoying Settings?\""), "{err}");
    assert!(!err.contains("watcher(\"popups\")"), "the script's watcher came first: {err}");
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

/// The REPL's inspector names the element at a point and under a ui_state index,
/// with the selector exports write (and it finds that element), and `:save` keeps
/// the snippets that ran without an error as a script `exec` passes.
#[test]
fn the_repl_inspects_elements_and_saves_its_lines_as_a_script() {
    let dir = std::env::temp_dir().join(format!("codeact-repl-save-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let saved = dir.join("saved.rhai");
    let input = format!(
        "start_app(\"com.android.settings\");\n:inspect 940 700\n:pick 1\n:inspect 0.5\ntap(\"No such row\");\n\
         tap(#{{id: \"wifi_switch\"}});\n:save {0}\n:save {0}\n",
        saved.display()
    );
    let out = repl_output(&input);
    // The first switch on the screen: its id is its unique selector.
    assert!(out.contains("Switch #") && out.contains("selector: #{id: \"") && out.contains("   (unique"), "{out}");
    assert!(out.contains("point:    tap("), "{out}");
    assert!(out.contains("error: give a point: :inspect 540 1200"), "{out}");
    assert!(out.contains("saved 2 snippets to"), "{out}");
    assert!(out.contains("exists: give another name, or :save!"), "a second :save replaces nothing: {out}");
    let script = std::fs::read_to_string(&saved).expect("saved script");
    assert!(script.contains("tap(#{id: \"wifi_switch\"});") && !script.contains("No such row"), "{script}");
    let run = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", saved.to_str().expect("p"), "-d", "sim"])
        .output()
        .expect("exec the saved script");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}
