//! The session's device routes: page source, screenshots (PNG, base64), the
//! window's size, orientation, keys (`back`, `keys`, `press_keycode`,
//! `long_press_keycode`), the clipboard, the notification shade, device facts
//! (`appium/device/info`, `system_bars`, `pixel_ratio`, `display_density`,
//! `battery_info`) and alerts (there are none the server can see: `no such
//! alert`). Not elements nor gestures.

use axum::http::StatusCode;
use base64::Engine as _;
use serde_json::{Value, json};

use super::reply::{Reply, error, invalid};
use crate::device::SimDevice;
use crate::screen::Rect;
use crate::world::input::CLIPBOARD;
use crate::world::template::Value as WorldValue;

/// One device route, or `None` when it is not one.
pub(super) fn route(device: &SimDevice, method: &str, rest: &[&str], body: &Value) -> Option<Reply> {
    let screen = super::screen::page(device);
    let (width, height, density) = (screen.width, screen.height, screen.density.max(1));
    drop(screen);
    Some(match (method, rest) {
        ("GET", ["source"]) => Ok(json!(crate::page_source::uia2::to_xml(&super::screen::page(device)))),
        ("GET", ["screenshot"]) => screenshot_of(device, None),
        ("GET", ["window", _, "size"]) | ("POST", ["window", _, "size"]) => {
            Ok(json!({"width": width, "height": height}))
        }
        ("GET", ["window", "rect"]) => Ok(json!({"x": 0, "y": 0, "width": width, "height": height})),
        ("GET", ["orientation"]) => Ok(json!("PORTRAIT")),
        ("POST", ["orientation"]) => match body.get("orientation").and_then(Value::as_str) {
            Some(o) if o.eq_ignore_ascii_case("portrait") => Ok(Value::Null),
            _ => Err(error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "unsupported operation",
                "the virtual phone stays in portrait",
            )),
        },
        ("POST", ["back"]) => {
            device.world().key(4);
            Ok(Value::Null)
        }
        ("POST", ["keys"]) => {
            let text = match (body.get("text").and_then(Value::as_str), body.get("value").and_then(Value::as_array)) {
                (Some(t), _) => t.to_string(),
                (None, Some(chars)) => chars.iter().filter_map(Value::as_str).collect(),
                _ => return Some(Err(invalid("'text' or 'value' is required"))),
            };
            super::actions::type_keys(device, &text);
            Ok(Value::Null)
        }
        ("POST", ["appium", "device", "press_keycode" | "long_press_keycode"]) => {
            match body.get("keycode").and_then(Value::as_i64).filter(|c| (0..=400).contains(c)) {
                Some(code) => {
                    device.world().key(code as u32);
                    Ok(Value::Null)
                }
                None => Err(invalid("'keycode' must be an Android key code (0-400)")),
            }
        }
        ("POST", ["appium", "device", "get_clipboard"]) => {
            let text = device.world().read(CLIPBOARD, &None).map(|v| v.to_string()).unwrap_or_default();
            Ok(json!(base64::engine::general_purpose::STANDARD.encode(text)))
        }
        ("POST", ["appium", "device", "set_clipboard"]) => set_clipboard(device, body),
        ("POST", ["appium", "device", "open_notifications"]) => {
            let (x, h) = (width as i32 / 2, height as i32);
            device.world().swipe(x, 5, x, h * 2 / 3, 300);
            Ok(Value::Null)
        }
        ("GET", ["appium", "device", "info"]) => Ok(info(device, width, height, density)),
        ("GET", ["appium", "device", "pixel_ratio"]) => Ok(json!(f64::from(density) / 160.0)),
        ("GET", ["appium", "device", "display_density"]) => Ok(json!(density)),
        // The status bar's height in pixels, as the server reports it.
        ("GET", ["appium", "device", "system_bars"]) => Ok(json!({"statusBar": 24 * density / 160})),
        ("GET", ["appium", "device", "battery_info"]) => Ok(json!({"level": 1.0, "status": 5})),
        ("POST", ["appium", "reset_ax_cache"]) => Ok(Value::Null),
        ("GET", ["alert", "text"]) | ("POST", ["alert", "accept" | "dismiss"]) => Err(error(
            StatusCode::NOT_FOUND,
            "no such alert",
            "An attempt was made to operate on a modal dialog when one was not open",
        )),
        _ => return None,
    })
}

fn set_clipboard(device: &SimDevice, body: &Value) -> Reply {
    let content = body.get("content").and_then(Value::as_str).ok_or_else(|| invalid("'content' is required"))?;
    if body.get("contentType").and_then(Value::as_str).is_some_and(|t| t != "plaintext") {
        return Err(invalid("only plaintext goes on the virtual phone's clipboard"));
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(content.as_bytes())
        .map_err(|_| invalid("'content' must be base64"))?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    device.world().write(CLIPBOARD, WorldValue::Str(text), &None);
    Ok(Value::Null)
}

fn info(device: &SimDevice, width: u32, height: u32, density: u32) -> Value {
    let config = device.config();
    json!({
        "androidId": "c0dea c7a11d", "manufacturer": "codeact", "model": config.model, "brand": "codeact",
        "apiVersion": "34", "platformVersion": "14", "carrierName": "", "realDisplaySize": format!("{width}x{height}"),
        "displayDensity": density, "locale": "en_US", "timeZone": "UTC", "bluetooth": {"state": "OFF"},
        "networks": [],
    })
}

/// The screen (or the part `within` it) as a base64 PNG.
pub(super) fn screenshot_of(device: &SimDevice, within: Option<Rect>) -> Reply {
    let frame = device.frame();
    let frame = match within {
        None => frame,
        Some(r) => {
            let (w, h) = (frame.width as i32, frame.height as i32);
            let r = r.intersect(&Rect::new(0, 0, w, h));
            if r.is_empty() {
                return Err(error(
                    StatusCode::BAD_REQUEST,
                    "invalid element state",
                    "the element is not on the screen",
                ));
            }
            let mut rgba = Vec::with_capacity((r.width() * r.height() * 4) as usize);
            for y in r.top..r.bottom {
                let start = ((y * w + r.left) * 4) as usize;
                rgba.extend_from_slice(frame.rgba.get(start..start + (r.width() * 4) as usize).unwrap_or(&[]));
            }
            crate::render::Frame { width: r.width() as u32, height: r.height() as u32, rgba }
        }
    };
    let png = crate::render::encode_png(&frame)
        .map_err(|e| error(StatusCode::INTERNAL_SERVER_ERROR, "unknown error", e.to_string()))?;
    Ok(json!(base64::engine::general_purpose::STANDARD.encode(png)))
}
