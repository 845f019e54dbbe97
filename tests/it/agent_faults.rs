//! `codeact run` when things go wrong under it: a lost device, a dropped connection,
//! a step that kills the engine, Ctrl-C and SIGTERM; each ends or recovers clearly
//! with its run folder complete.

use std::process::Command;

use super::agent_run::*;
use crate::common;
use common::llm::{ScriptedLlm, last_user_text, reply};
use std::time::Duration;

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
