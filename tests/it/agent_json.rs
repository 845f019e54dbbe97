//! `codeact run --actions json`: the model acts by OpenAI function calls instead of
//! code (the real binary, the virtual phone over ADB, the scripted server over real
//! HTTP). The request offers the persona's tools as functions; calls run in order,
//! each answered by its own `tool` message; bad calls are told, not crashed on;
//! the run directory is the code format's (events, summary, a replayable script).

use crate::common;

use std::process::Command;

use common::llm::{ScriptedLlm, calls, reply};
use serde_json::Value;

use crate::agent_run::{events, json_file, run, run_dir, scratch, state, stderr};

#[test]
fn function_calls_turn_off_wifi_and_the_run_replays_as_code() {
    let sim = common::SimProcess::start(&[]);
    let llm = ScriptedLlm::start(vec![
        calls(&[("start_app", r#"{"package": "com.android.settings"}"#)]),
        // Junk first: a function the persona lacks, then arguments that are not JSON.
        calls(&[("shell", r#"{"command": "rm -rf /sdcard"}"#)]),
        calls(&[("tap", r#"{"sel": {"id": "wifi_switch""#)]),
        // Two calls in one turn; the second ends the task.
        calls(&[
            ("tap", r#"{"sel": {"id": "wifi_switch"}}"#),
            ("complete", r#"{"success": true, "reason": "Wi-Fi is off"}"#),
        ]),
    ]);
    let out = scratch("json-wifi");
    let args = ["--persona", "big_agent", "--vision", "off", "--actions", "json", "--verify-completion", "off"];
    let result = run(&llm, &sim.addr, &out, &args, "Turn off Wi-Fi");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert_eq!(state(&sim.addr)["settings"]["wifi"], false);

    let requests = llm.requests();
    assert_eq!(requests.len(), 4, "one request per step");
    let tools: Vec<&str> = requests[0]["tools"]
        .as_array()
        .expect("tools offered")
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(tools.contains(&"complete") && tools.contains(&"start_app") && tools.contains(&"tap"), "{tools:?}");
    assert!(!tools.contains(&"shell"), "big_agent has no shell: {tools:?}");
    let system = requests[0]["messages"][0]["content"].as_str().unwrap_or("");
    assert!(system.contains("calling functions") && !system.contains("```rhai"), "{system}");

    // The last request holds every turn: each call answered by a tool message.
    let messages = requests[3]["messages"].as_array().expect("messages");
    let answered = |needle: &str| {
        messages.iter().any(|m| m["role"] == "tool" && m["content"].as_str().is_some_and(|c| c.contains(needle)))
    };
    assert!(answered("no function \"shell\""), "an unknown function is told: {messages:#?}");
    assert!(answered("not valid JSON"), "bad arguments are told: {messages:#?}");
    let ids: Vec<&str> =
        messages.iter().filter_map(|m| m["tool_calls"].as_array()).flatten().filter_map(|c| c["id"].as_str()).collect();
    let answers: Vec<&str> = messages.iter().filter_map(|m| m["tool_call_id"].as_str()).collect();
    assert_eq!(ids, answers, "every call has its answer, in order");
    assert!(last_text(messages).ends_with("Call the functions for this screen."));

    let dir = run_dir(&out);
    let summary = json_file(&dir.join("summary.json"));
    assert_eq!((summary["outcome"].as_str(), summary["action_format"].as_str()), (Some("success"), Some("json")));
    let events = events(&dir);
    let results = events.iter().filter(|e| e["event"] == "tool_result").count();
    assert_eq!(results, 5, "one tool_result per call");
    assert!(events.iter().any(|e| e["event"] == "llm_reply" && e["calls"].as_array().is_some_and(|c| c.len() == 2)));
    let script = std::fs::read_to_string(dir.join("script.rhai")).expect("script.rhai");
    assert!(script.contains("tap(#{\"id\": \"wifi_switch\"})"), "{script}");

    // The run's script replays it as code, without the model: Wi-Fi is on again first.
    let wifi_on = out.join("wifi_on.rhai");
    std::fs::write(&wifi_on, "start_app(\"com.android.settings\");\ntap(#{id: \"wifi_switch\"});\n").expect("write");
    let on = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "--device", &sim.addr])
        .arg(&wifi_on)
        .output()
        .expect("codeact exec");
    assert!(on.status.success(), "{}", String::from_utf8_lossy(&on.stderr));
    let replay = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "--device", &sim.addr])
        .arg(dir.join("script.rhai"))
        .output()
        .expect("codeact exec");
    assert!(replay.status.success(), "{}", String::from_utf8_lossy(&replay.stderr));
    assert_eq!(state(&sim.addr)["settings"]["wifi"], false);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_reply_without_a_call_is_told_and_code_runs_nothing() {
    let sim = common::SimProcess::start(&[]);
    let llm = ScriptedLlm::start(vec![
        reply("I would tap Wi-Fi.\n```rhai\nhome();\n```"),
        calls(&[("complete", r#"{"success": false, "reason": "gave up"}"#)]),
    ]);
    let out = scratch("json-no-call");
    let result = run(&llm, &sim.addr, &out, &["--vision", "off", "--actions", "json"], "Turn off Wi-Fi");
    assert_eq!(result.status.code(), Some(1), "{}", stderr(&result));
    let requests = llm.requests();
    let second = requests[1]["messages"].as_array().expect("messages");
    assert!(last_text(second).contains("called no function"), "{second:#?}");
    let dir = run_dir(&out);
    let events = events(&dir);
    assert!(!events.iter().any(|e| e["event"] == "action"), "code in a json reply is not run");
    let _ = std::fs::remove_dir_all(&out);
}

fn last_text(messages: &[Value]) -> &str {
    messages.last().and_then(|m| m["content"].as_str()).unwrap_or("")
}

/// `--stream`: replies come as server-sent events, text and calls in pieces, the
/// counts in a last chunk; the run is the same, in either format.
#[test]
fn streamed_replies_are_assembled_in_both_formats() {
    for (format, replies) in [
        ("code", vec![reply("Thought: back.\n```rhai\nback();\ncomplete(true, \"back\");\n```")]),
        ("json", vec![calls(&[("back", "{}"), ("complete", r#"{"success": true, "reason": "back"}"#)])]),
    ] {
        let sim = common::SimProcess::start(&[]);
        let llm = ScriptedLlm::start(replies);
        let out = scratch(&format!("stream-{format}"));
        let args = ["--vision", "off", "--stream", "--actions", format, "--verify-completion", "off"];
        let result = run(&llm, &sim.addr, &out, &args, "Go back");
        assert_eq!(result.status.code(), Some(0), "{format}: {}", stderr(&result));
        let request = &llm.requests()[0];
        assert_eq!(
            (request["stream"].as_bool(), request["stream_options"]["include_usage"].as_bool()),
            (Some(true), Some(true))
        );
        let dir = run_dir(&out);
        let summary = json_file(&dir.join("summary.json"));
        assert!(summary["tokens"]["prompt_tokens"].as_u64().unwrap_or(0) > 0, "{format}: the last chunk's counts");
        let events = events(&dir);
        assert!(events.iter().any(|e| e["event"] == "action" && e["tool"] == "back"), "{format}");
        let _ = std::fs::remove_dir_all(&out);
    }
}

/// A streamed reply that runs away is read only to its bound: the run goes on.
#[test]
fn a_runaway_streamed_reply_is_cut_at_its_bound() {
    let sim = common::SimProcess::start(&[]);
    let huge = format!("Thought: {}\n```rhai\ncomplete(true, \"done\");\n```", "very ".repeat(100_000));
    let llm = ScriptedLlm::start(vec![reply(&huge), reply("Thought: end.\n```rhai\ncomplete(true, \"done\");\n```")]);
    let out = scratch("stream-runaway");
    let result = run(&llm, &sim.addr, &out, &["--vision", "off", "--stream", "--max-steps", "3"], "Go home");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let dir = run_dir(&out);
    let replies: Vec<usize> = events(&dir)
        .iter()
        .filter(|e| e["event"] == "llm_reply")
        .map(|e| e["text"].as_str().unwrap_or("").len())
        .collect();
    assert!(replies[0] <= 256 * 1024 + 64, "kept bounded: {replies:?}");
    let _ = std::fs::remove_dir_all(&out);
}
