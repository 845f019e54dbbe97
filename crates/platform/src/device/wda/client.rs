//! A WebDriverAgent client: JSON over HTTP to an iPhone's WDA runner (through
//! `iproxy 8100 8100`, or the virtual phone's iOS door). Every request has a timeout
//! (the device's, narrowed by a snippet's deadline) and a cap on what it reads; WDA's
//! error envelope (`{"value": {"error", "message"}}`) becomes a typed
//! [`DeviceError::Wda`] that says what WDA said. One session, created on connect and
//! created again once if WDA forgot it (a restarted runner). Not here: what the
//! requests mean for a phone (`mod.rs`).

use std::io::Read as _;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::WdaError;
use crate::device::DeviceError;

/// iOS's way to see whether the phone is still there, for errors.
const CHECK: &str = "check that WebDriverAgent answers at its URL's /status";
/// The most of one reply read: a screenshot of a large iPad in base64 fits.
const MAX_REPLY: u64 = 64 * 1024 * 1024;

/// The HTTP side of one WDA.
pub(super) struct WdaClient {
    /// `http://127.0.0.1:8100`, without a trailing slash.
    base: String,
    http: reqwest::blocking::Client,
    session: Option<String>,
    pub(super) name: String,
    pub(super) timeout: Duration,
    pub(super) deadline: Option<Instant>,
}

/// Whether a request is made under the session (`/session/:id/…`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Scope {
    Session,
    Plain,
}

impl WdaClient {
    /// A client of the WDA at `base`; checks `/status` and opens a session.
    pub(super) fn connect(base: &str, timeout: Duration) -> Result<Self, DeviceError> {
        // reqwest is built with rustls and no provider of its own.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::blocking::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            // WDA answers on loopback or through iproxy: never follow a redirect.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|source| WdaError::Unreachable { device: base.to_string(), op: "connect".into(), source })?;
        let mut client = Self {
            base: base.trim_end_matches('/').to_string(),
            http,
            session: None,
            name: base.trim_end_matches('/').to_string(),
            timeout,
            deadline: None,
        };
        let status = client.request(reqwest::Method::GET, "/status", None, Scope::Plain, "status")?;
        if status.get("ready").and_then(Value::as_bool) == Some(false) {
            return Err(DeviceError::Command {
                device: client.name.clone(),
                op: "status".into(),
                output: format!("WebDriverAgent is not ready: {}", status.get("message").unwrap_or(&Value::Null)),
            });
        }
        client.new_session()?;
        Ok(client)
    }

    fn new_session(&mut self) -> Result<(), DeviceError> {
        let body = json!({"capabilities": {"alwaysMatch": {}, "firstMatch": [{}]}});
        let value = self.request(reqwest::Method::POST, "/session", Some(body), Scope::Plain, "open a session")?;
        let id = value.get("sessionId").and_then(Value::as_str).ok_or_else(|| DeviceError::Unexpected {
            device: self.name.clone(),
            op: "open a session".into(),
            output: value.to_string(),
        })?;
        self.session = Some(id.to_string());
        Ok(())
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
                        check: CHECK,
                    });
                }
                Ok(left.min(self.timeout))
            }
            None => Ok(self.timeout),
        }
    }

    /// One request; its `value`. A session the runner forgot is opened again once.
    pub(super) fn request(
        &mut self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
        scope: Scope,
        op: &str,
    ) -> Result<Value, DeviceError> {
        match self.request_once(method.clone(), path, body.clone(), scope, op) {
            Err(DeviceError::Wda(WdaError::Says { error, .. }))
                if scope == Scope::Session && error == "invalid session id" =>
            {
                self.new_session()?;
                self.request_once(method, path, body, scope, op)
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
            (Scope::Session, Some(id)) => format!("{}/session/{id}{path}", self.base),
            _ => format!("{}{path}", self.base),
        };
        let budget = self.budget(op)?;
        let mut request = self.http.request(method, &url).timeout(budget);
        if let Some(body) = body {
            request = request.header("Content-Type", "application/json").body(body.to_string());
        }
        let started = Instant::now();
        let failed = |source: reqwest::Error| match source.is_timeout() {
            true => DeviceError::Timeout {
                device: self.name.clone(),
                op: op.into(),
                secs: started.elapsed().as_secs_f64(),
                check: CHECK,
            },
            false => WdaError::Unreachable { device: self.name.clone(), op: op.into(), source }.into(),
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
            return Err(DeviceError::Wda(WdaError::Says {
                device: self.name.clone(),
                op: op.into(),
                error: error.to_string(),
                message: codeact_base::clip::clip(message, 600).into_owned(),
            }));
        }
        match value {
            Some(value) if status.is_success() => Ok(value),
            _ => {
                let text = String::from_utf8_lossy(&bytes);
                Err(DeviceError::Wda(WdaError::Says {
                    device: self.name.clone(),
                    op: op.into(),
                    error: format!("HTTP {}", status.as_u16()),
                    message: codeact_base::clip::clip(text.trim(), 300).into_owned(),
                }))
            }
        }
    }
}
