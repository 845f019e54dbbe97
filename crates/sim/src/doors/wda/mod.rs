//! The virtual phone's iOS front door: the same world served as a WebDriverAgent (WDA) HTTP
//! server on loopback, as `appium/WebDriverAgent` 16 answers (learned from WDA's public
//! `Commands/*.m`, `Routing/*.m`; no code copied): the token check, the reply envelope and
//! routing. Not the door's types (`door`), its connections (`serve`), the routes (`session`,
//! `screen`, `gestures`, `input`, `apps`, `test_hooks`) nor the XML.

mod apps;
mod door;
mod gestures;
mod input;
mod screen;
pub(crate) mod serve;
mod session;
mod test_hooks;

use crate::page_source::xcui as source;
pub(crate) use door::Door;
use door::{Reply, WdaError, error, invalid};
use screen::element_rect;

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::device::SimDevice;

/// The router: every request goes through [`handle`].
pub(crate) fn router(device: Arc<SimDevice>) -> axum::Router {
    let token = Arc::from(device.config().wda_token.as_str());
    let door = Door { device, session: Arc::new(Mutex::new(None)), token };
    axum::Router::new().fallback(handle).with_state(door)
}

/// Checks the token and answers as WDA does. Every path starts with the phone's token
/// (`SimConfig::wda_token`): its URL is `http://127.0.0.1:PORT/TOKEN`, which WDA clients take
/// as their base URL; a request without it gets 401. Every reply is `{"value": …,
/// "sessionId": <the active session or null>}`, errors `{"value": {"error", "message",
/// "traceback"}}` with WDA's status codes (404 `unknown command`, 404 `invalid session id`,
/// 400 `invalid argument`).
async fn handle(State(door): State<Door>, method: Method, uri: Uri, body: Bytes) -> Response {
    let path = uri.path().trim_end_matches('/');
    // `/TOKEN/status`: the token is the base URL's path, as WDA clients join paths.
    let path = match path.strip_prefix('/').and_then(|p| p.strip_prefix(&*door.token)) {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => rest.to_string(),
        _ => {
            let body = json!({"value": {"error": "unauthorized", "message": "this WebDriverAgent's URL ends with its token: use the URL `codeact sim --platform ios` printed", "traceback": ""}, "sessionId": null});
            let text = serde_json::to_string_pretty(&body).unwrap_or_default();
            return (StatusCode::UNAUTHORIZED, [(header::CONTENT_TYPE, "application/json;charset=UTF-8")], text)
                .into_response();
        }
    };
    let query = uri.query().unwrap_or("").to_string();
    let door2 = door.clone();
    // World calls are quick, but gestures sleep for their duration.
    let reply = tokio::task::spawn_blocking(move || door2.route(&method, &path, &query, &body)).await;
    let reply = reply.unwrap_or_else(|e| Err(error(StatusCode::INTERNAL_SERVER_ERROR, "unknown error", e.to_string())));
    let session = door.active();
    let (status, value) = match reply {
        Ok(value) => (StatusCode::OK, value),
        Err(e) => (e.status, json!({"error": e.code, "message": e.message, "traceback": ""})),
    };
    let body = json!({"value": value, "sessionId": session});
    let text = serde_json::to_string_pretty(&body).unwrap_or_default();
    (status, [(header::CONTENT_TYPE, "application/json;charset=UTF-8")], text).into_response()
}

/// A number field of a JSON body.
fn number(body: &Value, key: &str) -> Result<f64, WdaError> {
    body.get(key)
        .and_then(Value::as_f64)
        .filter(|v| v.is_finite())
        .ok_or_else(|| invalid(format!("'{key}' is required")))
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Door {
    fn active(&self) -> Option<String> {
        lock(&self.session).clone()
    }

    fn scale(&self) -> f64 {
        f64::from(source::scale(&self.device.world().screen()))
    }

    /// A point in points as a pixel of the screen (clamped: no overflow).
    fn pixel(&self, x: f64, y: f64) -> (i32, i32) {
        let s = self.scale();
        ((x * s).round().clamp(-1e6, 1e6) as i32, (y * s).round().clamp(-1e6, 1e6) as i32)
    }

    /// One request to its route: under `/session/:id/…` and (where WDA has them) without,
    /// a trailing `/` ignored (the `facebook-wda` client sends one). Coordinates are points
    /// (pixels ÷ [`source::scale`]); the screenshot is pixels.
    fn route(&self, method: &Method, path: &str, query: &str, body: &[u8]) -> Reply {
        let body: Value = serde_json::from_slice(body).unwrap_or(Value::Object(Default::default()));
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        // `/session/:id/rest` is the session-scoped form of `/rest`.
        let (scoped, rest): (bool, Vec<&str>) = match parts.as_slice() {
            ["session", id, rest @ ..] if !rest.is_empty() => {
                if self.active().as_deref() != Some(*id) {
                    return Err(error(StatusCode::NOT_FOUND, "invalid session id", "Session does not exist"));
                }
                (true, rest.to_vec())
            }
            _ => (false, parts.clone()),
        };
        let unknown = || {
            error(
                StatusCode::NOT_FOUND,
                "unknown command",
                format!("Unhandled endpoint: {path} with parameters {body}"),
            )
        };
        match (method.as_str(), rest.as_slice()) {
            ("GET", ["status"]) if !scoped => Ok(self.status()),
            ("POST", ["session"]) if !scoped => self.new_session(&body),
            ("GET", ["session", id]) => self.session_info(id),
            ("DELETE", ["session", id]) => self.end_session(id),
            ("GET", ["source"]) => self.source(query),
            ("GET", ["window", "size"]) => Ok(self.window_size()),
            ("GET", ["wda", "screen"]) => Ok(self.screen_info()),
            ("GET", ["screenshot"]) => self.screenshot(),
            ("POST", ["wda", "tap"]) | ("POST", ["wda", "tap", _]) => self.tap(&body, 1),
            ("POST", ["wda", "doubleTap"]) => self.tap(&body, 2),
            ("POST", ["wda", "touchAndHold"]) => self.touch_and_hold(&body),
            ("POST", ["wda", "dragfromtoforduration"]) => self.drag(&body),
            ("POST", ["wda", "keys"]) => self.keys(&body),
            ("POST", ["wda", "homescreen"]) if !scoped => self.home(),
            ("POST", ["wda", "pressButton"]) => self.press_button(&body),
            ("POST", ["wda", "apps", "launch" | "activate"]) => self.launch(&body),
            ("POST", ["wda", "apps", "terminate"]) => self.terminate(&body),
            ("POST", ["wda", "apps", "state"]) => self.app_state(&body),
            ("GET", ["wda", "activeAppInfo"]) => Ok(self.active_app()),
            ("POST", ["url"]) => self.open_url(&body),
            ("POST", ["wda", "keyboard", "dismiss"]) => self.dismiss_keyboard(),
            ("POST", ["wda", "getPasteboard"]) => self.pasteboard(&body),
            ("POST", ["wda", "setPasteboard"]) => self.set_pasteboard(&body),
            ("GET", ["wda", "locked"]) => Ok(Value::Bool(false)),
            ("POST", ["wda", "unlock" | "lock"]) | ("GET", ["wda", "healthcheck"]) => Ok(Value::Null),
            ("GET", ["orientation"]) => Ok(json!("PORTRAIT")),
            ("GET", ["wda", "device", "info"]) => Ok(self.device_info()),
            ("GET", ["element", "active"]) => self.active_element(),
            ("GET", ["element", id, "rect"]) => element_rect(id),
            ("POST", ["codeact", "simctl"]) if !scoped => self.simctl(&body),
            ("GET", ["alert", "text"]) => Err(error(
                StatusCode::NOT_FOUND,
                "no such alert",
                "An attempt was made to operate on a modal dialog when one was not open",
            )),
            _ => Err(unknown()),
        }
    }
}
