//! Span attributes and statuses as the spans set them: strings without secrets,
//! counts, milliseconds to 0.01, an error's type (`tool.stale`, `limit.time`), and
//! the input messages of a chat span. Not which span gets which (`mod.rs`).

use opentelemetry::KeyValue;
use opentelemetry::trace::Status;
use serde_json::json;

use codeact_engine::sandbox::{ErrorKind, RunError};
use codeact_runtime::llm::{Message, Role};

/// A string attribute, without secrets.
pub(super) fn text(key: &'static str, value: &str) -> KeyValue {
    KeyValue::new(key, codeact_base::secrets::redact(value).into_owned())
}

pub(super) fn count(key: &'static str, n: u64) -> KeyValue {
    KeyValue::new(key, i64::try_from(n).unwrap_or(i64::MAX))
}

pub(super) fn ms(key: &'static str, value: f64) -> KeyValue {
    KeyValue::new(key, (value * 100.0).round() / 100.0)
}

pub(super) fn error_status(message: &str) -> Status {
    Status::error(codeact_base::secrets::redact(message).into_owned())
}

/// `error.type` for a snippet's error: its kind, and for a tool its failure.
pub(super) fn error_type(error: &RunError) -> String {
    match &error.kind {
        ErrorKind::Tool { failure, .. } => format!("tool.{}", enum_word(failure)),
        ErrorKind::Limit { limit } => format!("limit.{}", enum_word(limit)),
        other => enum_word(other),
    }
}

/// A serialised enum's word (`stale`, `syntax`).
pub(super) fn enum_word(value: &impl serde::Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(serde_json::Value::Object(fields)) => {
            fields.get("kind").and_then(|k| k.as_str()).unwrap_or("error").to_string()
        }
        _ => "error".to_string(),
    }
}

/// The request's messages as `gen_ai.input.messages` shapes them; screenshots
/// are named, not sent.
pub(super) fn input_messages(messages: &[Message]) -> String {
    let list: Vec<serde_json::Value> = messages
        .iter()
        .map(|m| {
            let mut parts = vec![json!({"type": "text", "content": m.text})];
            if let Some(png) = &m.image_png {
                parts.push(json!({"type": "text", "content": format!("[screenshot: {} bytes of PNG, not exported]", png.len())}));
            }
            match &m.tool {
                Some(codeact_runtime::llm::ToolTurn::Calls(calls)) => parts.extend(calls.iter().map(|c| {
                    json!({"type": "tool_call", "id": c.id, "name": c.name, "arguments": c.arguments})
                })),
                Some(codeact_runtime::llm::ToolTurn::Result { call_id }) => {
                    parts = vec![json!({"type": "tool_call_response", "id": call_id, "response": m.text})];
                }
                None => {}
            }
            let role = match m.role {
                Role::System => "system",
                Role::User => "user",
                Role::Assistant => "assistant",
                Role::Tool => "tool",
            };
            json!({"role": role, "parts": parts})
        })
        .collect();
    serde_json::Value::Array(list).to_string()
}
