//! The mobilerun Portal's full accessibility tree (`/a11y_tree_full`: one JSON
//! object per node, `boundsInScreen` and `isClickable`-style flags) written as the
//! uiautomator hierarchy XML `ui::parse` reads, so that a tree from the Portal
//! becomes the same `UiTree` a dump does. Nodes past a cap are dropped (a hostile
//! agent cannot make the tree unbounded; JSON nesting is already bounded by the
//! parser). Not the Portal's protocol (`portal.rs`).

use std::fmt::Write as _;

use serde_json::Value;

/// At most this many nodes are taken from one tree.
const MOST_NODES: usize = 20_000;

/// The hierarchy XML for the Portal's tree rooted at `root`.
pub(super) fn to_hierarchy_xml(root: &Value) -> String {
    let mut out = String::with_capacity(16 * 1024);
    out.push_str("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">");
    let mut count = 0;
    if root.is_object() {
        write_node(&mut out, root, 0, &mut count);
    }
    out.push_str("</hierarchy>");
    out
}

fn write_node(out: &mut String, node: &Value, index: usize, count: &mut usize) {
    *count += 1;
    let text = |key: &str| node.get(key).and_then(Value::as_str).unwrap_or("");
    let flag = |key: &str| node.get(key).and_then(Value::as_bool).unwrap_or(false);
    let bound = |key: &str| node.get("boundsInScreen").and_then(|b| b.get(key)).and_then(Value::as_i64).unwrap_or(0);
    let _ = write!(out, "<node index=\"{index}\"");
    for (name, key) in [
        ("text", "text"),
        ("resource-id", "resourceId"),
        ("class", "className"),
        ("package", "packageName"),
        ("content-desc", "contentDescription"),
        ("hint", "hint"),
    ] {
        attr(out, name, text(key));
    }
    for (name, key) in [
        ("checkable", "isCheckable"),
        ("checked", "isChecked"),
        ("clickable", "isClickable"),
        // The Portal's JSON leaves `isEnabled` out nowhere, but a missing one is
        // read as enabled, as uiautomator does.
        ("focusable", "isFocusable"),
        ("focused", "isFocused"),
        ("scrollable", "isScrollable"),
        ("long-clickable", "isLongClickable"),
        ("password", "isPassword"),
        ("selected", "isSelected"),
    ] {
        attr(out, name, if flag(key) { "true" } else { "false" });
    }
    let enabled = node.get("isEnabled").and_then(Value::as_bool).unwrap_or(true);
    attr(out, "enabled", if enabled { "true" } else { "false" });
    let visible = node.get("isVisibleToUser").and_then(Value::as_bool).unwrap_or(true);
    attr(out, "visible-to-user", if visible { "true" } else { "false" });
    let bounds = format!("[{},{}][{},{}]", bound("left"), bound("top"), bound("right"), bound("bottom"));
    attr(out, "bounds", &bounds);
    let children: Vec<&Value> = node
        .get("children")
        .and_then(Value::as_array)
        .map(|c| c.iter().filter(|n| n.is_object()).collect())
        .unwrap_or_default();
    if children.is_empty() || *count >= MOST_NODES {
        out.push_str(" />");
        return;
    }
    out.push('>');
    for (i, child) in children.into_iter().enumerate() {
        if *count >= MOST_NODES {
            break;
        }
        write_node(out, child, i, count);
    }
    out.push_str("</node>");
}

/// ` name="value"`, escaped for XML.
fn attr(out: &mut String, name: &str, value: &str) {
    let _ = write!(out, " {name}=\"");
    codeact_base::xml::push_attribute(out, value);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_portals_tree_reads_as_a_dump() {
        let root = serde_json::json!({
            "className": "android.widget.FrameLayout", "packageName": "com.android.settings",
            "boundsInScreen": {"left": 0, "top": 0, "right": 1080, "bottom": 2400}, "isEnabled": true,
            "children": [
                {"className": "android.widget.Switch", "packageName": "com.android.settings",
                 "resourceId": "com.android.settings:id/wifi_switch", "text": "<Wi-Fi & \"more\">\u{1}",
                 "isCheckable": true, "isChecked": true, "isClickable": true, "isEnabled": true,
                 "boundsInScreen": {"left": 800, "top": 100, "right": 1000, "bottom": 200}, "children": []},
                "not a node"
            ]
        });
        let xml = to_hierarchy_xml(&root);
        let tree = crate::ui::parse(xml.as_bytes(), (1080, 2400)).expect("parses");
        assert_eq!(tree.elements.len(), 2);
        let switch = &tree.elements[1];
        assert!(switch.checked && switch.checkable && switch.actions.touch && switch.enabled);
        assert_eq!(switch.text, "<Wi-Fi & \"more\"> ");
        assert_eq!((switch.bounds.left, switch.bounds.bottom), (800, 200));
        assert_eq!(switch.package, "com.android.settings");
        let empty = crate::ui::parse(to_hierarchy_xml(&Value::Null).as_bytes(), (1080, 2400)).expect("parses");
        assert!(empty.elements.is_empty());
    }
}
