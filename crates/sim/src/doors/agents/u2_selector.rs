//! uiautomator2's selector calls as its server answers them: a selector is the
//! client's `Selector` dict (`mask` — one bit per field the client set — and the
//! fields: `text`, `textContains`, `textMatches`, `textStartsWith`, `className`,
//! `classNameMatches`, `description…`, `resourceId…`, `packageName…`, the boolean
//! states, `index`, `instance`). `exist`, `count`, `objInfo`,
//! `objInfoOfAllInstances`, `waitForExists`, `waitUntilGone`, `getText`, `setText`,
//! `clearTextField` and `click` on a selector; a selector that finds nothing where
//! one object is needed is the server's `UiObjectNotFoundException` (-32002). Child
//! and sibling chains (`childOrSibling`) are refused as bad parameters. Not the
//! coordinate calls (`u2.rs`).

use std::time::{Duration, Instant};

use appium_locators::uiselector::View;
use serde_json::{Value, json};

use super::rpc_error::RpcError;
use crate::device::SimDevice;
use crate::screen::Node;

/// The longest a wait call may wait.
const MOST_WAIT_MS: u64 = 10_000;

/// The selector fields with their mask bits, as the client's `Selector` declares them.
pub(super) const FIELDS: &[(&str, u64)] = &[
    ("text", 0x01),
    ("textContains", 0x02),
    ("textMatches", 0x04),
    ("textStartsWith", 0x08),
    ("className", 0x10),
    ("classNameMatches", 0x20),
    ("description", 0x40),
    ("descriptionContains", 0x80),
    ("descriptionMatches", 0x0100),
    ("descriptionStartsWith", 0x0200),
    ("checkable", 0x0400),
    ("checked", 0x0800),
    ("clickable", 0x1000),
    ("longClickable", 0x2000),
    ("scrollable", 0x4000),
    ("enabled", 0x8000),
    ("focusable", 0x01_0000),
    ("focused", 0x02_0000),
    ("selected", 0x04_0000),
    ("packageName", 0x08_0000),
    ("packageNameMatches", 0x10_0000),
    ("resourceId", 0x20_0000),
    ("resourceIdMatches", 0x40_0000),
    ("index", 0x80_0000),
    ("instance", 0x0100_0000),
];

/// A parsed selector: appium-locators' own, matched against the screen's views.
pub(super) use appium_locators::uiselector::Selector;

/// A view as a selector sees it.
pub(super) struct Seen<'a>(pub(super) &'a Node);

impl View for Seen<'_> {
    fn text(&self) -> &str {
        &self.0.text
    }
    fn class(&self) -> &str {
        &self.0.class
    }
    fn description(&self) -> &str {
        &self.0.content_desc
    }
    fn package(&self) -> &str {
        &self.0.package
    }
    fn resource_id(&self) -> &str {
        &self.0.resource_id
    }
    fn state(&self, name: &str) -> bool {
        let node = self.0;
        match name {
            "checkable" => node.checkable,
            "checked" => node.checked,
            "clickable" => node.clickable,
            "longClickable" => node.long_clickable,
            "scrollable" => node.scrollable,
            "enabled" => node.enabled,
            "focusable" => node.focusable,
            "focused" => node.focused,
            _ => node.selected,
        }
    }
}

fn bad(method: &str) -> RpcError {
    RpcError(-32602, "method parameters invalid".into(), Some(format!("{method}: the selector does not fit")))
}

fn not_found(selector: &Value) -> RpcError {
    RpcError(
        -32002,
        "androidx.test.uiautomator.UiObjectNotFoundException".into(),
        Some(format!("UiSelector[{}]", selector)),
    )
}

/// A selector from the client's `Selector` dict (`method` names the call in errors).
pub(super) fn parse(method: &str, value: Option<&Value>) -> Result<Selector, RpcError> {
    let Some(Value::Object(fields)) = value else { return Err(bad(method)) };
    let mask = fields.get("mask").and_then(Value::as_u64).unwrap_or(0);
    let chained = fields.get("childOrSibling").and_then(Value::as_array).is_some_and(|c| !c.is_empty());
    if chained {
        return Err(bad(method));
    }
    // Only the fields the mask says the client set.
    let mut set = serde_json::Map::new();
    for &(name, bit) in FIELDS {
        if mask & bit == 0 {
            continue;
        }
        set.insert(name.into(), fields.get(name).ok_or_else(|| bad(method))?.clone());
    }
    Selector::compile(&set).map_err(|_| bad(method))
}

/// A node a selector found (without its children) and how many children it has.
struct Found {
    node: Node,
    children: usize,
}

/// Every node the selector's conditions accept, in document order over all windows.
fn found(device: &SimDevice, selector: &Selector) -> Vec<Found> {
    fn walk(node: &Node, index: usize, selector: &Selector, out: &mut Vec<Found>) {
        let children: Vec<&Node> = node.children.iter().filter(|c| c.in_page_source()).collect();
        if selector.accepts(&Seen(node), index) {
            let bare = Node { children: Vec::new(), ..node.clone() };
            out.push(Found { node: bare, children: children.len() });
        }
        for (i, child) in children.into_iter().enumerate() {
            walk(child, i, selector, out);
        }
    }
    let screen = device.world().screen();
    let mut out = Vec::new();
    for window in screen.windows.iter().filter(|w| w.in_page_source()) {
        walk(window, 0, selector, &mut out);
    }
    out
}

/// The one object a selector names (its `instance`-th match).
fn the_one(device: &SimDevice, selector: &Selector) -> Option<Found> {
    found(device, selector).into_iter().nth(selector.instance().unwrap_or(0))
}

/// `objInfo`'s dict for a found node.
fn info(found: &Found) -> Value {
    let node = &found.node;
    let b = node.bounds;
    let bounds = json!({"left": b.left, "top": b.top, "right": b.right, "bottom": b.bottom});
    json!({
        "bounds": bounds,
        "visibleBounds": bounds,
        "childCount": found.children,
        "className": node.class,
        "contentDescription": if node.content_desc.is_empty() { Value::Null } else { json!(node.content_desc) },
        "packageName": node.package,
        "resourceName": if node.resource_id.is_empty() { Value::Null } else { json!(node.resource_id) },
        "text": node.text,
        "checkable": node.checkable,
        "checked": node.checked,
        "clickable": node.clickable,
        "enabled": node.enabled,
        "focusable": node.focusable,
        "focused": node.focused,
        "longClickable": node.long_clickable,
        "scrollable": node.scrollable,
        "selected": node.selected,
    })
}

fn centre(node: &Node) -> (i32, i32) {
    let b = node.bounds;
    ((b.left + b.right) / 2, (b.top + b.bottom) / 2)
}

/// Answers a selector call, or `None` when `method` is not one.
pub(crate) fn call(device: &SimDevice, method: &str, params: &[Value]) -> Option<Result<Value, RpcError>> {
    let raw = params.first().cloned().unwrap_or(Value::Null);
    let selector = || parse(method, params.first());
    let wait_ms = || params.get(1).and_then(Value::as_u64).unwrap_or(0).min(MOST_WAIT_MS);
    Some(match method {
        "exist" => selector().map(|s| json!(the_one(device, &s).is_some())),
        "count" => selector().map(|s| json!(found(device, &s).len())),
        "objInfo" => selector().and_then(|s| the_one(device, &s).map(|f| info(&f)).ok_or_else(|| not_found(&raw))),
        "objInfoOfAllInstances" => selector().map(|s| Value::Array(found(device, &s).iter().map(info).collect())),
        "waitForExists" | "waitUntilGone" => selector().map(|s| {
            let want = method == "waitForExists";
            let until = Instant::now() + Duration::from_millis(wait_ms());
            loop {
                if the_one(device, &s).is_some() == want {
                    break json!(true);
                }
                if Instant::now() >= until {
                    break json!(false);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }),
        "getText" => {
            selector().and_then(|s| the_one(device, &s).map(|f| json!(f.node.text)).ok_or_else(|| not_found(&raw)))
        }
        "click" if params.first().is_some_and(Value::is_object) => selector().and_then(|s| {
            let found = the_one(device, &s).ok_or_else(|| not_found(&raw))?;
            let (x, y) = centre(&found.node);
            device.world().tap(x, y);
            Ok(json!(true))
        }),
        "setText" | "clearTextField" => selector().and_then(|s| {
            let found = the_one(device, &s).ok_or_else(|| not_found(&raw))?;
            let (x, y) = centre(&found.node);
            let mut world = device.world();
            // UiObject.setText focuses the field, then replaces its text.
            world.tap(x, y);
            world.clear_text();
            let typed = match params.get(1).and_then(Value::as_str) {
                Some(text) if method == "setText" => world.type_text(text),
                _ => true,
            };
            Ok(json!(typed))
        }),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_are_read_by_their_mask() {
        let value = json!({"mask": 0x01 | 0x0100_0000, "childOrSibling": [], "childOrSiblingSelector": [], "text": "Wi-Fi", "instance": 1, "className": "ignored"});
        let s = parse("exist", Some(&value)).unwrap();
        assert_eq!(s.instance(), Some(1));
        let node = Node { text: "Wi-Fi".into(), class: "android.widget.TextView".into(), ..Default::default() };
        assert!(s.accepts(&Seen(&node), 0), "the class is not in the mask: ignored");
        let pattern = json!({"mask": 0x04 | 0x20, "textMatches": "Wi.*", "classNameMatches": ".*Text.*"});
        let s = parse("exist", Some(&pattern)).unwrap();
        assert!(s.accepts(&Seen(&node), 0));
        let partial = json!({"mask": 0x04, "textMatches": "Wi"});
        let s = parse("exist", Some(&partial)).unwrap();
        assert!(!s.accepts(&Seen(&node), 0), "a whole-text match, as Java's");
        assert!(parse("exist", Some(&json!({"mask": 0x01}))).is_err(), "a masked field must be there");
        assert!(parse("exist", Some(&json!({"mask": 0, "childOrSibling": ["child"]}))).is_err());
        assert!(parse("exist", Some(&json!({"mask": 0x04, "textMatches": "("}))).is_err());
        assert!(parse("exist", Some(&json!("text"))).is_err());
    }
}
