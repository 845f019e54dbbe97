//! Writes a [`Screen`] as Appium's UiAutomator2 server answers `GET /source`: each
//! view an element named by its class (characters an XML name cannot hold become
//! `_`), under `<hierarchy index class rotation width height>`, attributes in the
//! server's order (`resource-id`, `content-desc` and `hint` only when set), two
//! spaces of indent per level, every window. XPath queries run over this very text
//! (`doors/agents/uia2/xpath.rs`), so what a client reads is what it can query.
//!
//! Draw-only nodes and scrims are left out, with their children, as in every page source.

use crate::screen::{Node, Screen};

use super::uiautomator::XML_DECLARATION;

/// The page's windows, as the server lists them (the hierarchy's children, in order).
pub(crate) fn windows(screen: &Screen) -> Vec<&Node> {
    screen.windows.iter().filter(|w| w.in_page_source()).collect()
}

/// A node's children as the page lists them.
pub(crate) fn children(node: &Node) -> Vec<&Node> {
    node.children.iter().filter(|c| c.in_page_source()).collect()
}

/// The whole page.
pub(crate) fn to_xml(screen: &Screen) -> String {
    let mut out = String::with_capacity(32 * 1024);
    out.push_str(XML_DECLARATION);
    out.push_str(&format!(
        "\n<hierarchy index=\"0\" class=\"hierarchy\" rotation=\"0\" width=\"{}\" height=\"{}\">\n",
        screen.width, screen.height
    ));
    for (i, window) in windows(screen).into_iter().enumerate() {
        write_node(&mut out, window, i, 1);
    }
    out.push_str("</hierarchy>");
    out
}

/// An element name for a class: XML name characters kept, others `_`.
pub(crate) fn tag(class: &str) -> String {
    let name: String = class
        .chars()
        .enumerate()
        .map(|(i, c)| {
            let ok = c.is_ascii_alphabetic() || c == '_' || (i > 0 && (c.is_ascii_digit() || c == '.' || c == '-'));
            if ok { c } else { '_' }
        })
        .collect();
    if name.is_empty() { "android.view.View".into() } else { name }
}

fn write_node(out: &mut String, node: &Node, index: usize, depth: usize) {
    let indent = "  ".repeat(depth);
    let name = tag(&node.class);
    out.push_str(&indent);
    out.push('<');
    out.push_str(&name);
    attr(out, "index", &index.to_string());
    attr(out, "package", &node.package);
    attr(out, "class", &node.class);
    attr(out, "text", &node.text);
    for (key, value) in [("resource-id", &node.resource_id), ("content-desc", &node.content_desc), ("hint", &node.hint)]
    {
        if !value.is_empty() {
            attr(out, key, value);
        }
    }
    // The server's order (not uiautomator's: long-clickable and password come earlier).
    for key in [
        "checkable",
        "checked",
        "clickable",
        "enabled",
        "focusable",
        "focused",
        "long-clickable",
        "password",
        "scrollable",
        "selected",
    ] {
        attr(out, key, if node.flag(key) { "true" } else { "false" });
    }
    let b = node.bounds;
    attr(out, "bounds", &format!("[{},{}][{},{}]", b.left, b.top, b.right, b.bottom));
    attr(out, "displayed", if b.is_empty() { "false" } else { "true" });
    let kids = children(node);
    if kids.is_empty() {
        out.push_str(" />\n");
        return;
    }
    out.push_str(">\n");
    for (i, child) in kids.into_iter().enumerate() {
        write_node(out, child, i, depth + 1);
    }
    out.push_str(&indent);
    out.push_str("</");
    out.push_str(&name);
    out.push_str(">\n");
}

fn attr(out: &mut String, name: &str, value: &str) {
    // As the server's serializer writes them: control characters as `&#N;`, and
    // those XML 1.0 cannot hold at all (NUL, lone surrogates cannot occur) dropped.
    super::xml::attr(out, name, value, |c, out| {
        let numbered = (c as u32) < 0x20;
        if numbered && c != '\0' {
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
    fn writes_appiums_format() {
        let leaf = Node {
            text: "a&b <\"q\">\n".into(),
            class: "android.widget.TextView".into(),
            resource_id: "p:id/t".into(),
            package: "p".into(),
            bounds: Rect::new(0, 0, 10, 20),
            ..Default::default()
        };
        let root = Node { class: "android.widget.FrameLayout".into(), children: vec![leaf], ..Default::default() };
        let screen =
            Screen { width: 10, height: 20, density: 160, windows: vec![root], active: 0, look: Default::default() };
        let xml = to_xml(&screen);
        assert!(xml.contains("<hierarchy index=\"0\" class=\"hierarchy\" rotation=\"0\" width=\"10\" height=\"20\">"));
        assert!(xml.contains("\n    <android.widget.TextView index=\"0\" package=\"p\" class=\"android.widget.TextView\" text=\"a&amp;b &lt;&quot;q&quot;&gt;&#10;\" resource-id=\"p:id/t\" checkable"));
        assert!(!xml.contains("content-desc"), "unset attributes are left out");
        assert!(roxmltree::Document::parse(&xml).is_ok());
        assert_eq!(tag("a$b c"), "a_b_c");
        assert_eq!(tag("1x"), "_x");
        assert_eq!(tag(""), "android.view.View");
    }
}
