//! The iOS door's own types: [`Door`] (the phone, its session, its token), what every
//! route answers ([`Reply`]) and the WDA errors it may carry. Not the routing nor the
//! envelope a reply travels in (`mod.rs`), nor the routes themselves.

use std::sync::{Arc, Mutex};

use axum::http::StatusCode;
use serde_json::Value;

use crate::device::SimDevice;

/// The door's state: the phone, and the active session.
#[derive(Clone)]
pub(crate) struct Door {
    pub(super) device: Arc<SimDevice>,
    pub(super) session: Arc<Mutex<Option<String>>>,
    /// The first path segment every request must carry: the door is a server on
    /// the machine, and only who was given its URL may drive the phone.
    pub(super) token: Arc<str>,
}

/// A WDA error: its W3C code (which sets the status) and message.
pub(super) struct WdaError {
    pub(super) status: StatusCode,
    pub(super) code: &'static str,
    pub(super) message: String,
}

pub(super) fn error(status: StatusCode, code: &'static str, message: impl Into<String>) -> WdaError {
    WdaError { status, code, message: message.into() }
}

pub(super) fn invalid(message: impl Into<String>) -> WdaError {
    error(StatusCode::BAD_REQUEST, "invalid argument", message)
}

pub(super) type Reply = Result<Value, WdaError>;
