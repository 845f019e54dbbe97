//! One recorder, one schema: the run folders of `codeact run`, `exec
//! --trajectory`, an MCP client's session and `explore` each hold `events.jsonl`
//! lines that all read as the typed events (none unknown), framed the same way
//! (a start event, steps, `run_end` last) with `summary.json`; and each folder's
//! `report.html` is the same report page, rendered by a real headless Chromium
//! with its header and its steps.

use std::path::{Path, PathBuf};
use std::process::Command;

use codeact::trajectory::Event;

use crate::agent_run::{OPEN_SETTINGS, run, run_dir, scratch, stderr};
use crate::common::llm::{ScriptedLlm, reply};
use crate::mcp::RawStdio;

const CODEACT: &str = env!("CARGO_BIN_EXE_codeact");

/// The folder's events, every line typed; the names of their kinds in order.
fn typed_events(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("events.jsonl")).expect("events.jsonl");
    let mut kinds = Vec::new();
    for line in text.lines() {
        let event: Event = serde_json::from_str(line).unwrap_or_else(|e| panic!("{}: {e}: {line}", dir.display()));
        assert!(!matches!(event, Event::Unknown), "an event of no known kind in {}: {line}", dir.display());
        let value: serde_json::Value = serde_json::from_str(line).expect("JSON");
        assert!(value["t_ms"].is_number(), "every event has its time: {line}");
        kinds.push(value["event"].as_str().unwrap_or_default().to_string());
    }
    kinds
}

/// The report page as Chromium renders it.
fn rendered(dir: &Path) -> String {
    let profile = tempfile::tempdir().expect("profile");
    let page = format!("file://{}", dir.join("report.html").display());
    let dom = crate::report::chromium(&["--dump-dom", &page], profile.path());
    String::from_utf8_lossy(&dom.stdout).into_owned()
}

/// What every mode's folder shares: typed events opened by `start`, closed by
/// `run_end`, the summary, and the one report page with its header, its title and
/// at least one step's card.
fn same_shape(mode: &str, dir: &Path, start: &str, title: &str) -> Vec<String> {
    let kinds = typed_events(dir);
    assert_eq!(kinds.first().map(String::as_str), Some(start), "{mode}: {kinds:?}");
    assert_eq!(kinds.last().map(String::as_str), Some("run_end"), "{mode}: {kinds:?}");
    assert!(kinds.iter().any(|k| k == "action"), "{mode}: the device actions are recorded: {kinds:?}");
    assert!(dir.join("summary.json").is_file(), "{mode}");
    let dom = rendered(dir);
    assert!(dom.contains("<title>codeact · "), "{mode}: the report page: {dom:.400}");
    assert!(dom.contains("<header><h1>") && dom.contains(title), "{mode}: its header names {title:?}: {dom:.600}");
    assert!(dom.contains("class=\"outcome ok\""), "{mode}: it ended well: {dom:.800}");
    let cards = dom.matches("id=\"step-").count() + dom.matches("id=\"action-").count();
    assert!(cards > 0, "{mode}: a card per step (or action): {dom:.800}");
    kinds
}

#[test]
fn every_modes_run_folder_has_the_same_typed_events_and_report_page() {
    let out = scratch("run-folders");
    let sim = crate::common::SimProcess::start(&[]);

    // An agent run: the reference.
    std::fs::create_dir_all(out.join("run")).expect("run folder");
    let llm = ScriptedLlm::start(vec![
        reply(OPEN_SETTINGS),
        reply("Thought: done.\n```rhai\ncomplete(true, \"open\");\n```"),
    ]);
    let ran = run(&llm, &sim.addr, &out.join("run"), &["--vision", "off", "--no-memory"], "Open Settings");
    assert_eq!(ran.status.code(), Some(0), "{}", stderr(&ran));
    let kinds = same_shape("run", &run_dir(&out.join("run")), "run_start", "Open Settings");
    assert!(kinds.iter().any(|k| k == "step_start") && kinds.iter().any(|k| k == "step_end"), "{kinds:?}");

    // A script with --trajectory.
    let script = out.join("open.rhai");
    std::fs::write(&script, "start_app(\"com.android.settings\");\nassert_visible(#{text: \"Network & internet\"});\n")
        .expect("script");
    let traj = out.join("exec");
    let exec = Command::new(CODEACT)
        .args(["exec", "--device", &sim.addr, "--trajectory"])
        .arg(&traj)
        .arg(&script)
        .output()
        .expect("codeact exec");
    assert_eq!(exec.status.code(), Some(0), "{}", stderr(&exec));
    let kinds = same_shape("exec", &traj, "start", "open.rhai");
    assert!(kinds.iter().any(|k| k == "end"), "a script's frame ends with its end: {kinds:?}");

    // An MCP client's session: two calls, then the client goes.
    let mcp_dir = out.join("mcp");
    std::fs::create_dir_all(&mcp_dir).expect("mcp folder");
    let mut raw = RawStdio::start(&mcp_dir, &["--device", &sim.addr], &[]);
    raw.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_script","arguments":{"code":"start_app(\"com.android.settings\");"}}}"#);
    raw.until_answer(2);
    raw.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_script","arguments":{"code":"tap(#{text: \"Network & internet\"});"}}}"#);
    raw.until_answer(3);
    assert!(raw.close().success(), "the server ends when its client closes stdin");
    let session: PathBuf = run_dir(&mcp_dir.join("runs"));
    let kinds = same_shape("mcp", &session, "session_start", "codeact mcp: raw");
    assert_eq!(kinds.iter().filter(|k| *k == "step_start").count(), 2, "a step per run_script call: {kinds:?}");
    assert!(kinds.iter().any(|k| k == "mcp_call"), "{kinds:?}");
    assert!(session.join("session.rhai").is_file());

    // An exploration: its actions are steps, its sections before them.
    let explored = Command::new(CODEACT)
        .args(["explore", "--app", "com.android.settings", "--budget", "8", "--device", &sim.addr, "--json", "--out"])
        .arg(out.join("explore"))
        .output()
        .expect("codeact explore");
    assert!(explored.status.code().is_some_and(|c| c <= 1), "{}", stderr(&explored));
    let summary: serde_json::Value = serde_json::from_slice(&explored.stdout).expect("the summary");
    let dir = PathBuf::from(summary["dir"].as_str().expect("its folder"));
    let kinds = same_shape("explore", &dir, "explore_start", "explore com.android.settings");
    assert!(kinds.iter().any(|k| k == "screen") && kinds.iter().any(|k| k == "note"), "{kinds:?}");
    let dom = rendered(&dir);
    let coverage = dom.find("<h2>Coverage</h2>").expect("the exploration's coverage section");
    let first_step = dom.find("id=\"step-1\"").expect("the steps");
    assert!(coverage < first_step, "the exploration's sections come before its steps");
    let _ = std::fs::remove_dir_all(&out);
}
