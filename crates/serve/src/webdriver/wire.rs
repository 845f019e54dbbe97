//! What goes over the wire: W3C WebDriver's reply envelope (`{"value": ...}`), its
//! errors (`{"value": {"error", "message", "stacktrace"}}` with the status the
//! specification gives each code), a request past the door, and reading its JSON
//! body. Every
//! message that quotes a client's or a device's words clips them. Not routing
//! (`routes.rs`).

use axum::http::StatusCode;
use serde_json::{Value, json};

/// A W3C error: its code (the specification's words) and what to do about it.
#[derive(Debug, Clone)]
pub struct Failure {
    pub code: &'static str,
    pub message: String,
}

pub type Reply = Result<Value, Failure>;

/// The most characters of an error's message: whatever words of a client's or a
/// device's it quotes, the answer and its record stay small.
pub const MOST_MESSAGE: usize = 4000;

impl Failure {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        let message = message.into();
        let message = match message.chars().count() > MOST_MESSAGE {
            true => clipped(&message, MOST_MESSAGE),
            false => message,
        };
        Failure { code, message }
    }

    /// The HTTP status the specification maps the code to.
    pub fn status(&self) -> StatusCode {
        match self.code {
            "invalid argument" | "invalid selector" | "element not interactable" | "element click intercepted" => {
                StatusCode::BAD_REQUEST
            }
            "invalid session id"
            | "no such element"
            | "stale element reference"
            | "unknown command"
            | "no such window"
            | "no such alert" => StatusCode::NOT_FOUND,
            "unknown method" => StatusCode::METHOD_NOT_ALLOWED,
            "timeout" | "script timeout" => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The reply body.
    pub fn body(&self) -> Value {
        json!({"value": {"error": self.code, "message": self.message, "stacktrace": ""}})
    }
}

pub fn invalid(message: impl Into<String>) -> Failure {
    Failure::new("invalid argument", message)
}

pub fn unknown_error(message: impl Into<String>) -> Failure {
    Failure::new("unknown error", message)
}

pub fn unsupported(message: impl Into<String>) -> Failure {
    Failure::new("unsupported operation", message)
}

pub fn no_session(id: &str) -> Failure {
    Failure::new(
        "invalid session id",
        format!(
            "no session {}: it was deleted, timed out after its idle time, or never made; start a new session",
            clipped(id, 80)
        ),
    )
}

pub fn no_such_element(what: &str) -> Failure {
    Failure::new("no such element", format!("no element was found by {} on the screen", clipped(what, 200)))
}

pub fn unknown_command(method: &str, path: &str) -> Failure {
    Failure::new(
        "unknown command",
        format!(
            "codeact serves no {} {}: see `codeact serve --help` for the commands it answers",
            clipped(method, 20),
            clipped(path, 200)
        ),
    )
}

/// `text` cut at `chars` characters, on one line (a client's or device's words in a message).
pub fn clipped(text: &str, chars: usize) -> String {
    let one: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).take(chars).collect();
    if text.chars().count() > chars { format!("{one}…") } else { one }
}

/// A JSON body (an empty one is `{}`), which must be an object.
pub fn body_of(bytes: &[u8]) -> Result<Value, Failure> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(json!({}));
    }
    let value: Value =
        serde_json::from_slice(bytes).map_err(|e| invalid(format!("the request body is not JSON: {e}")))?;
    if !value.is_object() {
        return Err(invalid("the request body must be a JSON object"));
    }
    Ok(value)
}

/// A request past the door.
pub struct Request<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub body: &'a [u8],
    /// `X-Appium-Is-Sensitive: true`: the request's values are masked in every record.
    pub sensitive: bool,
    /// `X-Idempotency-Key` (Appium's clients send one with a new session): the
    /// same key answers with the same session instead of opening another.
    pub idempotency: Option<String>,
}
