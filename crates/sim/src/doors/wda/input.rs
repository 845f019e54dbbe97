//! The routes that type and press: `/wda/keys`, `/wda/homescreen`, `/wda/pressButton`,
//! `/wda/keyboard/dismiss` and the pasteboard (`/wda/getPasteboard`, `/wda/setPasteboard`,
//! plain text only). Not touches (`gestures`).

use adb_wire::keycodes;
use axum::http::StatusCode;
use serde_json::Value;

use super::door::{Door, Reply, WdaError, error, invalid};

impl Door {
    pub(super) fn keys(&self, body: &Value) -> Reply {
        let text: String = match body.get("value") {
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
            Some(Value::String(s)) => s.clone(),
            _ => return Err(invalid("'value' is required")),
        };
        let mut world = self.device.world();
        if world.focus.is_none() {
            return Err(error(
                StatusCode::BAD_REQUEST,
                "invalid element state",
                "The on-screen keyboard must be present to send keys",
            ));
        }
        // A newline is the return key; a backspace deletes.
        let mut run = String::new();
        for c in text.chars() {
            let key = match c {
                '\n' | '\r' => Some(keycodes::ENTER),
                '\u{8}' | '\u{7f}' => Some(keycodes::DEL),
                _ => None,
            };
            match key {
                Some(code) => {
                    world.type_text(&std::mem::take(&mut run));
                    world.key(code);
                }
                None => run.push(c),
            }
        }
        world.type_text(&run);
        Ok(Value::Null)
    }

    pub(super) fn home(&self) -> Reply {
        self.device.world().go_home();
        Ok(Value::Null)
    }

    pub(super) fn press_button(&self, body: &Value) -> Reply {
        match body.get("name").and_then(Value::as_str) {
            Some("home") => self.home(),
            Some("volumeUp" | "volumeDown" | "action") => Ok(Value::Null),
            Some(other) => Err(invalid(format!(
                "The button '{other}' is unknown. Only the following button names are supported: home, volumeUp, volumeDown"
            ))),
            None => Err(invalid("'name' is required")),
        }
    }

    /// `POST /wda/getPasteboard`: the clipboard's text, base64 (plain text only).
    pub(super) fn pasteboard(&self, body: &Value) -> Reply {
        plain_text_only(body)?;
        let world = self.device.world();
        let text = world.read(crate::world::CLIPBOARD, &None).map(|v| v.to_string()).unwrap_or_default();
        Ok(Value::String(base64::Engine::encode(&base64::engine::general_purpose::STANDARD, text)))
    }

    /// `POST /wda/setPasteboard`: `content` (base64) onto the clipboard.
    pub(super) fn set_pasteboard(&self, body: &Value) -> Reply {
        plain_text_only(body)?;
        let content = body.get("content").and_then(Value::as_str).ok_or_else(|| invalid("'content' is required"))?;
        let bytes = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, content.trim())
            .map_err(|e| invalid(format!("'content' is not base64: {e}")))?;
        let text = String::from_utf8(bytes).map_err(|_| invalid("the pasteboard takes UTF-8 text"))?;
        self.device.world().write(crate::world::CLIPBOARD, crate::world::Value::Str(text), &None);
        Ok(Value::Null)
    }

    pub(super) fn dismiss_keyboard(&self) -> Reply {
        let mut world = self.device.world();
        if !world.keyboard_shown {
            return Err(error(StatusCode::BAD_REQUEST, "invalid element state", "The keyboard is not present"));
        }
        world.key(keycodes::BACK);
        Ok(Value::Null)
    }
}

/// The virtual phone's clipboard holds text: `contentType` must be `plaintext`
/// (WDA's default).
fn plain_text_only(body: &Value) -> Result<(), WdaError> {
    match body.get("contentType").and_then(Value::as_str) {
        None | Some("plaintext") => Ok(()),
        Some(other) => Err(invalid(format!("the virtual phone's pasteboard holds plaintext only, not {other}"))),
    }
}
