//! The studio's Rhai console: code run in the studio's session with the REPL's
//! meaning (variables persist, the screen is read fresh, every sandbox limit
//! holds, an error says its line and column), and the tool reference beside it,
//! as the session's tools describe themselves. Not recorded.

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::state::CallResult;
use super::state::Studio;

/// The longest code one run takes.
const MOST_CODE: usize = 256 * 1024;

/// `{"code"}`: run it; the result as the page shows it.
pub fn run(studio: &Studio, body: &Value) -> CallResult {
    let code = body
        .get("code")
        .and_then(Value::as_str)
        .ok_or((StatusCode::BAD_REQUEST, "give {\"code\": \"...\"}".to_string()))?;
    if code.len() > MOST_CODE {
        return Err((StatusCode::PAYLOAD_TOO_LARGE, format!("the code is longer than {} KiB", MOST_CODE / 1024)));
    }
    let (result, after) = studio.run_recorded("console", code);
    studio.live.poke();
    if let Some(after) = &after {
        studio.live.show_tree(after);
    }
    Ok(super::act::described(code, &result, None))
}

/// The tools the session offers, one line each as scripts and the model read them.
pub fn tools(studio: &Studio) -> Value {
    let text = studio.with_session(|s| s.describe_tools());
    json!({"tools": text.lines().filter(|l| !l.trim().is_empty()).collect::<Vec<_>>()})
}
