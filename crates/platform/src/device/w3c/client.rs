//! A W3C WebDriver client over blocking HTTP: JSON requests to a server's base URL,
//! the session's commands under `/session/:id/…`, the W3C envelope (`{"value":
//! …}`, an error as `{"value": {"error", "message"}}`) read into a typed
//! [`W3cError`]. Every request has a timeout (the device's, narrowed by a snippet's
//! deadline) and a cap on what it reads; no redirect is followed (credentials never
//! travel to another host); only idempotent reads (`GET`) are tried a second time
//! after a broken connection. A session is created with capabilities, or attached
//! to (someone else's, never deleted here). Not here: what the commands mean for a
//! phone (`wda/`, `appium/`).

use std::io::Read as _;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::device::errors::DeviceError;
use crate::device::errors::w3c::W3cError;

/// How many request timeouts a session's start may take (2 minutes by default).
pub const SESSION_START_FACTOR: u32 = 6;
/// The most of one reply read: a screenshot of a large iPad in base64 fits.
const MAX_REPLY: u64 = 64 * 1024 * 1024;

/// Which server this is, in the words its errors use.
#[derive(Debug, Clone, Copy)]
pub struct Server {
    /// `WebDriverAgent`, `the Appium server`.
    pub name: &'static str,
    /// How to see whether it is still there, for a timeout.
    pub check: &'static str,
    /// What to do when it does not answer.
    pub unreachable: &'static str,
}

/// Basic credentials (a cloud's user and key), sent with every request and shown
/// nowhere: the key is registered as a secret, so anything codeact writes blots it.
#[derive(Clone)]
pub struct Credentials {
    user: String,
    key: String,
}

impl Credentials {
    pub fn new(user: &str, key: &str) -> Self {
        codeact_base::secrets::register(key);
        Self { user: user.to_string(), key: key.to_string() }
    }
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials").field("user", &self.user).field("key", &"(hidden)").finish()
    }
}

/// How the client holds its session.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Held {
    None,
    /// Created here (and deleted here).
    Owned(String),
    /// Someone else's (`#session=ID`): driven, never created again nor deleted.
    Attached(String),
}

/// Whether a session id (from a server's reply, or an attach fragment) can be put
/// in a request's path as it is: letters, digits, `-`, `_` and `.` (not only dots),
/// at most 200 — never a `/`, `?`, `#` or `%` that would lead later requests out of
/// the session's path.
pub fn valid_session_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 200
        && id.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        && !id.chars().all(|c| c == '.')
}

/// The HTTP side of one WebDriver server.
pub struct W3cClient {
    /// `http://127.0.0.1:8100`, without a trailing slash (and without credentials).
    base: String,
    http: reqwest::blocking::Client,
    credentials: Option<Credentials>,
    session: Held,
    /// The capabilities a session was created with (to create it again).
    capabilities: Value,
    /// Whether a forgotten owned session is created again once (WebDriverAgent
    /// restarts; an Appium session lost is said, since its app state went with it).
    pub recreate: bool,
    server: Server,
    pub name: String,
    pub timeout: Duration,
    pub deadline: Option<Instant>,
}

/// Whether a request is made under the session (`/session/:id/…`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Session,
    Plain,
}

impl W3cClient {
    /// A client of the server at `base` (no request made yet).
    pub fn new(
        base: &str,
        timeout: Duration,
        server: Server,
        credentials: Option<Credentials>,
    ) -> Result<Self, DeviceError> {
        // reqwest is built with rustls and no provider of its own.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let base = base.trim_end_matches('/').to_string();
        let http = reqwest::blocking::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            // Never follow a redirect: credentials would go with it.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|source| W3cError::Unreachable {
                device: base.clone(),
                op: "connect".into(),
                server: server.name,
                fix: server.unreachable,
                source,
            })?;
        Ok(Self {
            name: base.clone(),
            base,
            http,
            credentials,
            session: Held::None,
            capabilities: json!({}),
            recreate: false,
            server,
            timeout,
            deadline: None,
        })
    }

    /// Creates a session with `capabilities` (W3C `alwaysMatch`); the capabilities
    /// the server says it matched (else the ones asked for). The start may take
    /// [`SESSION_START_FACTOR`] times the request timeout: a server installs its
    /// agent on a phone's first session, and a grid queues sessions for a free phone.
    pub fn create_session(&mut self, capabilities: Value) -> Result<Value, DeviceError> {
        self.capabilities = capabilities.clone();
        let body = json!({"capabilities": {"alwaysMatch": capabilities, "firstMatch": [{}]}});
        let per_request = self.timeout;
        self.timeout = per_request.saturating_mul(SESSION_START_FACTOR);
        let created = self.request(reqwest::Method::POST, "/session", Some(body), Scope::Plain, "open a session");
        self.timeout = per_request;
        let value = match created {
            Err(DeviceError::W3c(e)) if matches!(&*e, W3cError::Says { error, .. } if error == "unknown command" || error == "HTTP 404") =>
            {
                return Err(W3cError::NoSessionRoute { device: self.name.clone(), server: self.server.name }.into());
            }
            other => other?,
        };
        let id = value.get("sessionId").and_then(Value::as_str).filter(|id| valid_session_id(id)).ok_or_else(|| {
            DeviceError::Unexpected {
                device: self.name.clone(),
                op: "open a session".into(),
                output: codeact_base::clip::clip(&value.to_string(), 300).into_owned(),
            }
        })?;
        self.session = Held::Owned(id.to_string());
        Ok(value.get("capabilities").filter(|c| c.is_object()).cloned().unwrap_or_else(|| self.capabilities.clone()))
    }

    /// Drives the session `id` someone else created (never deleted here).
    pub fn attach(&mut self, id: &str) {
        self.session = Held::Attached(id.to_string());
    }

    /// An attached session's capabilities, as the server says them: Appium's `GET
    /// /session/:id/appium/capabilities` (Appium 2.16 and later; the only way in
    /// Appium 4), else `GET /session/:id` (older servers, other W3C servers); else
    /// none known.
    pub fn session_capabilities(&mut self) -> Value {
        for path in ["/appium/capabilities", ""] {
            if let Ok(value) = self.request(reqwest::Method::GET, path, None, Scope::Session, "read the session") {
                return value.get("capabilities").cloned().unwrap_or(value);
            }
        }
        self.capabilities.clone()
    }

    /// Deletes a session created here (an attached one is left to its owner).
    pub fn close(&mut self) {
        if let Held::Owned(_) = self.session {
            let _ = self.request_once(reqwest::Method::DELETE, "", None, Scope::Session, "end the session");
            self.session = Held::None;
        }
    }

    /// A W3C screenshot (`GET /screenshot`, base64) as PNG bytes, checked to be one.
    pub fn screenshot(&mut self, scope: Scope) -> Result<Vec<u8>, DeviceError> {
        use base64::Engine as _;
        let value = self.request(reqwest::Method::GET, "/screenshot", None, scope, "screenshot")?;
        let unexpected =
            |output: String| DeviceError::Unexpected { device: self.name.clone(), op: "screenshot".into(), output };
        let png = base64::engine::general_purpose::STANDARD
            .decode(value.as_str().unwrap_or_default().trim())
            .map_err(|e| unexpected(format!("not base64: {e}")))?;
        if !png.starts_with(b"\x89PNG\r\n\x1a\n") {
            return Err(unexpected(format!("not a PNG ({} bytes)", png.len())));
        }
        Ok(png)
    }

    /// The time a request may take now.
    fn budget(&self, op: &str) -> Result<Duration, DeviceError> {
        match self.deadline {
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(DeviceError::Timeout {
                        device: self.name.clone(),
                        op: op.into(),
                        secs: 0.0,
                        check: self.server.check,
                    });
                }
                Ok(left.min(self.timeout))
            }
            None => Ok(self.timeout),
        }
    }

    /// One request; its `value`. A read whose connection broke is tried once more;
    /// an owned session the server forgot is created again once when `recreate`.
    pub fn request(
        &mut self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
        scope: Scope,
        op: &str,
    ) -> Result<Value, DeviceError> {
        let first = self.request_once(method.clone(), path, body.clone(), scope, op);
        match first {
            Err(DeviceError::W3c(e))
                if matches!(*e, W3cError::Unreachable { .. }) && method == reqwest::Method::GET =>
            {
                self.request_once(method, path, body, scope, op)
            }
            Err(DeviceError::W3c(e))
                if scope == Scope::Session
                    && matches!(&*e, W3cError::Says { error, .. } if error == "invalid session id") =>
            {
                let message = match &*e {
                    W3cError::Says { message, .. } => message.clone(),
                    _ => String::new(),
                };
                match (&self.session, self.recreate) {
                    (Held::Owned(_), true) => {
                        self.create_session(self.capabilities.clone())?;
                        self.request_once(method, path, body, scope, op)
                    }
                    (held, _) => Err(W3cError::SessionGone {
                        device: self.name.clone(),
                        server: self.server.name,
                        session: match held {
                            Held::Owned(id) | Held::Attached(id) => id.clone(),
                            Held::None => String::new(),
                        },
                        message,
                        attached: matches!(held, Held::Attached(_)),
                    }
                    .into()),
                }
            }
            other => other,
        }
    }

    fn request_once(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
        scope: Scope,
        op: &str,
    ) -> Result<Value, DeviceError> {
        let url = match (scope, &self.session) {
            (Scope::Session, Held::Owned(id) | Held::Attached(id)) => format!("{}/session/{id}{path}", self.base),
            _ => format!("{}{path}", self.base),
        };
        let budget = self.budget(op)?;
        let mut request = self.http.request(method, &url).timeout(budget);
        if let Some(c) = &self.credentials {
            request = request.basic_auth(&c.user, Some(&c.key));
        }
        if let Some(body) = body {
            // Selenium Grid refuses a body whose type does not say UTF-8.
            request = request.header("Content-Type", "application/json; charset=utf-8").body(body.to_string());
        }
        let started = Instant::now();
        let failed = |source: reqwest::Error| match source.is_timeout() {
            true => DeviceError::Timeout {
                device: self.name.clone(),
                op: op.into(),
                secs: started.elapsed().as_secs_f64(),
                check: self.server.check,
            },
            false => W3cError::Unreachable {
                device: self.name.clone(),
                op: op.into(),
                server: self.server.name,
                fix: self.server.unreachable,
                // The URL it names may carry a session id, never credentials (they
                // go in a header).
                source: source.without_url(),
            }
            .into(),
        };
        let reply = request.send().map_err(failed)?;
        let status = reply.status();
        let mut bytes = Vec::new();
        let read = reply.take(MAX_REPLY + 1).read_to_end(&mut bytes);
        if let Err(e) = read {
            return Err(DeviceError::Command { device: self.name.clone(), op: op.into(), output: e.to_string() });
        }
        if bytes.len() as u64 > MAX_REPLY {
            return Err(DeviceError::Unexpected {
                device: self.name.clone(),
                op: op.into(),
                output: format!("a reply of more than {MAX_REPLY} bytes"),
            });
        }
        let parsed: Option<Value> = serde_json::from_slice(&bytes).ok();
        let value = parsed.as_ref().and_then(|v| v.get("value")).cloned();
        if let Some(error) = value.as_ref().and_then(|v| v.get("error")).and_then(Value::as_str) {
            let message = value.as_ref().and_then(|v| v.get("message")).and_then(Value::as_str).unwrap_or("");
            return Err(W3cError::Says {
                device: self.name.clone(),
                op: op.into(),
                server: self.server.name,
                error: codeact_base::clip::clip(error, 100).into_owned(),
                message: codeact_base::clip::clip(message, 600).into_owned(),
            }
            .into());
        }
        match value {
            Some(value) if status.is_success() => Ok(value),
            _ => {
                let text = String::from_utf8_lossy(&bytes);
                Err(W3cError::Says {
                    device: self.name.clone(),
                    op: op.into(),
                    server: self.server.name,
                    error: format!("HTTP {}", status.as_u16()),
                    message: codeact_base::clip::clip(text.trim(), 300).into_owned(),
                }
                .into())
            }
        }
    }
}
