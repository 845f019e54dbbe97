//! `codeact run` keeps what a model or a provider sends in its place: the API key is
//! used but never written or shown (even when a provider echoes it), model text
//! cannot drive the terminal, and a reply cut off mid-body is named for what it is.

use std::path::{Path, PathBuf};
use std::process::Output;

use super::agent_run::*;
use crate::common;
use common::llm::{Canned, ScriptedLlm, reply};

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
