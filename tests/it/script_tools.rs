//! Tools written in Rhai (`tools_from` in codeact.toml or a persona): the file's
//! documented public functions are listed with their docs by `codeact tools`, the
//! persona's prompt and MCP, a script calls them (their actions recorded, the phone's
//! state changed), a script cannot redefine them, a private helper stays hidden, and
//! a file that loops at its top level, names a built-in or lacks a doc is an error
//! that names the file and the fix.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common;
use crate::mcp::RawStdio;

const TOOLS: &str = "/// Turns Wi-Fi off in Settings and checks that it is off.\n\
fn wifi_off() {\n    start_app(\"com.android.settings\");\n    let sw = find(#{id: \"wifi_switch\"});\n\
    if sw.checked { tap(#{id: \"wifi_switch\"}); }\n    assert_visible(#{id: \"wifi_switch\", checked: false});\n\
    said(\"off\")\n}\n\n\
/// Adds a note titled `title` with `body` in Notes.\n\
fn add_note(title, body) {\n    start_app(\"com.example.notes\");\n    tap(#{desc: \"New note\"});\n    input_text(title);\n\
    tap(#{id: \"note_body\"});\n    input_text(body);\n    tap(\"Save\");\n    assert_visible(title);\n}\n\n\
private fn said(x) { `Wi-Fi ${x}` }\n";

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("codeact-rhai-tools-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("tools")).expect("tools folder");
    std::fs::create_dir_all(dir.join("personas/lib")).expect("personas folder");
    std::fs::write(dir.join("tools/phone.rhai"), TOOLS).expect("tools file");
    std::fs::write(dir.join("codeact.toml"), "tools_from = [\"tools/phone.rhai\"]\n").expect("codeact.toml");
    dir
}

fn codeact_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_codeact")).args(args).current_dir(dir).output().expect("run codeact")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn rhai_tools_are_listed_called_and_protected() {
    let sim = common::SimProcess::start(&[]);
    let dir = folder("use");
    let listed = text(&codeact_in(&dir, &["tools"]));
    assert!(listed.contains("- wifi_off(): Turns Wi-Fi off in Settings and checks that it is off.\n"), "{listed}");
    assert!(listed.contains("- add_note(title, body): Adds a note"), "{listed}");
    assert!(!listed.contains("said("), "a private helper is no tool: {listed}");
    let json = text(&codeact_in(&dir, &["tools", "--json"]));
    assert!(json.contains("\"signature\":\"add_note(title, body)\""), "{json}");

    std::fs::write(dir.join("use.rhai"), "let r = wifi_off();\nprint(r);\nadd_note(\"Trip\", \"pack the tent\");\n")
        .expect("script");
    let ran = codeact_in(&dir, &["exec", "use.rhai", "--device", &sim.addr, "--trajectory", "traj"]);
    assert!(ran.status.success(), "{}", text(&ran));
    assert!(text(&ran).contains("Wi-Fi off"), "{}", text(&ran));
    let state = common::sim_state(&sim.addr);
    assert_eq!(state["settings"]["wifi"], false, "{state}");
    assert!(state.to_string().contains("pack the tent"), "the note is not in the phone: {state}");
    // The built-in calls a Rhai tool made are the run's actions.
    let events = std::fs::read_to_string(dir.join("traj/events.jsonl")).expect("events");
    assert!(events.contains("\"tool\":\"input_text\"") && events.contains("\"tool\":\"start_app\""), "{events}");

    for (script, says) in [
        ("fn wifi_off() { 1 }\n", "would replace the tool wifi_off()"),
        ("wifi_off(1);\n", "wifi_off() cannot take (integer); use wifi_off()"),
        ("said(\"x\");\n", "Function not found: said"),
    ] {
        std::fs::write(dir.join("bad.rhai"), script).expect("script");
        let out = codeact_in(&dir, &["exec", "bad.rhai", "--device", "sim"]);
        assert_eq!(out.status.code(), Some(2), "{script}: {}", text(&out));
        assert!(text(&out).contains(says), "{script}: {}", text(&out));
    }

    // MCP: in run_script's typed API, and as tools of their own with --expose tools.
    let mut raw = RawStdio::start(&dir, &["--device", &sim.addr, "--expose", "both"], &[]);
    raw.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#);
    let list = raw.until_answer(2).join("\n");
    assert!(list.contains("- add_note(title, body): Adds a note"), "{list}");
    assert!(list.contains("\"name\":\"add_note\"") && list.contains("(written in Rhai)"), "{list}");
    raw.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add_note","arguments":{"title":"Gym","body":"monday"}}}"#);
    let called = raw.until_answer(3).join("\n");
    assert!(called.contains("\"isError\":false") && called.contains("tap(\\\"Save\\\") ok"), "{called}");
    drop(raw);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_persona_brings_its_own_rhai_tools_and_bad_files_are_named() {
    let dir = folder("persona");
    std::fs::write(dir.join("codeact.toml"), "").expect("no file tools");
    std::fs::write(
        dir.join("personas/lib/notes.rhai"),
        "/// Opens Notes.\nfn open_notes() { start_app(\"com.example.notes\") }\n",
    )
    .expect("persona tools");
    let persona = "name = \"notes\"\ndescription = \"notes only\"\ntools = [\"start_app\", \"tap\", \"assert_visible\", \"complete\"]\n\
                   tools_from = [\"lib/notes.rhai\"]\nprompt = \"You take notes.\\n{tool_descriptions}\"\n";
    std::fs::write(dir.join("personas/notes.toml"), persona).expect("persona");
    let listed = text(&codeact_in(&dir, &["tools", "--persona", "personas/notes.toml"]));
    assert!(listed.contains("- open_notes(): Opens Notes.") && !listed.contains("swipe("), "{listed}");
    let prompt = text(&codeact_in(&dir, &["personas", "--prompt", "personas/notes.toml"]));
    assert!(prompt.contains("- open_notes(): Opens Notes."), "{prompt}");
    std::fs::write(dir.join("go.rhai"), "open_notes();\nassert_visible(\"Notes\");\n").expect("script");
    let ran = codeact_in(&dir, &["exec", "go.rhai", "--device", "sim", "--persona", "personas/notes.toml"]);
    assert!(ran.status.success(), "{}", text(&ran));

    for (tools, says) in [
        ("/// Spins.\nfn spin() { 1 }\nlet x = 0;\nloop { x += 1; }\n", "exceeded 5000000 operations"),
        ("/// Taps.\nfn tap(x) { x }\n", "would replace the built-in tool tap()"),
        ("fn helper() { 1 }\n", "has no /// doc comment"),
        ("/// Reads.\nfn peek() { 1 }\nlet s = ui_state;\n", "a module's top level cannot read it"),
    ] {
        std::fs::write(dir.join("personas/lib/notes.rhai"), tools).expect("tools");
        let out = codeact_in(&dir, &["exec", "go.rhai", "--device", "sim", "--persona", "personas/notes.toml"]);
        assert_eq!(out.status.code(), Some(2), "{tools}: {}", text(&out));
        assert!(text(&out).contains(says) && text(&out).contains("notes.rhai"), "{tools}: {}", text(&out));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
