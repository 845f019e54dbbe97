//! Every request, from the door to its command: the token is the base path (an
//! Appium client takes `http://127.0.0.1:PORT/TOKEN` as its server URL), `Host`
//! and `Origin` are checked, the body is capped; then the path is split into its
//! segments (empty ones ignored: a client that joins `URL/` and `/session` sends
//! `//session`; `/wd/hub` is taken too) and routed. Work that touches a session
//! runs off the async workers, one command at a time per session. Not what each
//! command does.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::options::{MAX_BODY, MOST_IN_FLIGHT};
use super::session::WdSession;
use super::sessions::Server;
use super::wire::{Failure, Reply, Request, body_of, unknown_command, unknown_error};
use super::{actions, device, element, execute_driver, find, sessions};
use crate::door::{self, Refusal};

pub fn router(server: Arc<Server>) -> axum::Router {
    axum::Router::new().fallback(handle).layer(axum::extract::DefaultBodyLimit::max(MAX_BODY)).with_state(server)
}

fn json_reply(status: StatusCode, value: &Value) -> Response {
    let mut response = (status, value.to_string()).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json; charset=utf-8"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

fn failed(failure: &Failure) -> Response {
    json_reply(failure.status(), &failure.body())
}

/// A request the door turned away, as a W3C error a client shows.
fn refused_at_door(refusal: Refusal) -> Response {
    let (status, message) = match refusal {
        Refusal::Token => (
            StatusCode::UNAUTHORIZED,
            "codeact serve: use the server URL it printed at start (http://127.0.0.1:PORT/TOKEN) as the client's server address",
        ),
        Refusal::Host => (StatusCode::FORBIDDEN, "codeact serve: only http://127.0.0.1:PORT/ is served"),
        Refusal::Origin => (StatusCode::FORBIDDEN, "codeact serve: requests from web pages are refused"),
    };
    json_reply(status, &json!({"value": {"error": "unknown error", "message": message, "stacktrace": ""}}))
}

async fn handle(
    State(server): State<Arc<Server>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: axum::body::Body,
) -> Response {
    let rest = match door::admit(&headers, uri.path(), &server.token, server.port) {
        Ok(rest) => rest.to_string(),
        Err(refusal) => return refused_at_door(refusal),
    };
    // The body is read only past the door, and only so far.
    let Some(body) = crate::listen::read_body(body, MAX_BODY).await else {
        return json_reply(
            StatusCode::PAYLOAD_TOO_LARGE,
            &json!({"value": {"error": "invalid argument", "message": format!("the request body is larger than {} MiB, or was cut off, or came too slowly", MAX_BODY / (1024 * 1024)), "stacktrace": ""}}),
        );
    };
    let Ok(_permit) = server.in_flight.clone().try_acquire_owned() else {
        return failed(&unknown_error(format!(
            "{MOST_IN_FLIGHT} requests are being answered already: send fewer at once"
        )));
    };
    let idempotency = headers
        .get("x-idempotency-key")
        .and_then(|v| v.to_str().ok())
        .filter(|k| !k.is_empty() && k.len() <= 128)
        .map(str::to_string);
    let sensitive = headers
        .get("x-appium-is-sensitive")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| matches!(v.trim(), "true" | "1"));
    let worker = server.clone();
    let ran = tokio::task::spawn_blocking(move || {
        let request = Request { method: method.as_str(), path: &rest, body: &body, sensitive, idempotency };
        route(&worker, &request)
    })
    .await;
    match ran {
        Ok(Ok(value)) => json_reply(StatusCode::OK, &json!({"value": value})),
        Ok(Err(failure)) => failed(&failure),
        Err(e) => failed(&unknown_error(format!("the command failed inside codeact: {e}"))),
    }
}

fn route(server: &Server, request: &Request) -> Reply {
    let parts: Vec<&str> = request.path.split('/').filter(|p| !p.is_empty()).collect();
    let parts = match parts.as_slice() {
        ["wd", "hub", rest @ ..] => rest.to_vec(),
        _ => parts,
    };
    let method = request.method;
    match (method, parts.as_slice()) {
        ("GET", ["status"]) => Ok(json!({
            "ready": true,
            "message": "codeact serves W3C WebDriver with Appium's extensions",
            "build": {"version": env!("CARGO_PKG_VERSION")},
        })),
        ("POST", ["session"]) => sessions::create(server, &body_of(request.body)?, request.idempotency.as_deref()),
        ("GET", ["sessions"] | ["appium", "sessions"]) => Ok(server.sessions.list()),
        ("DELETE", ["session", id]) => server.sessions.delete(id),
        (_, ["session", id, rest @ ..]) => {
            let started = Instant::now();
            // The record names the command, clipped: a path's segments are the client's words.
            let command = super::wire::clipped(&format!("{method} /{}", command_name(rest)), 200);
            server.sessions.with(id, |s| {
                s.noted = false;
                let out = session_command(s, request, rest);
                let error = out.as_ref().err().map(|f| format!("{}: {}", f.code, f.message));
                if !s.noted {
                    s.note(&command, started, error.as_deref());
                }
                s.log_command(&command, started);
                out
            })?
        }
        _ => Err(unknown_command(method, request.path)),
    }
}

/// The command's path with element ids as `:id` (how the record names it).
fn command_name(rest: &[&str]) -> String {
    let mut out: Vec<&str> = Vec::with_capacity(rest.len());
    let mut after_element = false;
    for part in rest {
        out.push(if after_element { ":id" } else { part });
        after_element = *part == "element" && out.len() < rest.len();
    }
    out.join("/")
}

/// A command of session `s`.
fn session_command(s: &mut WdSession, request: &Request, rest: &[&str]) -> Reply {
    let body = body_of(request.body)?;
    if request.sensitive && rest != ["appium", "execute_driver"] {
        // Whatever route carries them, the words of a request marked sensitive are
        // blotted out of every record (events, screen dumps, the report, the
        // session's script) for as long as the session lives, and no error
        // repeats them (an echo is clipped before it could be masked whole).
        let words = super::sensitive::mask_request(s, &body)?;
        return answer(s, request, rest, &body).map_err(|f| super::sensitive::told(f, &words));
    }
    answer(s, request, rest, &body)
}

/// What command `rest` of session `s` answers.
fn answer(s: &mut WdSession, request: &Request, rest: &[&str], body: &Value) -> Reply {
    match (request.method, rest) {
        // Appium 3's session read (gone in Appium 4), and the one both answer.
        ("GET", []) => Ok(s.capabilities.clone()),
        ("GET", ["appium", "capabilities"]) => Ok(json!({"capabilities": s.capabilities})),
        ("POST", ["appium", "events"]) => {
            let only: Vec<String> = match body.get("type") {
                Some(Value::String(t)) => vec![t.clone()],
                Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).map(str::to_string).collect(),
                _ => Vec::new(),
            };
            Ok(s.event_history(&only))
        }
        ("POST", ["appium", "log_event"]) => {
            let part = |k: &str| body.get(k).and_then(Value::as_str).filter(|v| !v.is_empty() && v.len() <= 100);
            let (Some(vendor), Some(event)) = (part("vendor"), part("event")) else {
                return Err(super::wire::invalid("log_event takes {vendor, event}, each 1 to 100 characters"));
            };
            s.log_event(&format!("{vendor}:{event}"));
            Ok(Value::Null)
        }
        ("POST", ["element" | "elements"]) => find::find(s, None, rest[0] == "elements", body),
        ("POST", ["element", id, kind @ ("element" | "elements")]) => {
            find::find(s, Some(id), *kind == "elements", body)
        }
        ("POST", ["appium", "execute_driver"]) => execute_driver::execute(s, body, request.sensitive),
        ("POST", ["actions"]) => actions::perform(s, body, request.sensitive),
        ("DELETE", ["actions"]) => Ok(Value::Null),
        (_, ["element", id, what @ ..]) => element::command(s, request, id, what, body),
        _ => device::command(s, request, rest, body),
    }
}
