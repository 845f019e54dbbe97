//! What every route of the UiAutomator2 server answers: a [`Reply`], the value or a
//! W3C error ([`Uia2Error`]), and the helpers that build the errors. Not the
//! envelope the value travels in, nor the routing (`mod.rs`).

use axum::http::StatusCode;
use serde_json::Value;

/// A W3C error: the status it sets, its code and its message.
pub(super) struct Uia2Error {
    pub(super) status: StatusCode,
    pub(super) code: &'static str,
    pub(super) message: String,
}

pub(super) fn error(status: StatusCode, code: &'static str, message: impl Into<String>) -> Uia2Error {
    Uia2Error { status, code, message: message.into() }
}

pub(super) fn invalid(message: impl Into<String>) -> Uia2Error {
    error(StatusCode::BAD_REQUEST, "invalid argument", message)
}

pub(super) fn unsupported(message: impl Into<String>) -> Uia2Error {
    error(StatusCode::INTERNAL_SERVER_ERROR, "unsupported operation", message)
}

pub(super) type Reply = Result<Value, Uia2Error>;

/// An error and its causes as one line (what a locator's error says to a client).
pub(super) fn whole(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        text.push_str(&format!(": {e}"));
        cause = e.source();
    }
    text
}
