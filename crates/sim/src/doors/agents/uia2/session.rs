//! The server's own routes: `/status`, `/session` (create with W3C capabilities,
//! read, delete — which ends the server's instrumentation, as the real server
//! stops itself), `/sessions` and `/appium/settings`. Not what a session drives.

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::reply::{Reply, Uia2Error, error, invalid};
use crate::device::SimDevice;

pub(super) fn status() -> Value {
    json!({"ready": true, "message": "UiAutomator2 Server is ready to accept commands"})
}

/// `POST /session`: W3C `capabilities` (`alwaysMatch` merged over the first
/// `firstMatch`), or a legacy `desiredCapabilities`.
pub(super) fn create(device: &SimDevice, body: &Value) -> Reply {
    let caps = match (body.get("capabilities"), body.get("desiredCapabilities")) {
        (Some(w3c), _) => {
            let mut merged = w3c.pointer("/firstMatch/0").and_then(Value::as_object).cloned().unwrap_or_default();
            if let Some(always) = w3c.get("alwaysMatch").and_then(Value::as_object) {
                merged.extend(always.clone());
            }
            Value::Object(merged)
        }
        (None, Some(legacy)) if legacy.is_object() => legacy.clone(),
        _ => {
            return Err(error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "session not created",
                "'capabilities' are mandatory to create a new session",
            ));
        }
    };
    let session = device.agents().uia2.start(caps.clone());
    Ok(json!({"sessionId": session.id, "capabilities": caps}))
}

pub(super) fn read(device: &SimDevice, id: &str) -> Reply {
    match device.agents().uia2.session() {
        Some(s) if s.id == id => Ok(s.capabilities),
        _ => Err(gone(id)),
    }
}

pub(super) fn all(device: &SimDevice) -> Value {
    let sessions = device.agents().uia2.session().into_iter();
    Value::Array(sessions.map(|s| json!({"id": s.id, "capabilities": s.capabilities})).collect())
}

/// `DELETE /session/:id`: the session ends, and with it the server.
pub(super) fn delete(device: &SimDevice, id: &str) -> Reply {
    if !device.agents().uia2.end(id) {
        return Err(gone(id));
    }
    device.agents().stop_uia2();
    Ok(Value::Null)
}

pub(super) fn set_settings(device: &SimDevice, body: &Value) -> Reply {
    let settings =
        body.get("settings").and_then(Value::as_object).ok_or_else(|| invalid("'settings' must be an object"))?;
    device.agents().uia2.set_settings(settings);
    Ok(Value::Null)
}

fn gone(id: &str) -> Uia2Error {
    error(
        StatusCode::NOT_FOUND,
        "invalid session id",
        format!("A session is either terminated or not started (id {id})"),
    )
}
