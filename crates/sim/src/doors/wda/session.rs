//! The WDA server's own routes: `/status`, `/session` (create, read, delete: one active
//! session at a time, ids like WDA's UUIDs) and `/wda/device/info`. Not what a session
//! drives (the other route groups).

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::door::{Door, Reply, error};
use super::lock;

impl Door {
    pub(super) fn status(&self) -> Value {
        json!({
            "ready": true,
            "message": "WebDriverAgent is ready to accept commands",
            "state": "success",
            "os": {"name": "iOS", "version": "17.4", "sdkVersion": "17.4", "testmanagerdVersion": 65535},
            "ios": {"ip": null},
            "build": {"time": "Nov 26 2026 00:00:00", "productBundleIdentifier": "com.facebook.WebDriverAgentRunner", "version": "16.7.0"},
            "device": "iphone",
        })
    }

    pub(super) fn new_session(&self, body: &Value) -> Reply {
        let caps = body.get("capabilities").ok_or_else(|| {
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "session not created",
                "'capabilities' is mandatory to create a new session",
            )
        })?;
        let bundle = caps.pointer("/alwaysMatch/bundleId").and_then(Value::as_str);
        if let Some(bundle) = bundle {
            self.launch(&json!({"bundleId": bundle}))
                .map_err(|e| error(StatusCode::INTERNAL_SERVER_ERROR, "session not created", e.message))?;
        }
        let id = session_id();
        *lock(&self.session) = Some(id.clone());
        Ok(json!({"sessionId": id, "capabilities": {"device": "iphone", "sdkVersion": "17.4"}}))
    }

    pub(super) fn session_info(&self, id: &str) -> Reply {
        match self.active() {
            Some(active) if active == id => {
                Ok(json!({"sessionId": id, "capabilities": {"device": "iphone", "sdkVersion": "17.4"}}))
            }
            _ => Err(error(StatusCode::NOT_FOUND, "invalid session id", "Session does not exist")),
        }
    }

    pub(super) fn end_session(&self, id: &str) -> Reply {
        let mut session = lock(&self.session);
        if session.as_deref() != Some(id) {
            return Err(error(StatusCode::NOT_FOUND, "invalid session id", "Session does not exist"));
        }
        *session = None;
        Ok(Value::Null)
    }

    pub(super) fn device_info(&self) -> Value {
        json!({
            "currentLocale": "en_US", "timeZone": "UTC", "name": self.device.config().model,
            "model": "iPhone", "uuid": self.device.config().serial, "userInterfaceIdiom": 0,
            "userInterfaceStyle": "light", "isSimulator": true, "thermalState": 0,
        })
    }
}

/// A new session id, upper-case like WDA's UUIDs.
fn session_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    format!(
        "{:08X}-{:04X}-4{:03X}-A{:03X}-{:012X}",
        (t >> 32) as u32,
        (t >> 16) as u16,
        n & 0xfff,
        (t & 0xfff) as u16,
        n
    )
}
