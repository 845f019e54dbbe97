//! uiautomator2's on-device server as codeact's client for it: JSON-RPC 2.0 over
//! HTTP on device port 9008, one `tcp:9008` stream per call, as the server of
//! uiautomator2 3.x answers (`GET /ping` is `pong`; `POST /jsonrpc/0` carries
//! `result` or `error`). Found by a ping; when nothing answers and its jar is on the
//! phone (`/data/local/tmp/u2.jar`, pushed by `python -m uiautomator2 init` or any
//! uiautomator2 session), started the way its own client starts it and kept running
//! while this device is open. Never pushed from here. What the tree means is
//! `ui::parse`'s; when to use it is `agents/mod.rs`'s and `observe.rs`'s.

use crate::device::adb::AdbError;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::device::errors::DeviceError;

use crate::device::observation::{Observation, ObservedVia};

use crate::device::adb::agent_state::{U2_NAME, U2Server};
use crate::device::adb::device::AdbDevice;
use crate::device::errors::agent::AgentError;

/// The server's device port.
const U2_PORT: u16 = 9008;
/// Where uiautomator2's client puts the server.
const U2_JAR: &str = "/data/local/tmp/u2.jar";
/// How uiautomator2's client starts it (`core.py`, `launch_uiautomator`).
const U2_LAUNCH: &str = "CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p 9008";
/// How long a started server may take to answer (a real one takes 1–3 s).
const START_WAIT: Duration = Duration::from_secs(10);
/// No single call waits longer than this for the server (its client's default).
const MOST_CALL: Duration = Duration::from_secs(10);

/// What a look for the server found.
pub(in crate::device::adb) enum U2Found {
    Running(U2Server),
    /// Not running and not installed (why, in words).
    Absent(String),
}

impl AdbDevice {
    /// Whether the server answers `/ping`.
    fn u2_pings(&mut self) -> Result<bool, AgentError> {
        let timeout = self.timeout.min(Duration::from_secs(3));
        match self.agent_http(U2_PORT, "GET", "/ping", None, None, timeout) {
            Ok((200, body)) => Ok(body.trim_ascii() == b"pong"),
            Ok(_) => Ok(false),
            Err(AgentError::NotListening { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Finds the server, starting it when it is installed but not running.
    pub(in crate::device::adb) fn u2_find(&mut self) -> Result<U2Found, AgentError> {
        if self.u2_pings()? {
            return Ok(U2Found::Running(U2Server { _running: None, next_id: 1 }));
        }
        let installed = self
            .exec_line("look for uiautomator2", &format!("ls {U2_JAR}"), self.timeout)
            .is_ok_and(|o| o.code.unwrap_or(0) == 0 && o.stdout_text().trim() == U2_JAR);
        if !installed {
            return Ok(U2Found::Absent(format!("it is not running and {U2_JAR} is not there")));
        }
        let held = self.hold_command(U2_LAUNCH).map_err(AgentError::Transport)?;
        let started = Instant::now();
        loop {
            std::thread::sleep(Duration::from_millis(50));
            if held.ended() {
                return Err(AgentError::Quit { output: codeact_base::clip::clip(held.output().trim(), 300).into() });
            }
            // Not listening yet is waited out; a server that answers wrongly is not.
            if self.u2_pings()? {
                return Ok(U2Found::Running(U2Server { _running: Some(held), next_id: 1 }));
            }
            if started.elapsed() > START_WAIT {
                let output = codeact_base::clip::clip(held.output().trim(), 300).into();
                return Err(AgentError::NotReady { secs: START_WAIT.as_secs_f64(), output });
            }
        }
    }

    /// Types `text` into the focused field as uiautomator2's own client does when
    /// its keyboard is not installed: put on the clipboard and pasted. The
    /// clipboard's text is put back afterwards (an empty one stays empty).
    pub(in crate::device::adb) fn u2_type(&mut self, server: &mut U2Server, text: &str) -> Result<(), AgentError> {
        let kept = self.u2_call(server, "getClipboard", json!([]), Duration::ZERO)?;
        self.u2_call(server, "setClipboard", json!([null, text]), Duration::ZERO)?;
        let pasted = self.u2_call(server, "pasteClipboard", json!([]), Duration::ZERO);
        let put_back = self.u2_call(server, "setClipboard", json!([null, kept.as_str().unwrap_or("")]), Duration::ZERO);
        pasted.and(put_back).map(drop)
    }

    /// Calls `method` with positional `params`; `extra` is time the call itself
    /// takes on the device (a gesture's duration).
    pub(in crate::device::adb) fn u2_call(
        &mut self,
        server: &mut U2Server,
        method: &str,
        params: Value,
        extra: Duration,
    ) -> Result<Value, AgentError> {
        let id = server.next_id;
        server.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        let timeout = self.timeout.min(MOST_CALL) + extra;
        let (status, reply) = self.agent_http(U2_PORT, "POST", "/jsonrpc/0", Some(body.as_bytes()), None, timeout)?;
        let text = String::from_utf8_lossy(&reply);
        if status != 200 {
            return Err(AgentError::Status { status, body: codeact_base::clip::clip(text.trim(), 200).into() });
        }
        let not_rpc = |why: &str| AgentError::NotJsonRpc(why.to_string());
        let Ok(Value::Object(mut answer)) = serde_json::from_str::<Value>(&text) else {
            return Err(not_rpc(&format!("not a JSON object: {}", codeact_base::clip::clip(text.trim(), 80))));
        };
        if let Some(error) = answer.get("error").filter(|e| !e.is_null()) {
            let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
            let message = error.get("message").and_then(Value::as_str).unwrap_or("").to_string();
            return Err(AgentError::Rpc { code, message: codeact_base::clip::clip(&message, 200).into() });
        }
        if answer.get("id") != Some(&json!(id)) {
            return Err(not_rpc("the id is not the call's"));
        }
        answer.remove("result").ok_or_else(|| not_rpc("no result"))
    }

    /// Screen size, focus and keyboard (one round trip), then the tree from
    /// uiautomator2's server.
    pub(super) fn observe_with_u2(&mut self, server: &mut U2Server) -> Result<Observation, DeviceError> {
        let ([size, focus, ime, _], _) = self.phone_state_and("")?;
        let agent_error = |device: &Self, source| {
            DeviceError::Adb(AdbError::Agent {
                device: device.name.clone(),
                agent: U2_NAME,
                op: "read the UI tree".into(),
                source,
            })
        };
        let dump = match self.u2_call(server, "dumpWindowHierarchy", json!([false, 50]), Duration::ZERO) {
            Ok(Value::String(xml)) => xml,
            Ok(other) => {
                let why = format!("dumpWindowHierarchy returned {}", codeact_base::clip::clip(&other.to_string(), 60));
                return Err(agent_error(self, AgentError::NotJsonRpc(why)));
            }
            Err(e) => return Err(agent_error(self, e)),
        };
        let mut seen = self.observation(&size, &focus, &ime, dump, "")?;
        seen.via = ObservedVia::U2;
        Ok(seen)
    }
}
