//! The mobilerun (ex-DroidRun) Portal as the virtual phone runs it: the HTTP server
//! its accessibility service opens on device port 8080 (reached only through the
//! ADB transport, `tcp:8080`, as `adb forward` and its clients do), and its content
//! provider (`commands/content.rs`). Shapes as the Portal app answers them: every
//! reply is HTTP 200 with `{"status":"success","data":…}` or
//! `{"status":"error","error":…}`; `data` is a JSON text for the tree and state
//! endpoints. `/state` and `/a11y_tree` give the Portal's indexed element list (the
//! active window's on-screen nodes larger than 5 px, the text falling back to the
//! description, the id's name, then the class; bounds `"l, t, r, b"`), what
//! DroidRun 0.3.x reads; `/a11y_tree_full` every node with its flags, and
//! `/phone_state` the app, activity, keyboard and focus. With a token set (newer
//! Portals always have one) every path but `/ping` needs `Authorization: Bearer
//! TOKEN` and answers 401 `Unauthorized` without it. `POST /action/tap|swipe|global`
//! and `/keyboard/input|clear|key` act (the keyboard ones while the Portal's input
//! method is the phone's), `/screenshot` is a PNG. Not the screen's content
//! (`screen.rs`).

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use serde_json::{Value, json};

use crate::device::SimDevice;
use crate::device::agents::AgentFault;
use crate::screen::Node;
use crate::world::PORTAL_IME;

/// The Portal app's version string (`/version`).
const PORTAL_VERSION: &str = "0.3.2";
/// Smaller nodes are left out of the indexed list, as the Portal does.
const MIN_ELEMENT_SIZE: i32 = 5;
/// The longest swipe a call may hold.
const MOST_GESTURE_MS: u64 = 10_000;

pub(crate) fn router(device: Arc<SimDevice>) -> axum::Router {
    axum::Router::new().fallback(serve).with_state(device)
}

fn success(data: Value) -> Response {
    reply(StatusCode::OK, json!({"status": "success", "data": data}))
}

fn error(message: &str) -> Response {
    reply(StatusCode::OK, json!({"status": "error", "error": message}))
}

fn reply(status: StatusCode, body: Value) -> Response {
    (status, [("content-type", "application/json"), ("connection", "close")], body.to_string()).into_response()
}

async fn serve(State(device): State<Arc<SimDevice>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let path = parts.uri.path().to_string();
    let query = parts.uri.query().unwrap_or("").to_string();
    if path != "/ping"
        && let Some(token) = device.agents().portal_token()
    {
        let given = parts
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().trim_start_matches("Bearer ").trim().to_string());
        if given.as_deref() != Some(token.as_str()) {
            return reply(StatusCode::UNAUTHORIZED, json!({"status": "error", "error": "Unauthorized"}));
        }
    }
    let Ok(body) = axum::body::to_bytes(body, 1024 * 1024).await else {
        return (StatusCode::BAD_REQUEST, "Bad Request").into_response();
    };
    let method = parts.method.as_str().to_string();
    let device2 = device.clone();
    tokio::task::spawn_blocking(move || match method.as_str() {
        "GET" => get(&device2, &path, &query),
        "POST" => post(&device2, &path, &body),
        other => error(&format!("Method not allowed: {other}")),
    })
    .await
    .unwrap_or_else(|_| error("Internal server error"))
}

fn get(device: &SimDevice, path: &str, query: &str) -> Response {
    match path {
        "/ping" => success(json!("pong")),
        "/version" => success(json!(PORTAL_VERSION)),
        "/state" => success(Value::String(state_json(device).to_string())),
        "/a11y_tree" => success(Value::String(Value::Array(indexed_tree(device)).to_string())),
        "/a11y_tree_full" => {
            let filter = !query.split('&').any(|p| p == "filter=false");
            let tree = match device.agents().fault().clone() {
                AgentFault::Stale { portal, .. } => portal,
                AgentFault::Empty => None,
                _ => full_tree(device, filter),
            };
            match tree {
                Some(tree) => success(Value::String(tree.to_string())),
                None => error("No active window available"),
            }
        }
        "/phone_state" => success(Value::String(phone_state(device).to_string())),
        // A PNG of the screen, base64 (the Portal hides its overlay first; the
        // virtual phone draws none).
        "/screenshot" => match crate::render::encode_png(&device.frame()) {
            Ok(png) => success(json!(base64::engine::general_purpose::STANDARD.encode(png))),
            Err(e) => error(&format!("Screenshot failed: {e}")),
        },
        other => error(&format!("Unknown endpoint: {other}")),
    }
}

fn post(device: &SimDevice, path: &str, body: &Bytes) -> Response {
    let params: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let int = |key: &str, default: i64| params.get(key).and_then(Value::as_i64).unwrap_or(default);
    match path.trim_start_matches("/action/").trim_start_matches('/') {
        "tap" => {
            device.world().tap(int("x", 0) as i32, int("y", 0) as i32);
            success(json!("Tap performed"))
        }
        "swipe" => {
            let from = (int("startX", 0) as i32, int("startY", 0) as i32);
            let to = (int("endX", 0) as i32, int("endY", 0) as i32);
            let ms = (int("duration", 300).max(0) as u64).min(MOST_GESTURE_MS);
            let down = device.world().touch_down_at(from.0, from.1);
            std::thread::sleep(Duration::from_millis(ms));
            device.world().swipe_from(down, from, to, ms);
            success(json!("Swipe performed"))
        }
        "global" => {
            // AccessibilityService's GLOBAL_ACTION_BACK, _HOME, _RECENTS.
            let code = match int("action", 0) {
                1 => 4,
                2 => 3,
                3 => 187,
                _ => return error("Unknown global action"),
            };
            device.world().key(code);
            success(json!("Global action performed"))
        }
        // The keyboard endpoints type through the Portal's own input method, which
        // exists only while it is the phone's current one (`ime set`, as
        // DroidRun's setup_keyboard does).
        "keyboard/input" | "keyboard/clear" | "keyboard/key" if device.world().ime != PORTAL_IME => {
            error("No input connection available - keyboard may not be focused on an input field")
        }
        "keyboard/input" => {
            let text = params.get("base64_text").and_then(Value::as_str).unwrap_or("");
            let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(text.trim()) else {
                return error("Invalid base64 encoding");
            };
            let text = String::from_utf8_lossy(&bytes).into_owned();
            if device.world().type_text(&text) {
                success(json!(format!("Text input via keyboard - '{text}'")))
            } else {
                error("No input connection available - keyboard may not be focused on an input field")
            }
        }
        "keyboard/clear" => {
            if device.world().clear_text() {
                success(json!("Text cleared via keyboard"))
            } else {
                error("No input connection available - keyboard may not be focused on an input field")
            }
        }
        "keyboard/key" => {
            let code = int("key_code", 0);
            if !(1..=400).contains(&code) {
                return error("No key_code provided");
            }
            device.world().key(code as u32);
            success(json!(format!("Key event sent via keyboard - code: {code}")))
        }
        _ => error(&format!("Unknown POST endpoint: {path}")),
    }
}

/// The active window's root node, as `rootInActiveWindow` gives it.
fn active_root(device: &SimDevice) -> Option<Node> {
    let screen = device.world().screen();
    screen.windows.get(screen.active).cloned()
}

/// `{"a11y_tree": [...], "phone_state": {...}}`: what `/state` carries.
pub(crate) fn state_json(device: &SimDevice) -> Value {
    json!({"a11y_tree": indexed_tree(device), "phone_state": phone_state(device)})
}

/// The Portal's indexed element list: each qualifying node with its qualifying
/// descendants as children; a node that does not qualify cuts off its subtree.
pub(crate) fn indexed_tree(device: &SimDevice) -> Vec<Value> {
    fn walk(node: &Node, next: &mut u32, screen: (i32, i32)) -> Option<Value> {
        let b = node.bounds;
        let on_screen = b.right > 0 && b.bottom > 0 && b.left < screen.0 && b.top < screen.1;
        if !on_screen || b.right - b.left <= MIN_ELEMENT_SIZE || b.bottom - b.top <= MIN_ELEMENT_SIZE {
            return None;
        }
        let class = node.class.rsplit('.').next().unwrap_or("").to_string();
        let id_name = node.resource_id.rsplit('/').next().unwrap_or("");
        let text = [accessibility_text(node), node.content_desc.as_str(), id_name, class.as_str()]
            .into_iter()
            .find(|t| !t.is_empty())
            .unwrap_or("")
            .to_string();
        let index = *next;
        *next += 1;
        let children: Vec<Value> =
            node.children.iter().filter(|c| c.in_page_source()).filter_map(|c| walk(c, next, screen)).collect();
        Some(json!({
            "index": index,
            "resourceId": node.resource_id,
            "className": class,
            "text": text,
            "bounds": format!("{}, {}, {}, {}", b.left, b.top, b.right, b.bottom),
            "children": children,
        }))
    }
    let size = {
        let screen = device.world().screen();
        (screen.width as i32, screen.height as i32)
    };
    let mut next = 1;
    active_root(device).and_then(|root| walk(&root, &mut next, size)).into_iter().collect()
}

/// A node's text as accessibility reports it: an empty field's is its hint
/// (`TextView.getTextForAccessibility`), as in `uiautomator dump`.
fn accessibility_text(node: &Node) -> &str {
    if node.text.is_empty() { &node.hint } else { &node.text }
}

/// Every node of the active window with its flags (`/a11y_tree_full`); `filter`
/// leaves out nodes wholly off screen.
pub(crate) fn full_tree(device: &SimDevice, filter: bool) -> Option<Value> {
    fn node_json(node: &Node, filter: bool, screen: (i32, i32)) -> Option<Value> {
        let b = node.bounds;
        let on_screen = b.right > 0 && b.bottom > 0 && b.left < screen.0 && b.top < screen.1;
        if filter && !on_screen {
            return None;
        }
        let children: Vec<Value> =
            node.children.iter().filter(|c| c.in_page_source()).filter_map(|c| node_json(c, filter, screen)).collect();
        Some(json!({
            "resourceId": node.resource_id,
            "className": node.class,
            "packageName": node.package,
            "text": accessibility_text(node),
            "contentDescription": node.content_desc,
            "hint": node.hint,
            "boundsInScreen": {"left": b.left, "top": b.top, "right": b.right, "bottom": b.bottom},
            "isClickable": node.clickable,
            "isLongClickable": node.long_clickable,
            "isFocusable": node.focusable,
            "isFocused": node.focused,
            "isSelected": node.selected,
            "isCheckable": node.checkable,
            "isChecked": node.checked,
            "isEnabled": node.enabled,
            "isVisibleToUser": on_screen,
            "isEditable": node.class.ends_with("EditText"),
            "isPassword": node.password,
            "isScrollable": node.scrollable,
            "childCount": children.len(),
            "children": children,
        }))
    }
    let size = {
        let screen = device.world().screen();
        (screen.width as i32, screen.height as i32)
    };
    active_root(device).and_then(|root| node_json(&root, filter, size))
}

/// The app in front, its activity, the keyboard and the focused field.
pub(crate) fn phone_state(device: &SimDevice) -> Value {
    let world = device.world();
    let package = world.foreground_package();
    let label = world.top().map(|(app, _, _)| app.label.clone()).unwrap_or_default();
    let activity = world.activity();
    let keyboard = world.keyboard_shown;
    drop(world);
    let focused = active_root(device).and_then(|root| find_focused(&root).cloned());
    json!({
        "currentApp": label,
        "packageName": package,
        "activityName": activity,
        "keyboardVisible": keyboard,
        "isEditable": focused.as_ref().is_some_and(|f| f.class.ends_with("EditText")),
        "focusedElement": {
            "text": focused.as_ref().map(|f| f.text.clone()),
            "className": focused.as_ref().map(|f| f.class.clone()),
            "resourceId": focused.as_ref().map(|f| f.resource_id.clone()).unwrap_or_default(),
        },
    })
}

fn find_focused(node: &Node) -> Option<&Node> {
    if node.focused {
        return Some(node);
    }
    node.children.iter().find_map(find_focused)
}
