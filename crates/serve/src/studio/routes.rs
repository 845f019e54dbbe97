//! The studio's routes, each behind the door (`door.rs`): the page and its two
//! files, the newest picture (`frame.png`), the live long poll (`api/live`), and
//! the JSON calls that point, act, record, save, run code, list the tools and
//! replay run folders. Work that touches the session runs off the async workers.
//! Every reply says `no-store` and `no-referrer` (the token is in the URL), the
//! page a strict content policy (no inline script, nothing from elsewhere).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::state::CallResult;
use super::state::Studio;
use super::{act, console, point, record, replay};
use crate::door::{self, Refusal};

const PAGE: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/studio.js");
const STYLE: &str = include_str!("page/studio.css");

/// The page may load only its own files and pictures; no inline script runs.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The largest request body read (a script, a recording's path, a point).
pub const MAX_BODY: usize = 1024 * 1024;

/// The most live channels (pages showing the phone) at once.
pub const MAX_LIVE: usize = 8;

pub fn router(studio: Arc<Studio>) -> axum::Router {
    axum::Router::new().fallback(handle).layer(axum::extract::DefaultBodyLimit::max(MAX_BODY)).with_state(studio)
}

/// A reply with the headers every reply carries.
fn reply(status: StatusCode, kind: &'static str, body: impl Into<axum::body::Body>) -> Response {
    let mut response = (status, body.into()).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

pub fn json_reply(status: StatusCode, value: &Value) -> Response {
    reply(status, "application/json", value.to_string())
}

/// A refusal of a call, as JSON the page shows.
pub fn refused(status: StatusCode, says: impl std::fmt::Display) -> Response {
    json_reply(status, &json!({"error": says.to_string()}))
}

/// A request the door turned away, said as plain text.
fn refused_at_door(refusal: Refusal) -> Response {
    let (status, says) = match refusal {
        Refusal::Token => {
            (StatusCode::UNAUTHORIZED, "codeact studio: open the URL it printed at start (it ends with the token)")
        }
        Refusal::Host => (StatusCode::FORBIDDEN, "codeact studio: only http://127.0.0.1:PORT/ is served"),
        Refusal::Origin => (StatusCode::FORBIDDEN, "codeact studio: requests from other pages are refused"),
    };
    (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], says).into_response()
}

/// A query parameter, percent-decoded (`+` is a space).
fn query(uri: &Uri, key: &str) -> Option<String> {
    let raw = uri.query()?.split('&').find_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))?;
    let spaced = raw.replace('+', " ");
    Some(percent_encoding::percent_decode_str(&spaced).decode_utf8_lossy().into_owned())
}

async fn handle(
    State(studio): State<Arc<Studio>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: axum::body::Body,
) -> Response {
    let rest = match door::admit(&headers, uri.path(), &studio.token, studio.port) {
        Ok(rest) => rest.to_string(),
        // A browser asks for /favicon.ico without the token: nothing there, and no error.
        Err(Refusal::Token) if method == Method::GET && uri.path() == "/favicon.ico" => {
            return reply(StatusCode::NO_CONTENT, "image/x-icon", "");
        }
        Err(refusal) => return refused_at_door(refusal),
    };
    // The body is read only past the door, and only so far.
    let Some(body) = crate::listen::read_body(body, MAX_BODY).await else {
        return refused(StatusCode::PAYLOAD_TOO_LARGE, format!("the request is larger than {} KiB", MAX_BODY / 1024));
    };
    match (method.as_str(), rest.as_str()) {
        ("GET", "") => {
            let mut page = reply(StatusCode::OK, "text/html; charset=utf-8", PAGE);
            page.headers_mut().insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY));
            page
        }
        ("GET", "studio.js") => reply(StatusCode::OK, "text/javascript; charset=utf-8", SCRIPT),
        ("GET", "studio.css") => reply(StatusCode::OK, "text/css; charset=utf-8", STYLE),
        ("GET", "frame.png") => match studio.live.frame() {
            Some(png) => reply(StatusCode::OK, "image/png", png.as_ref().clone()),
            None => refused(StatusCode::SERVICE_UNAVAILABLE, "no picture of the phone yet"),
        },
        ("GET", "api/live") => {
            // Held while the poll waits; given back however it ends (a page that
            // goes away drops its request mid-wait).
            let Some(_slot) = PollSlot::take(&studio.live.polls) else {
                return refused(
                    StatusCode::TOO_MANY_REQUESTS,
                    format!("{MAX_LIVE} pages are showing the phone already: close one"),
                );
            };
            let since = query(&uri, "since").and_then(|s| s.parse().ok()).unwrap_or(0);
            json_reply(StatusCode::OK, &studio.live.poll(since, &studio.stop).await)
        }
        ("GET", "api/tree") => json_reply(StatusCode::OK, &studio.live.tree()),
        ("GET", "api/tools") => blocking(studio, |s| Ok(console::tools(s))).await,
        ("GET", "api/recording") => json_reply(StatusCode::OK, &record::shown(&studio)),
        ("GET", "api/runs") => blocking(studio, |s| Ok(replay::list(s))).await,
        ("GET", "api/run") => {
            let name = query(&uri, "name").unwrap_or_default();
            blocking(studio, move |s| replay::steps(s, &name)).await
        }
        ("GET", "api/run/file") => {
            let (name, file) = (query(&uri, "name").unwrap_or_default(), query(&uri, "file").unwrap_or_default());
            match replay::file(&studio, &name, &file) {
                Ok(png) => reply(StatusCode::OK, "image/png", png),
                Err(e) => refused(StatusCode::NOT_FOUND, e),
            }
        }
        ("POST", call) => {
            let body: Value = match serde_json::from_slice(&body) {
                Ok(v) => v,
                Err(e) => return refused(StatusCode::BAD_REQUEST, format!("the body is not JSON: {e}")),
            };
            let call = call.to_string();
            blocking(studio, move |s| match call.as_str() {
                "api/point" => point::point(s, &body),
                "api/act" => act::act(s, &body),
                "api/assert" => act::assert(s, &body),
                "api/recording" => record::control(s, &body),
                "api/save" => record::save(s, &body),
                "api/cut" => point::cut(s, &body),
                "api/run" => console::run(s, &body),
                _ => Err((StatusCode::NOT_FOUND, format!("no call {call}"))),
            })
            .await
        }
        _ => {
            refused(StatusCode::NOT_FOUND, format!("no route {method} /{}", rest.chars().take(80).collect::<String>()))
        }
    }
}

/// One of the [`MAX_LIVE`] live channels, given back when dropped.
struct PollSlot<'a>(&'a std::sync::atomic::AtomicUsize);

impl<'a> PollSlot<'a> {
    fn take(count: &'a std::sync::atomic::AtomicUsize) -> Option<Self> {
        let slot = PollSlot(count);
        (count.fetch_add(1, Ordering::SeqCst) < MAX_LIVE).then_some(slot)
    }
}

impl Drop for PollSlot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Runs `call` off the async workers (it may wait on the phone).
async fn blocking(studio: Arc<Studio>, call: impl FnOnce(&Studio) -> CallResult + Send + 'static) -> Response {
    match tokio::task::spawn_blocking(move || call(&studio)).await {
        Ok(Ok(value)) => json_reply(StatusCode::OK, &value),
        Ok(Err((status, says))) => refused(status, says),
        Err(_) => refused(StatusCode::INTERNAL_SERVER_ERROR, "the call stopped before it answered"),
    }
}
