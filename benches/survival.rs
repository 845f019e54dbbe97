//! The replay-survival table: `codeact eval --survival` over the whole suite, the
//! healing column served by a rule-based healer on 127.0.0.1 through the OpenAI
//! chat API, so it runs anywhere without a model. Run with
//! `cargo bench --bench survival`; it prints the Markdown table of the README.
//!
//! The healer sees only what a model would see, the healing request, and answers
//! as a careful person without judgement would: a one-time dialog in front is
//! dismissed first; an id the recorded code names that the screen no longer shows
//! becomes the on-screen id made of the most of the same words. Anything else it
//! cannot heal. A real model's column: `codeact eval --survival --model M`.

use std::process::Command;

use axum::Router;
use axum::routing::post;
use serde_json::{Value, json};

/// Buttons that dismiss a one-time dialog.
const DISMISS: &[&str] = &["Got it", "OK", "Dismiss", "Close", "Not now", "Skip"];

/// The text of the newest user message.
fn last_user_text(request: &Value) -> String {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let last = messages.iter().rev().find(|m| m["role"] == "user").cloned().unwrap_or(Value::Null);
    match &last["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    }
}

/// The ids and texts on the screen the prompt shows (`3 Switch #wifi_switch "Wi-Fi" ...`).
fn screen(prompt: &str) -> (Vec<String>, Vec<String>) {
    let (mut ids, mut texts) = (Vec::new(), Vec::new());
    for line in prompt.lines() {
        if line.split_whitespace().next().is_none_or(|w| w.parse::<usize>().is_err()) {
            continue;
        }
        if let Some(id) = line.split_whitespace().find_map(|w| w.strip_prefix('#'))
            && !ids.iter().any(|i| i == id)
        {
            ids.push(id.to_string());
        }
        if let Some(start) = line.find('"')
            && let Some(len) = line[start + 1..].find('"')
        {
            texts.push(line[start + 1..start + 1 + len].to_string());
        }
    }
    (ids, texts)
}

/// The on-screen id sharing the most words with `id`, when one stands out.
fn closest_id<'a>(id: &str, on_screen: &'a [String]) -> Option<&'a String> {
    let words: Vec<&str> = id.split('_').collect();
    let fit = |other: &String| {
        let theirs: Vec<&str> = other.split('_').collect();
        let shared = words.iter().filter(|w| theirs.contains(w)).count();
        (shared, usize::MAX - theirs.len().abs_diff(words.len()))
    };
    let best = on_screen.iter().filter(|o| fit(o).0 > 0).max_by_key(|o| fit(o))?;
    let ties = on_screen.iter().filter(|o| fit(o) == fit(best)).count();
    (ties == 1).then_some(best)
}

/// The healer's reply to one request.
fn heal(request: &Value) -> String {
    let prompt = last_user_text(request);
    let Some(start) = prompt.find("Its recorded code:\n") else {
        return "Thought: only replay steps are mine to heal.\n```rhai\ncomplete(false, \"not a replay step\");\n```"
            .into();
    };
    let rest = &prompt[start + "Its recorded code:\n".len()..];
    let end = ["\nThis is the last step", "\nDo just this step"].iter().filter_map(|m| rest.find(m)).min();
    let code = rest[..end.unwrap_or(rest.len())].trim();
    let (ids, texts) = screen(&prompt);
    if let Some(button) = DISMISS.iter().find(|b| texts.iter().any(|t| t == *b)) {
        return format!("Thought: a dialog is in front; dismiss it first.\n```rhai\ntap(\"{button}\");\n```");
    }
    let mut fixed = code.to_string();
    for quote in ["\"id\": \"", "id: \""] {
        let mut from = 0;
        while let Some(at) = fixed[from..].find(quote) {
            let name_start = from + at + quote.len();
            let Some(len) = fixed[name_start..].find('"') else { break };
            let name = fixed[name_start..name_start + len].to_string();
            from = name_start + len;
            if ids.contains(&name) {
                continue;
            }
            if let Some(new) = closest_id(&name, &ids) {
                fixed.replace_range(name_start..name_start + len, new);
                from = name_start + new.len();
            }
        }
    }
    if !fixed.contains("complete(") {
        fixed.push_str("\ncomplete(true, \"step done\");");
    }
    format!("Thought: the recorded step, fitted to this screen.\n```rhai\n{fixed}\n```")
}

async fn completions(body: String) -> axum::Json<Value> {
    let request: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let text = heal(&request);
    axum::Json(json!({
        "id": "chatcmpl-healer",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": request["model"],
        "choices": [{ "index": 0, "message": { "role": "assistant", "content": text }, "finish_reason": "stop" }],
        "usage": { "prompt_tokens": body.len() / 4, "completion_tokens": text.len() / 4, "total_tokens": (body.len() + text.len()) / 4 }
    }))
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).expect("a loopback port");
    let addr = listener.local_addr().expect("the port");
    runtime.spawn(async move {
        let app = Router::new().route("/v1/chat/completions", post(completions));
        let _ = axum::serve(listener, app).await;
    });
    let out = std::env::temp_dir().join(format!("codeact-survival-{}", std::process::id()));
    let mut args: Vec<String> = vec![
        "eval".into(),
        "--survival".into(),
        "--base-url".into(),
        format!("http://{addr}/v1"),
        "--model".into(),
        "rule-healer".into(),
        "--out".into(),
        out.display().to_string(),
    ];
    // `cargo bench --bench survival -- --tasks 'settings_*'` narrows the suite;
    // `cargo test` (no --bench) runs it on two templates, as a smoke test.
    let given: Vec<String> = std::env::args().skip(1).collect();
    let smoke = !given.iter().any(|a| a == "--bench");
    if smoke && !given.iter().any(|a| a == "--tasks") {
        args.extend(["--tasks".to_string(), "settings_wifi_off,notes_create".to_string()]);
    }
    args.extend(given.into_iter().filter(|a| a != "--bench"));
    let status = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(&args)
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("CODEACT_MODEL")
        .status()
        .expect("codeact runs");
    if smoke {
        let _ = std::fs::remove_dir_all(&out);
    }
    std::process::exit(status.code().unwrap_or(1));
}
