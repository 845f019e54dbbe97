//! A scripted OpenAI-compatible server on 127.0.0.1:0: it answers
//! `POST /v1/chat/completions` from a list of canned replies (the last one repeats),
//! records every request body and Authorization header, and can run a hook when a
//! request arrives (to drop the device mid-run, say). [`ScriptedLlm::per_model`]
//! answers each model from its own list (a planner, an actor and a reflector
//! configured with different model names). Real HTTP, so the runtime goes
//! through async-openai's real code path.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

/// One canned answer.
#[derive(Clone, Debug)]
pub enum Canned {
    /// A normal completion with this text.
    Reply(String),
    /// An error status with an OpenAI-style error body.
    Status(u16, String),
    /// A reply that calls functions: its text (may be empty) and each call's name
    /// and arguments (JSON text, as a model writes it, valid or not).
    Calls(String, Vec<(String, String)>),
}

/// A reply calling `calls` (name, arguments) with no text.
pub fn calls(calls: &[(&str, &str)]) -> Canned {
    Canned::Calls(String::new(), calls.iter().map(|(n, a)| (n.to_string(), a.to_string())).collect())
}

/// Serves `app` on 127.0.0.1 (a free port) on a thread of its own, for the test's
/// life: its address and the thread.
pub fn serve(app: Router) -> (std::net::SocketAddr, std::thread::JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a loopback server");
    listener.set_nonblocking(true).expect("nonblocking");
    let addr = listener.local_addr().expect("address");
    let thread = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener");
            let _ = axum::serve(listener, app).await;
        });
    });
    (addr, thread)
}

pub fn reply(text: &str) -> Canned {
    Canned::Reply(text.to_string())
}

type Hook = Box<dyn Fn(usize) + Send + Sync>;

struct Inner {
    replies: Vec<Canned>,
    /// Replies by the request's model, each list counted on its own.
    by_model: Vec<(String, Vec<Canned>)>,
    asked: Mutex<std::collections::HashMap<String, usize>>,
    /// Replies to requests that offer tools (`--actions json`), counted on their own.
    json_replies: Option<Vec<Canned>>,
    requests: Mutex<Vec<Value>>,
    embedded: Mutex<Vec<Value>>,
    auth: Mutex<Vec<String>>,
    hook: Option<Hook>,
}

pub struct ScriptedLlm {
    /// The base URL to pass as --base-url (ends in /v1).
    pub base_url: String,
    inner: Arc<Inner>,
    _thread: std::thread::JoinHandle<()>,
}

async fn completions(State(inner): State<Arc<Inner>>, headers: HeaderMap, body: String) -> Response {
    let request: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let n = {
        let mut requests = inner.requests.lock().unwrap_or_else(|e| e.into_inner());
        requests.push(request.clone());
        requests.len()
    };
    if let Some(auth) = headers.get("authorization").and_then(|v| v.to_str().ok()) {
        inner.auth.lock().unwrap_or_else(|e| e.into_inner()).push(auth.to_string());
    }
    if let Some(hook) = &inner.hook {
        hook(n);
    }
    let model = request["model"].as_str().unwrap_or("").to_string();
    let offers_tools = request.get("tools").is_some();
    let canned = match inner.by_model.iter().find(|(m, _)| *m == model) {
        _ if offers_tools && inner.json_replies.is_some() => {
            let replies = inner.json_replies.as_deref().unwrap_or_default();
            let mut asked = inner.asked.lock().unwrap_or_else(|e| e.into_inner());
            let k = asked.entry("#tools".into()).or_default();
            *k += 1;
            replies.get(*k - 1).or(replies.last()).cloned()
        }
        Some((_, replies)) => {
            let mut asked = inner.asked.lock().unwrap_or_else(|e| e.into_inner());
            let k = asked.entry(model).or_default();
            *k += 1;
            replies.get(*k - 1).or(replies.last()).cloned()
        }
        None if inner.json_replies.is_some() => {
            let mut asked = inner.asked.lock().unwrap_or_else(|e| e.into_inner());
            let k = asked.entry("#code".into()).or_default();
            *k += 1;
            inner.replies.get(*k - 1).or(inner.replies.last()).cloned()
        }
        None => inner.replies.get(n - 1).or(inner.replies.last()).cloned(),
    };
    match canned {
        Some(Canned::Status(code, message)) => {
            let kind = if code == 429 { "rate_limit_error" } else { "server_error" };
            let body = json!({ "error": { "message": message, "type": kind, "param": null, "code": null } });
            (StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR), axum::Json(body)).into_response()
        }
        Some(canned @ (Canned::Reply(_) | Canned::Calls(..))) => {
            let (text, calls) = match canned {
                Canned::Calls(text, calls) => (text, calls),
                Canned::Reply(text) => (text, Vec::new()),
                Canned::Status(..) => unreachable!(),
            };
            let tool_calls: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(i, (name, arguments))| {
                    json!({"id": format!("call_{n}_{i}"), "type": "function",
                        "function": {"name": name, "arguments": arguments}})
                })
                .collect();
            let written: usize = text.len() + calls.iter().map(|(n, a)| n.len() + a.len()).sum::<usize>();
            // Token counts are the server's to give: bytes / 4 stands in for a tokenizer
            // (the messages and the tools offered, as a real server counts both).
            let prompt_bytes: usize =
                request["messages"].as_array().map(|m| m.iter().map(|m| m.to_string().len()).sum()).unwrap_or(0)
                    + request.get("tools").map_or(0, |t| t.to_string().len());
            let (prompt, completion) = ((prompt_bytes / 4) as u64, (written / 4) as u64);
            let mut message = json!({ "role": "assistant", "content": text });
            let finish = if tool_calls.is_empty() { "stop" } else { "tool_calls" };
            if !tool_calls.is_empty() {
                message["tool_calls"] = Value::Array(tool_calls);
            }
            if request["stream"] == true {
                let usage = (request["stream_options"]["include_usage"] == true).then_some((prompt, completion));
                return streamed(n, &request["model"], &message, finish, usage);
            }
            axum::Json(json!({
                "id": format!("chatcmpl-{n}"),
                "object": "chat.completion",
                "created": 1_700_000_000,
                "model": request["model"],
                "choices": [{ "index": 0, "message": message, "finish_reason": finish }],
                "usage": { "prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion }
            }))
            .into_response()
        }
        None => (StatusCode::INTERNAL_SERVER_ERROR, "no canned replies").into_response(),
    }
}

/// A reply as a stream of server-sent events, the way OpenAI sends one: the role,
/// the text in pieces of a few bytes, each call's id and name then its arguments in
/// pieces, the finish reason, the usage when asked for, then `[DONE]`.
fn streamed(n: usize, model: &Value, message: &Value, finish: &str, usage: Option<(u64, u64)>) -> Response {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": format!("chatcmpl-{n}"), "object": "chat.completion.chunk", "created": 1_700_000_000,
            "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut events = vec![chunk(json!({"role": "assistant", "content": ""}), Value::Null)];
    let text = message["content"].as_str().unwrap_or("");
    let pieces: Vec<char> = text.chars().collect();
    for piece in pieces.chunks(7) {
        events.push(chunk(json!({"content": piece.iter().collect::<String>()}), Value::Null));
    }
    for (i, call) in message["tool_calls"].as_array().into_iter().flatten().enumerate() {
        let head = json!({"index": i, "id": call["id"], "type": "function",
            "function": {"name": call["function"]["name"], "arguments": ""}});
        events.push(chunk(json!({"tool_calls": [head]}), Value::Null));
        let arguments: Vec<char> = call["function"]["arguments"].as_str().unwrap_or("").chars().collect();
        for piece in arguments.chunks(5) {
            let part = json!({"index": i, "function": {"arguments": piece.iter().collect::<String>()}});
            events.push(chunk(json!({"tool_calls": [part]}), Value::Null));
        }
    }
    events.push(chunk(json!({}), json!(finish)));
    if let Some((prompt, completion)) = usage {
        events.push(json!({"id": format!("chatcmpl-{n}"), "object": "chat.completion.chunk",
            "created": 1_700_000_000, "model": model, "choices": [],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}}));
    }
    let mut body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    body.push_str("data: [DONE]\n\n");
    ([("content-type", "text/event-stream")], body).into_response()
}

/// Words an embedding stands in for: each concept is one dimension, and every
/// word of it counts there (so "wireless" is near "Wi-Fi", which BM25 cannot see).
const CONCEPTS: &[&[&str]] = &[
    &["wi-fi", "wifi", "wireless", "wlan"],
    &["off", "disable", "stop", "kill"],
    &["on", "enable", "start"],
    &["bluetooth"],
    &["note", "notes", "memo"],
    &["alarm", "wake"],
];

/// `POST /v1/embeddings`: a vector of concept counts, recorded like a chat request.
async fn embeddings(State(inner): State<Arc<Inner>>, body: String) -> Response {
    let request: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    inner.embedded.lock().unwrap_or_else(|e| e.into_inner()).push(request.clone());
    let text = request["input"].as_str().unwrap_or("").to_lowercase();
    let words: Vec<&str> = text.split(|c: char| !(c.is_alphanumeric() || c == '-')).collect();
    let vector: Vec<f32> = CONCEPTS.iter().map(|c| words.iter().filter(|w| c.contains(w)).count() as f32).collect();
    axum::Json(json!({
        "object": "list",
        "data": [{ "object": "embedding", "index": 0, "embedding": vector }],
        "model": request["model"],
        "usage": { "prompt_tokens": 1, "total_tokens": 1 }
    }))
    .into_response()
}

impl ScriptedLlm {
    /// Every embeddings request body received, in order.
    pub fn embedding_requests(&self) -> Vec<Value> {
        self.inner.embedded.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn start(replies: Vec<Canned>) -> Self {
        Self::start_with_hook(replies, None)
    }

    pub fn start_with_hook(replies: Vec<Canned>, hook: Option<Hook>) -> Self {
        Self::serve(Inner {
            replies,
            by_model: Vec::new(),
            asked: Mutex::default(),
            json_replies: None,
            requests: Mutex::new(Vec::new()),
            embedded: Mutex::new(Vec::new()),
            auth: Mutex::new(Vec::new()),
            hook,
        })
    }

    /// Answers requests that offer tools (`--actions json`) from `json` and the
    /// others from `code`, each list counted on its own.
    pub fn by_format(code: Vec<Canned>, json: Vec<Canned>) -> Self {
        Self::serve(Inner {
            replies: code,
            by_model: Vec::new(),
            asked: Mutex::default(),
            json_replies: Some(json),
            requests: Mutex::new(Vec::new()),
            embedded: Mutex::new(Vec::new()),
            auth: Mutex::new(Vec::new()),
            hook: None,
        })
    }

    /// Answers each model named here from its own list (the last reply repeats).
    pub fn per_model(lists: Vec<(&str, Vec<Canned>)>) -> Self {
        Self::serve(Inner {
            replies: Vec::new(),
            by_model: lists.into_iter().map(|(m, r)| (m.to_string(), r)).collect(),
            asked: Mutex::default(),
            json_replies: None,
            requests: Mutex::new(Vec::new()),
            embedded: Mutex::new(Vec::new()),
            auth: Mutex::new(Vec::new()),
            hook: None,
        })
    }

    /// Every request body sent for `model`, in order.
    pub fn requests_for(&self, model: &str) -> Vec<Value> {
        self.requests().into_iter().filter(|r| r["model"] == model).collect()
    }

    fn serve(inner: Inner) -> Self {
        let inner = Arc::new(inner);
        let app = Router::new()
            .route("/v1/chat/completions", post(completions))
            .route("/v1/embeddings", post(embeddings))
            .with_state(inner.clone());
        let (addr, thread) = serve(app);
        Self { base_url: format!("http://{addr}/v1"), inner, _thread: thread }
    }

    /// Every request body received, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.inner.requests.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Every Authorization header received.
    pub fn auth_headers(&self) -> Vec<String> {
        self.inner.auth.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// The text of a request's last message (its content, or the text part of it).
pub fn last_user_text(request: &Value) -> String {
    let last = request["messages"].as_array().and_then(|m| m.last()).cloned().unwrap_or(Value::Null);
    match &last["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    }
}
