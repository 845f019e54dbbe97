//! The mobilerun (ex-DroidRun) Portal as codeact's client for it: the HTTP server
//! its accessibility service runs on device port 8080, one `tcp:8080` stream per
//! request. Found by `GET /ping` (never enabled from here: turning on an
//! accessibility service is the phone owner's call); its token, when the Portal has
//! one (from 0.4), read once from its content provider (`content query --uri
//! content://com.droidrun.portal/auth_token`) and sent as `Authorization: Bearer`,
//! never shown. A look is two requests and no shell: `/a11y_tree_full` (every node
//! with its flags, written as a dump by `portal_tree.rs`) and `/phone_state`.
//! Taps, long presses, swipes, Back and Home go through `/action/*` when the Portal
//! has them; a Portal that does not (before 0.4) leaves them to `input`. Text is
//! typed (and a field cleared) by its keyboard (`/keyboard/input|clear`) while that
//! keyboard is the phone's input method, and screenshots are its `/screenshot` PNG.

use crate::device::adb::AdbError;
use std::time::Duration;

use serde_json::{Value, json};

use super::portal_tree::to_hierarchy_xml;
use crate::device::adb::agent_state::{KeyboardAct, PORTAL_NAME, PortalServer};
use crate::device::adb::device::AdbDevice;
use crate::device::errors::DeviceError;
use crate::device::errors::agent::AgentError;
use crate::device::observation::{Observation, ObservedVia, PhoneState};

/// The Portal's device port.
const PORTAL_PORT: u16 = 8080;
/// No single call waits longer than this.
const MOST_CALL: Duration = Duration::from_secs(10);

/// What a look for the Portal found.
pub(in crate::device::adb) enum PortalFound {
    Running(PortalServer),
    /// Not answering (why, in words).
    Absent(String),
}

/// How the Portal wraps every answer: `{"status": "success", "data": …}` or
/// `{"status": "error", "error": …}`; `data` is often JSON written as a string.
fn unwrap_reply(status: u16, body: &[u8]) -> Result<Value, AgentError> {
    let text = String::from_utf8_lossy(body);
    if status == 401 {
        return Err(AgentError::Unauthorized);
    }
    if status != 200 {
        return Err(AgentError::Status { status, body: codeact_base::clip::clip(text.trim(), 200).into() });
    }
    let Ok(Value::Object(mut reply)) = serde_json::from_str::<Value>(&text) else {
        return Err(AgentError::NotJsonRpc(format!(
            "not a JSON object: {}",
            codeact_base::clip::clip(text.trim(), 80)
        )));
    };
    if reply.get("status").and_then(Value::as_str) == Some("error") {
        let message = reply.get("error").or_else(|| reply.get("message")).and_then(Value::as_str).unwrap_or("");
        return Err(AgentError::Rpc { code: 0, message: codeact_base::clip::clip(message, 200).into() });
    }
    let data = reply.remove("data").or_else(|| reply.remove("result")).unwrap_or(Value::Null);
    Ok(match data {
        // JSON written as text is read as JSON; any other text stays text.
        Value::String(s) if s.trim_start().starts_with(['{', '[']) => {
            serde_json::from_str(&s).unwrap_or(Value::String(s))
        }
        other => other,
    })
}

/// Whether an error is the Portal's "no window" fault (an empty tree, not a broken
/// agent).
fn no_window(e: &AgentError) -> bool {
    matches!(e, AgentError::Rpc { message, .. } if message.contains("No active window") || message.contains("root filtered out"))
}

impl AdbDevice {
    fn portal_call(
        &mut self,
        server: &PortalServer,
        method: &str,
        path: &str,
        body: Option<Value>,
        extra: Duration,
    ) -> Result<Value, AgentError> {
        let body = body.map(|b| b.to_string());
        let timeout = self.timeout.min(MOST_CALL) + extra;
        let (status, reply) = self.agent_http(
            PORTAL_PORT,
            method,
            path,
            body.as_deref().map(str::as_bytes),
            server.token.as_deref(),
            timeout,
        )?;
        unwrap_reply(status, &reply)
    }

    /// Finds the Portal and its token.
    pub(in crate::device::adb) fn portal_find(&mut self) -> Result<PortalFound, AgentError> {
        let timeout = self.timeout.min(Duration::from_secs(3));
        match self.agent_http(PORTAL_PORT, "GET", "/ping", None, None, timeout) {
            Ok((status, body)) => {
                unwrap_reply(status, &body)?;
            }
            Err(AgentError::NotListening { .. }) => {
                return Ok(PortalFound::Absent(
                    "nothing listens on device port 8080 (its accessibility service is not on)".into(),
                ));
            }
            Err(e) => return Err(e),
        }
        let token = self
            .exec_line(
                "read the Portal's token",
                "content query --uri content://com.droidrun.portal/auth_token",
                self.timeout,
            )
            .ok()
            .and_then(|out| {
                let text = out.stdout_text();
                let value = text.lines().find_map(|l| l.trim().strip_prefix("Row: 0 result="))?.trim().to_string();
                // An older Portal has no token: its provider answers an error object.
                let token = match serde_json::from_str::<Value>(&value) {
                    Ok(Value::Object(o)) => o.get("data").and_then(Value::as_str).map(str::to_string)?,
                    _ => value,
                };
                (!token.is_empty() && token.chars().all(|c| c.is_ascii_graphic())).then_some(token)
            });
        Ok(PortalFound::Running(PortalServer { token, gestures: true, screenshots: true }))
    }

    /// One look: the full tree and the phone's state, two requests, no shell.
    pub(in crate::device::adb) fn observe_with_portal(
        &mut self,
        server: &mut PortalServer,
    ) -> Result<Observation, DeviceError> {
        let agent_error = |device: &Self, source| {
            DeviceError::Adb(AdbError::Agent {
                device: device.name.clone(),
                agent: PORTAL_NAME,
                op: "read the UI tree".into(),
                source,
            })
        };
        let screen = self.screen_size()?;
        let tree = match self.portal_call(server, "GET", "/a11y_tree_full?filter=false", None, Duration::ZERO) {
            Ok(tree) => tree,
            // The known fault of a long-lived accessibility client: no window. It
            // reads as an empty tree, which the caller replaces with a dump.
            Err(e) if no_window(&e) => Value::Null,
            Err(e) => return Err(agent_error(self, e)),
        };
        let state = match self.portal_call(server, "GET", "/phone_state", None, Duration::ZERO) {
            Ok(state) => state,
            Err(e) => return Err(agent_error(self, e)),
        };
        let dump = to_hierarchy_xml(&tree);
        let ui = crate::ui::parse(dump.as_bytes(), screen)
            .map_err(|source| DeviceError::Ui { device: self.name.clone(), source })?;
        let text = |key: &str| state.get(key).and_then(Value::as_str).unwrap_or("").to_string();
        let package = text("packageName");
        let activity = match text("activityName") {
            a if a.starts_with('.') => format!("{package}{a}"),
            a => a,
        };
        let keyboard_shown = state.get("keyboardVisible").and_then(Value::as_bool).unwrap_or(false);
        let focused = super::super::observe::focused_element(&ui, &package);
        let phone = PhoneState {
            package,
            activity,
            keyboard_shown,
            focused,
            platform: Default::default(),
            title: String::new(),
        };
        Ok(Observation { ui, phone, screen, dump, via: ObservedVia::Portal, ..Observation::default() })
    }

    /// A gesture through `/action/*`: `Ok(None)` when this Portal has no such
    /// endpoint (nothing was done; `input` should do it).
    pub(in crate::device::adb) fn portal_gesture(
        &mut self,
        server: &mut PortalServer,
        path: &str,
        body: Value,
        takes: Duration,
    ) -> Result<Option<()>, AgentError> {
        if !server.gestures {
            return Ok(None);
        }
        match self.portal_call(server, "POST", path, Some(body), takes) {
            Ok(_) => Ok(Some(())),
            Err(AgentError::Rpc { message, .. }) if message.starts_with("Unknown") => {
                server.gestures = false;
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}

impl AdbDevice {
    /// Types (`/keyboard/input`) or clears (`/keyboard/clear`) with the Portal's
    /// keyboard: `Ok(false)` when that keyboard is not the phone's input method (the
    /// Portal says "No input connection") or the Portal has no such endpoint —
    /// nothing was typed either way.
    pub(in crate::device::adb) fn portal_keyboard(
        &mut self,
        server: &mut PortalServer,
        act: KeyboardAct<'_>,
    ) -> Result<bool, AgentError> {
        let (path, body) = match act {
            KeyboardAct::Type(text) => ("/keyboard/input", keyboard_body(text)),
            KeyboardAct::Clear => ("/keyboard/clear", json!({})),
        };
        match self.portal_call(server, "POST", path, Some(body), Duration::ZERO) {
            Ok(_) => Ok(true),
            Err(AgentError::Rpc { message, .. })
                if message.starts_with("No input connection") || message.starts_with("Unknown") =>
            {
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// The screen as the Portal captures it: a PNG, base64 in `data`.
    pub(in crate::device::adb) fn portal_screenshot(&mut self, server: &PortalServer) -> Result<Vec<u8>, AgentError> {
        use base64::Engine as _;
        let data = self.portal_call(server, "GET", "/screenshot", None, Duration::ZERO)?;
        let text = data.as_str().ok_or_else(|| AgentError::NotJsonRpc("a screenshot that is not text".into()))?;
        base64::engine::general_purpose::STANDARD
            .decode(text.trim())
            .map_err(|_| AgentError::NotJsonRpc("a screenshot that is not base64".into()))
    }
}

/// The text the Portal's keyboard endpoint takes.
fn keyboard_body(text: &str) -> Value {
    use base64::Engine as _;
    json!({ "base64_text": base64::engine::general_purpose::STANDARD.encode(text) })
}

/// The Portal's request for a gesture `Device` asks for, if it has one.
pub(in crate::device::adb) fn gesture_request(method: &str, params: &Value) -> Option<(&'static str, Value)> {
    let n = |i: usize| params.get(i).and_then(Value::as_i64).unwrap_or(0);
    Some(match method {
        "click" if params.as_array().is_some_and(|p| p.len() == 2) => ("/action/tap", json!({"x": n(0), "y": n(1)})),
        "click" => {
            ("/action/swipe", json!({"startX": n(0), "startY": n(1), "endX": n(0), "endY": n(1), "duration": n(2)}))
        }
        "swipe" => {
            ("/action/swipe", json!({"startX": n(0), "startY": n(1), "endX": n(2), "endY": n(3), "duration": n(4) * 5}))
        }
        // GLOBAL_ACTION_BACK and _HOME.
        "pressKeyCode" if n(0) == 4 => ("/action/global", json!({"action": 1})),
        "pressKeyCode" if n(0) == 3 => ("/action/global", json!({"action": 2})),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_are_unwrapped_as_the_portal_writes_them() {
        let ok = unwrap_reply(200, br#"{"status":"success","data":"{\"packageName\":\"p\"}"}"#).unwrap();
        assert_eq!(ok["packageName"], "p");
        assert_eq!(unwrap_reply(200, br#"{"status":"success","data":"pong"}"#).unwrap(), "pong");
        assert!(matches!(unwrap_reply(401, b"{}"), Err(AgentError::Unauthorized)));
        let err = unwrap_reply(200, br#"{"status":"error","error":"No active window available"}"#).unwrap_err();
        assert!(no_window(&err));
        assert!(matches!(unwrap_reply(200, b"garbage"), Err(AgentError::NotJsonRpc(_))));
        assert!(matches!(unwrap_reply(500, b"oops"), Err(AgentError::Status { status: 500, .. })));
        assert_eq!(gesture_request("click", &json!([1, 2])).unwrap().0, "/action/tap");
        assert_eq!(gesture_request("click", &json!([1, 2, 800])).unwrap().1["duration"], 800);
        assert_eq!(gesture_request("pressKeyCode", &json!([4])).unwrap().1["action"], 1);
        assert!(gesture_request("pressKeyCode", &json!([66])).is_none());
        assert!(gesture_request("drag", &json!([0, 0, 1, 1, 2])).is_none());
    }
}
