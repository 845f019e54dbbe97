//! What a client does with an element it found: click, clear, type (`value`),
//! read its text, class (`name`), rectangle, attributes and states, its screenshot,
//! and the element with input focus (`element/active`). Each acts on the view at
//! the element's place now; a view gone is `stale element reference`. Not finding
//! (`find.rs`).

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::find::{no_such_element, reference, resolve};
use super::reply::{Reply, error, invalid};
use crate::device::SimDevice;
use crate::device::uia2_state::{ElementRef, descendants};
use crate::screen::Node;

/// One `element/:id/…` route, or `None` when it is not one.
pub(super) fn route(device: &SimDevice, method: &str, id: &str, what: &[&str], body: &Value) -> Option<Reply> {
    let screen = super::screen::page(device);
    let node = match resolve(device, &screen, id) {
        Ok((_, node)) => node.clone(),
        Err(e) => return Some(Err(e)),
    };
    drop(screen);
    let b = node.bounds;
    let flag = |v: bool| Value::String(if v { "true" } else { "false" }.into());
    Some(match (method, what) {
        ("POST", ["click"]) => {
            let (x, y) = centre(&node);
            device.world().tap(x, y);
            Ok(Value::Null)
        }
        ("POST", ["clear"]) => {
            focus(device, &node);
            device.world().clear_text();
            Ok(Value::Null)
        }
        ("POST", ["value"]) => type_into(device, &node, body),
        ("GET", ["text"]) => Ok(json!(shown_text(&node))),
        ("GET", ["name"]) => Ok(json!(node.class)),
        ("GET", ["rect"]) => Ok(json!({"x": b.left, "y": b.top, "width": b.width(), "height": b.height()})),
        ("GET", ["location"]) => Ok(json!({"x": b.left, "y": b.top})),
        ("GET", ["size"]) => Ok(json!({"width": b.width(), "height": b.height()})),
        ("GET", ["displayed"]) => Ok(json!(!b.is_empty())),
        ("GET", ["enabled"]) => Ok(json!(node.enabled)),
        ("GET", ["selected"]) => Ok(json!(node.selected || node.checked)),
        ("GET", ["attribute", name]) => Ok(attribute(&node, name).map_or(Value::Null, |v| match v {
            Attr::Text(t) => Value::String(t),
            Attr::Flag(f) => flag(f),
        })),
        ("GET", ["screenshot"]) => super::device::screenshot_of(device, Some(b)),
        _ => return None,
    })
}

/// `GET /element/active`: the view with input focus.
pub(super) fn active(device: &SimDevice) -> Reply {
    let screen = super::screen::page(device);
    let focused = descendants(&screen, None).into_iter().find(|(_, n)| n.focused);
    let (path, node) = focused.ok_or_else(|| no_such_element("no view has input focus"))?;
    Ok(reference(&device.agents().uia2.remember(ElementRef::new(path, node))))
}

fn centre(node: &Node) -> (i32, i32) {
    let b = node.bounds;
    ((b.left + b.right) / 2, (b.top + b.bottom) / 2)
}

/// Taps a view that has not the focus, as UiObject2.setText focuses its field.
fn focus(device: &SimDevice, node: &Node) {
    if !node.focused {
        let (x, y) = centre(node);
        device.world().tap(x, y);
    }
}

/// What `text` reads: the text, or an empty field's hint (as Android reports it).
fn shown_text(node: &Node) -> &str {
    if node.text.is_empty() { &node.hint } else { &node.text }
}

/// `POST element/:id/value`: `{"text"}` or `{"value": [chars]}`, appended to the
/// field's text unless `"replace": true`.
fn type_into(device: &SimDevice, node: &Node, body: &Value) -> Reply {
    let text = match (body.get("text").and_then(Value::as_str), body.get("value").and_then(Value::as_array)) {
        (Some(text), _) => text.to_string(),
        (None, Some(chars)) => chars.iter().filter_map(Value::as_str).collect(),
        _ => return Err(invalid("'text' or 'value' is required")),
    };
    if text.chars().count() > 100_000 {
        return Err(invalid("the text is longer than 100000 characters"));
    }
    let editable = node.class.contains("EditText") || node.class.contains("AutoCompleteTextView");
    if !editable && !node.focusable {
        return Err(error(
            StatusCode::BAD_REQUEST,
            "invalid element state",
            format!("Cannot set the element to '{text}'. Did you interact with the correct element?"),
        ));
    }
    focus(device, node);
    let mut world = device.world();
    if body.get("replace").and_then(Value::as_bool) == Some(true) {
        world.clear_text();
    }
    if !world.type_text(&text) {
        return Err(error(
            StatusCode::BAD_REQUEST,
            "invalid element state",
            format!("Cannot set the element to '{text}': it takes no text"),
        ));
    }
    Ok(Value::Null)
}

enum Attr {
    Text(String),
    Flag(bool),
}

/// An attribute by the names the server answers to (the page source's and their
/// camel-case forms).
fn attribute(node: &Node, name: &str) -> Option<Attr> {
    let b = node.bounds;
    Some(match name {
        "text" => Attr::Text(shown_text(node).to_string()),
        "content-desc" | "contentDescription" => Attr::Text(node.content_desc.clone()),
        "resource-id" | "resourceId" => Attr::Text(node.resource_id.clone()),
        "class" | "className" => Attr::Text(node.class.clone()),
        "package" => Attr::Text(node.package.clone()),
        "hint" => Attr::Text(node.hint.clone()),
        "bounds" => Attr::Text(format!("[{},{}][{},{}]", b.left, b.top, b.right, b.bottom)),
        "checkable" => Attr::Flag(node.checkable),
        "checked" => Attr::Flag(node.checked),
        "clickable" => Attr::Flag(node.clickable),
        "enabled" => Attr::Flag(node.enabled),
        "focusable" => Attr::Flag(node.focusable),
        "focused" => Attr::Flag(node.focused),
        "long-clickable" | "longClickable" => Attr::Flag(node.long_clickable),
        "password" => Attr::Flag(node.password),
        "scrollable" => Attr::Flag(node.scrollable),
        "selected" => Attr::Flag(node.selected),
        "displayed" => Attr::Flag(!b.is_empty()),
        _ => return None,
    })
}
