//! Writes a [`Screen`] as `uiautomator dump` XML, byte for byte in the format an
//! Android 14 device prints: one line, attributes in uiautomator's order, ` />` for
//! leaves, KXmlSerializer escaping, characters outside the BMP as `&#N;`.
//!
//! Draw-only nodes (the scrim behind dialogs) are left out, as a real dump has none.

use crate::screen::{Node, Role, Screen};

pub(crate) const XML_DECLARATION: &str = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>";

/// The active window only (what `uiautomator dump` prints), or every window (what
/// `uiautomator dump --windows` and UiAutomator2-based tools print).
pub(crate) fn to_xml(screen: &Screen, all_windows: bool) -> String {
    let mut out = String::with_capacity(16 * 1024);
    out.push_str(XML_DECLARATION);
    out.push_str("<hierarchy rotation=\"0\">");
    let windows: Vec<&Node> = if all_windows {
        screen.windows.iter().filter(|w| w.role != Role::Scrim).collect()
    } else {
        screen.windows.get(screen.active).into_iter().collect()
    };
    for window in windows {
        write_node(&mut out, window, 0);
    }
    out.push_str("</hierarchy>");
    out
}

fn write_node(out: &mut String, node: &Node, index: usize) {
    let text = if node.text.is_empty() && !node.hint.is_empty() { &node.hint } else { &node.text };
    out.push_str("<node index=\"");
    out.push_str(&index.to_string());
    out.push('"');
    attr(out, "text", text);
    attr(out, "resource-id", &node.resource_id);
    attr(out, "class", &node.class);
    attr(out, "package", &node.package);
    attr(out, "content-desc", &node.content_desc);
    // uiautomator's order.
    for name in [
        "checkable",
        "checked",
        "clickable",
        "enabled",
        "focusable",
        "focused",
        "scrollable",
        "long-clickable",
        "password",
        "selected",
    ] {
        attr(out, name, if node.flag(name) { "true" } else { "false" });
    }
    let b = node.bounds;
    attr(out, "bounds", &format!("[{},{}][{},{}]", b.left, b.top, b.right, b.bottom));
    let children: Vec<&Node> = node.children.iter().filter(|c| c.in_page_source()).collect();
    if children.is_empty() {
        out.push_str(" />");
        return;
    }
    out.push('>');
    for (i, child) in children.into_iter().enumerate() {
        write_node(out, child, i);
    }
    out.push_str("</node>");
}

fn attr(out: &mut String, name: &str, value: &str) {
    // KXmlSerializer: control characters and characters outside the BMP as `&#N;`.
    crate::page_source::xml::attr(out, name, value, |c, out| {
        let numbered = (c as u32) < 0x20 || (c as u32) > 0xFFFF;
        if numbered {
            out.push_str(&format!("&#{};", c as u32));
        }
        numbered
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::screen::Rect;

    #[test]
    fn writes_the_real_format() {
        let leaf = Node {
            text: "a&b \"q\" 👋\n".into(),
            class: "android.widget.TextView".into(),
            package: "p".into(),
            enabled: true,
            bounds: Rect::new(0, 0, 10, 20),
            ..Default::default()
        };
        let root = Node { class: "android.widget.FrameLayout".into(), children: vec![leaf], ..Default::default() };
        let screen =
            Screen { width: 10, height: 20, density: 160, windows: vec![root], active: 0, look: Default::default() };
        let xml = to_xml(&screen, false);
        assert!(xml.starts_with("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"><node index=\"0\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\""));
        assert!(xml.contains("text=\"a&amp;b &quot;q&quot; &#128075;&#10;\""));
        assert!(xml.contains("bounds=\"[0,0][10,20]\" /></node></hierarchy>"));
        assert!(!xml.contains('\n'));
    }
}
