//! The virtual phone's own test hooks on the iOS door: `POST /codeact/simctl` runs one
//! `simctl` command line, as `adb shell simctl` does on the Android door. Not WDA's routes.

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::door::{Door, Reply, error, invalid};

impl Door {
    /// The virtual phone's own test hooks (`simctl`, as `adb shell simctl` runs them
    /// on the Android door): one `simctl` command line, nothing else.
    pub(super) fn simctl(&self, body: &Value) -> Reply {
        let args = body.get("args").and_then(Value::as_str).ok_or_else(|| invalid("'args' is required"))?;
        if args.contains([';', '|', '&', '`', '$', '\n', '<', '>']) {
            return Err(invalid("one simctl command line, without shell operators"));
        }
        match self.device.run_line(&format!("simctl {args}"), None) {
            crate::device::LineOutcome::Done(out) => Ok(json!({
                "stdout": String::from_utf8_lossy(&out.stdout),
                "stderr": String::from_utf8_lossy(&out.stderr),
                "code": out.code,
            })),
            _ => Err(error(StatusCode::INTERNAL_SERVER_ERROR, "unknown error", "simctl did not answer")),
        }
    }
}
