//! uiautomator2's on-device server as the virtual phone runs it: the JSON-RPC 2.0
//! service its Python client (and codeact) talks to on device port 9008, reached
//! only through the ADB transport (`tcp:9008`). Shapes as the server jar of
//! uiautomator2 3.x answers them: `GET /ping` is `pong`; `POST /jsonrpc/0` is always
//! HTTP 200 with `result` (null for void methods) or `error` — `-32700` unparsable
//! JSON (id null), `-32601` an unknown method, `-32602` bad parameters, `-32001` a
//! method that threw (message: the exception's class, data: its trace) —; any other
//! path is 404 `Not Found!!!`; the selector calls are `u2_selector.rs`'s. The
//! server runs while the `app_process` shell stream
//! that started it stays open (`commands/agents.rs`). Not the tree's content
//! (`page_source/uiautomator.rs`).

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{any, post};
use base64::Engine as _;
use serde_json::{Value, json};

use super::rpc_error::RpcError;
use crate::device::SimDevice;
use crate::device::agents::AgentFault;
use crate::page_source::uiautomator;

/// The longest gesture a call may hold the finger down (a click with a duration, a
/// swipe's steps).
const MOST_GESTURE_MS: u64 = 10_000;

pub(crate) fn router(device: Arc<SimDevice>) -> axum::Router {
    axum::Router::new()
        .route("/ping", any(|| async { "pong" }))
        .route("/jsonrpc/0", post(jsonrpc))
        .fallback(|| async { (StatusCode::NOT_FOUND, "Not Found!!!") })
        .with_state(device)
}

fn bad_params(method: &str) -> RpcError {
    RpcError(-32602, "method parameters invalid".into(), Some(format!("{method}: the parameters do not fit")))
}

fn reply(id: Value, outcome: Result<Value, RpcError>) -> Response {
    let body = match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(RpcError(code, message, data)) => {
            let mut error = json!({"code": code, "message": message});
            if let Some(data) = data {
                error["data"] = Value::String(data);
            }
            json!({"jsonrpc": "2.0", "id": id, "error": error})
        }
    };
    ([("content-type", "application/json")], body.to_string()).into_response()
}

async fn jsonrpc(State(device): State<Arc<SimDevice>>, body: Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return reply(Value::Null, Err(RpcError(-32700, "JSON parse error".into(), None)));
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let Some(method) = request.get("method").and_then(Value::as_str).map(str::to_string) else {
        return reply(id, Err(RpcError(-32600, "invalid request".into(), None)));
    };
    // Positional parameters as the client sends them; `{}` (no arguments) is none.
    let params: Vec<Value> = match request.get("params") {
        Some(Value::Array(items)) => items.clone(),
        _ => Vec::new(),
    };
    // Gestures sleep: keep them off the async workers.
    let outcome = tokio::task::spawn_blocking(move || call(&device, &method, &params))
        .await
        .unwrap_or_else(|_| Err(RpcError(-32001, "java.lang.RuntimeException".into(), None)));
    reply(id, outcome)
}

fn int(params: &[Value], i: usize) -> Option<i64> {
    params.get(i).and_then(|v| v.as_i64().or_else(|| v.as_f64().map(|f| f as i64)))
}

fn text(params: &[Value], i: usize) -> Option<&str> {
    params.get(i).and_then(Value::as_str)
}

/// Android's key codes for the names `pressKey` takes.
fn key_code(name: &str) -> Option<u32> {
    Some(match name.to_ascii_lowercase().as_str() {
        "home" => 3,
        "back" => 4,
        "up" => 19,
        "down" => 20,
        "left" => 21,
        "right" => 22,
        "center" => 23,
        "volume_up" => 24,
        "volume_down" => 25,
        "power" => 26,
        "camera" => 27,
        "menu" => 82,
        "search" => 84,
        "enter" => 66,
        "delete" | "del" => 67,
        "volume_mute" => 164,
        "recent" => 187,
        _ => return None,
    })
}

fn call(device: &SimDevice, method: &str, params: &[Value]) -> Result<Value, RpcError> {
    if let Some(answer) = super::u2_selector::call(device, method, params) {
        return answer;
    }
    match method {
        "ping" => Ok(json!("pong")),
        "deviceInfo" => Ok(device_info(device)),
        "dumpWindowHierarchy" => Ok(Value::String(match device.agents().fault().clone() {
            AgentFault::Stale { u2, .. } => u2,
            AgentFault::Empty => format!("{XML_HEAD}<hierarchy rotation=\"0\" />"),
            _ => hierarchy(device),
        })),
        "click" => {
            let (Some(x), Some(y)) = (int(params, 0), int(params, 1)) else { return Err(bad_params(method)) };
            if x < 0 || y < 0 {
                return Ok(json!(false));
            }
            let (x, y) = (x as i32, y as i32);
            match int(params, 2) {
                Some(ms) => hold(device, (x, y), (x, y), (ms.max(0) as u64).min(MOST_GESTURE_MS)),
                None => device.world().tap(x, y),
            }
            Ok(json!(true))
        }
        "swipe" | "drag" => {
            let coords: Option<Vec<i64>> = (0..4).map(|i| int(params, i)).collect();
            let Some(c) = coords else { return Err(bad_params(method)) };
            let steps = int(params, 4).unwrap_or(55).max(2) as u64;
            let ms = (steps * 5).min(MOST_GESTURE_MS);
            let (from, to) = ((c[0] as i32, c[1] as i32), (c[2] as i32, c[3] as i32));
            hold(device, from, to, ms);
            Ok(json!(true))
        }
        "pressKey" => {
            let Some(name) = text(params, 0) else { return Err(bad_params(method)) };
            Ok(json!(key_code(name).map(|code| device.world().key(code)).is_some()))
        }
        "pressKeyCode" => {
            let Some(code) = int(params, 0).filter(|c| (0..=400).contains(c)) else { return Err(bad_params(method)) };
            device.world().key(code as u32);
            Ok(json!(true))
        }
        "takeScreenshot" => {
            let quality = int(params, 1).unwrap_or(80).clamp(1, 100) as u8;
            let frame = device.frame();
            let rgb: Vec<u8> = frame.rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
            let mut jpeg = Vec::new();
            let encoded = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, quality).encode(
                &rgb,
                frame.width,
                frame.height,
                image::ExtendedColorType::Rgb8,
            );
            if encoded.is_err() {
                return Ok(Value::Null);
            }
            // As Android's Base64.DEFAULT writes it: a line break every 76 characters.
            let b64 = base64::engine::general_purpose::STANDARD.encode(jpeg);
            let lines: Vec<&str> = b64.as_bytes().chunks(76).filter_map(|c| std::str::from_utf8(c).ok()).collect();
            Ok(Value::String(lines.join("\n") + "\n"))
        }
        "setClipboard" => {
            let Some(value) = text(params, 1).or_else(|| text(params, 0)) else { return Err(bad_params(method)) };
            let mut world = device.world();
            world.write(crate::world::input::CLIPBOARD, crate::world::template::Value::Str(value.into()), &None);
            Ok(Value::Null)
        }
        "getClipboard" => {
            let world = device.world();
            Ok(world.read(crate::world::input::CLIPBOARD, &None).map_or(Value::Null, |v| json!(v.to_string())))
        }
        "pasteClipboard" => {
            let mut world = device.world();
            let clip = world.read(crate::world::input::CLIPBOARD, &None).map(|v| v.to_string()).unwrap_or_default();
            world.type_text(&clip);
            Ok(Value::Null)
        }
        "clearInputText" => {
            device.world().clear_text();
            Ok(Value::Null)
        }
        "wakeUp" | "sleep" | "freezeRotation" => Ok(Value::Null),
        _ => Err(RpcError(-32601, "method not found".into(), None)),
    }
}

/// The XML declaration the server's dumps begin with.
const XML_HEAD: &str = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\r\n";

/// The hierarchy as `dumpWindowHierarchy` answers it now.
pub(crate) fn hierarchy(device: &SimDevice) -> String {
    let xml = uiautomator::to_xml(&device.world().screen(), true);
    let body = xml.trim_start_matches(|c| c != '<');
    let body = body.strip_prefix("<?xml").map_or(body, |rest| rest.split_once("?>").map_or(rest, |(_, b)| b));
    format!("{XML_HEAD}{}", body.trim())
}

/// A finger down at `from`, up at `to` after `ms` (the world is not held meanwhile).
fn hold(device: &SimDevice, from: (i32, i32), to: (i32, i32), ms: u64) {
    let down = device.world().touch_down_at(from.0, from.1);
    std::thread::sleep(Duration::from_millis(ms));
    device.world().swipe_from(down, from, to, ms);
}

fn device_info(device: &SimDevice) -> Value {
    let world = device.world();
    let screen = world.screen();
    let dp = |px: u32| (px as f64 * 160.0 / screen.density.max(1) as f64).round() as u32;
    json!({
        "currentPackageName": world.foreground_package(),
        "displayHeight": screen.height,
        "displayRotation": 0,
        "displaySizeDpX": dp(screen.width),
        "displaySizeDpY": dp(screen.height),
        "displayWidth": screen.width,
        "productName": device.config().product.as_str(),
        "screenOn": true,
        "sdkInt": 34,
        "naturalOrientation": true,
    })
}
