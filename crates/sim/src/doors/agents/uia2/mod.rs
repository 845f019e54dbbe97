//! Appium's UiAutomator2 server as the virtual phone runs it: the W3C WebDriver
//! HTTP server (learned from `appium-uiautomator2-server`'s routes and what its
//! driver sends; no code copied) that `am instrument -w` of its test package starts
//! on device port 6790, reached only through the ADB transport (`adb forward` to
//! `tcp:6790`, as the driver does). Paths with or without `/wd/hub`; every reply is
//! `{"sessionId", "value"}`, errors `{"value": {"error", "message", "stacktrace"}}`
//! with the W3C status. This file: the envelope and the routing; the routes are
//! `session.rs` (status, sessions, settings), `find.rs` (locators, with
//! `uiselector.rs` and `xpath.rs`), `element.rs`, `actions.rs` (W3C actions and
//! the `appium/gestures/*` calls) and `device.rs`, answering with `reply.rs`'s types and
//! reading `screen.rs`'s page. Not the commands that start it
//! (`commands/android/agents.rs`).

mod actions;
mod device;
mod element;
mod find;
mod reply;
mod screen;
mod session;
#[cfg(test)]
mod tests;
mod uiselector;
mod xpath;

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::device::SimDevice;
use reply::{Reply, Uia2Error, error, invalid};

/// The largest request body the server reads.
const MOST_BODY: usize = 4 * 1024 * 1024;

pub(crate) fn router(device: Arc<SimDevice>) -> axum::Router {
    axum::Router::new().fallback(handle).layer(axum::extract::DefaultBodyLimit::max(MOST_BODY)).with_state(device)
}

async fn handle(State(device): State<Arc<SimDevice>>, method: Method, uri: Uri, body: Bytes) -> Response {
    let path = uri.path().to_string();
    let dev = device.clone();
    // Gestures sleep: off the async workers.
    let reply = tokio::task::spawn_blocking(move || route(&dev, &method, &path, &body)).await;
    let reply = reply.unwrap_or_else(|e| Err(error(StatusCode::INTERNAL_SERVER_ERROR, "unknown error", e.to_string())));
    let session = device.agents().uia2.session().map(|s| s.id);
    let (status, value) = match reply {
        Ok(value) => (StatusCode::OK, value),
        Err(e) => (e.status, json!({"error": e.code, "message": e.message, "stacktrace": ""})),
    };
    let body = json!({"sessionId": session, "value": value});
    (status, [("content-type", "application/json; charset=utf-8")], body.to_string()).into_response()
}

/// A JSON body, or an empty object for none.
fn body_of(body: &[u8]) -> Result<Value, Uia2Error> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(json!({}));
    }
    serde_json::from_slice(body).map_err(|e| invalid(format!("the request body is not JSON: {e}")))
}

/// One request to its route.
fn route(device: &SimDevice, method: &Method, path: &str, body: &[u8]) -> Reply {
    let path = path.strip_prefix("/wd/hub").unwrap_or(path);
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let body = body_of(body)?;
    let state = &device.agents().uia2;
    let (scoped, rest) = match parts.as_slice() {
        ["session", id, rest @ ..] if !rest.is_empty() => {
            if state.session().is_none_or(|s| s.id != *id) {
                return Err(error(
                    StatusCode::NOT_FOUND,
                    "invalid session id",
                    format!("A session is either terminated or not started (id {id})"),
                ));
            }
            (true, rest.to_vec())
        }
        _ => (false, parts.clone()),
    };
    let method = method.as_str();
    match (method, rest.as_slice()) {
        ("GET", ["status"]) if !scoped => Ok(session::status()),
        ("POST", ["session"]) if !scoped => session::create(device, &body),
        ("GET", ["sessions"]) if !scoped => Ok(session::all(device)),
        ("GET", ["session", id]) if !scoped => session::read(device, id),
        ("DELETE", ["session", id]) if !scoped => session::delete(device, id),
        _ if !scoped => Err(unknown(method, path)),
        ("GET", ["appium", "settings"]) => Ok(Value::Object(state.settings())),
        ("POST", ["appium", "settings"]) => session::set_settings(device, &body),
        ("POST", ["element" | "elements"]) => find::find(device, None, rest[0] == "elements", &body),
        ("POST", ["element", id, kind @ ("element" | "elements")]) => {
            find::find(device, Some(id), *kind == "elements", &body)
        }
        ("GET", ["element", "active"]) => element::active(device),
        ("GET", ["appium", "element", id, "first_visible"]) => find::first_visible(device, id),
        (_, ["element", id, what @ ..]) => {
            element::route(device, method, id, what, &body).unwrap_or_else(|| Err(unknown(method, path)))
        }
        ("POST", ["actions"]) => actions::perform(device, &body),
        ("DELETE", ["actions"]) => Ok(Value::Null),
        ("POST", ["appium", "gestures", name]) => actions::gesture(device, name, &body),
        _ => device::route(device, method, &rest, &body).unwrap_or_else(|| Err(unknown(method, path))),
    }
}

fn unknown(method: &str, path: &str) -> Uia2Error {
    error(
        StatusCode::NOT_FOUND,
        "unknown command",
        format!(
            "The requested resource could not be found, or a request was received using an HTTP method that is not supported by the mapped resource: {method} {path}"
        ),
    )
}
