//! Parses Android's `uiautomator dump` output as real devices and tools produce it
//! into a [`UiTree`]: log lines before the XML, the `UI hierchary dumped to:` line glued
//! after it, single- or double-quoted or missing declarations, CR CR LF, several
//! windows, Appium's class-named tags, invalid UTF-8 and stray control characters.
//!
//! What can be decoded is decoded; what cannot gives a [`ParseError`] that says what
//! is wrong, never a panic. Nothing here talks to a device.

use std::borrow::Cow;

use super::shared::{ParseError, Place, derive, walk};
use crate::ui::tree::{Bounds, Element, UiTree};

const OPEN: &str = "<hierarchy";
const CLOSE: &str = "</hierarchy>";

/// Parses dump bytes. `screen` is the size from `wm size`, used for visibility.
pub fn parse_uiautomator(bytes: &[u8], screen: (u32, u32)) -> Result<UiTree, ParseError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ParseError::Empty);
    }
    // Undecodable bytes (a log in another code page, cut multi-byte text) become
    // U+FFFD; everything else survives.
    let text = String::from_utf8_lossy(bytes);
    let xml = extract(&text)?;
    super::shared::not_too_many(xml, b'<')?;
    let doc = match roxmltree::Document::parse_with_options(xml, super::shared::xml_options()) {
        Ok(doc) => doc,
        Err(roxmltree::Error::NodesLimitReached) => {
            return Err(ParseError::TooMany { max: super::shared::MAX_ELEMENTS });
        }
        Err(first) => {
            // Only pay for the repair pass when the dump needs it.
            let repaired = repair(xml);
            match roxmltree::Document::parse_with_options(&repaired, super::shared::xml_options()) {
                Ok(doc) => return build(&doc, screen),
                Err(_) => return Err(xml_error(&first)),
            }
        }
    };
    build(&doc, screen)
}

/// The `<hierarchy ...>...</hierarchy>` part, without what devices print around it.
fn extract(text: &str) -> Result<&str, ParseError> {
    let Some(start) = text.find(OPEN) else {
        let start: String = text.trim_start().chars().take(60).collect();
        return Err(ParseError::NoHierarchy { start });
    };
    let rest = &text[start..];
    if let Some(end) = rest.rfind(CLOSE) {
        return Ok(&rest[..end + CLOSE.len()]);
    }
    // `<hierarchy rotation="0"/>`: an empty but complete dump.
    let head_end = rest.find('>').ok_or(ParseError::Truncated { len: text.len() })?;
    if rest[..head_end].ends_with('/') {
        return Ok(&rest[..=head_end]);
    }
    Err(ParseError::Truncated { len: text.len() })
}

fn xml_error(e: &roxmltree::Error) -> ParseError {
    let pos = e.pos();
    ParseError::Xml { line: pos.row, column: pos.col, message: e.to_string() }
}

fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && c != '\u{FFFE}' && c != '\u{FFFF}')
}

/// Drops characters XML forbids, replaces character references to them with U+FFFD,
/// and escapes `&` that starts no reference.
fn repair(xml: &str) -> Cow<'_, str> {
    let mut out = String::with_capacity(xml.len() + 64);
    let mut rest = xml;
    while let Some(pos) = rest.find(|c: char| c == '&' || !is_xml_char(c)) {
        out.push_str(&rest[..pos]);
        let tail = &rest[pos..];
        let Some(c) = tail.chars().next() else { break };
        if c != '&' {
            rest = &tail[c.len_utf8()..];
            continue;
        }
        // References are short: look for `;` only nearby, so raw `&`s stay linear.
        let near = tail.get(1..).unwrap_or("");
        let near = &near[..near.char_indices().nth(13).map_or(near.len(), |(i, _)| i)];
        let reference = near.find(';').map(|semi| &near[..semi]);
        match reference {
            Some(r) if r.starts_with('#') => {
                let number = r.strip_prefix("#x").or_else(|| r.strip_prefix("#X"));
                let code = match number {
                    Some(hex) => u32::from_str_radix(hex, 16).ok(),
                    None => r[1..].parse::<u32>().ok(),
                };
                match code.and_then(char::from_u32).filter(|c| is_xml_char(*c)) {
                    Some(_) => out.push_str(&tail[..r.len() + 2]),
                    None => out.push_str("&#xFFFD;"),
                }
                rest = &tail[r.len() + 2..];
            }
            // XML's five; HTML names (`&nbsp;`) would still fail, so they are escaped.
            Some(r) if matches!(r, "amp" | "lt" | "gt" | "quot" | "apos") => {
                out.push_str(&tail[..r.len() + 2]);
                rest = &tail[r.len() + 2..];
            }
            _ => {
                out.push_str("&amp;");
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

fn parse_bounds(s: &str) -> Bounds {
    let mut nums = [0i32; 4];
    let parts = s.split(|c: char| !(c.is_ascii_digit() || c == '-')).filter(|p| !p.is_empty());
    for (slot, part) in nums.iter_mut().zip(parts) {
        *slot = part.parse::<i64>().map(|v| v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32).unwrap_or(0);
    }
    Bounds { left: nums[0], top: nums[1], right: nums[2], bottom: nums[3] }
}

fn element_from(node: roxmltree::Node, at: Place) -> Element {
    let Place { id, parent, depth, sibling } = at;
    let attr = |name: &str| node.attribute(name).unwrap_or("");
    let flag = |name: &str| node.attribute(name) == Some("true");
    let tag = node.tag_name().name();
    let class = match node.attribute("class") {
        Some(c) => c.to_string(),
        // Appium dumps name the tag after the class.
        None if tag != "node" => tag.to_string(),
        None => String::new(),
    };
    Element {
        id,
        parent,
        depth,
        index: attr("index").parse().unwrap_or(sibling),
        class,
        text: attr("text").to_string(),
        content_desc: attr("content-desc").to_string(),
        resource_id: attr("resource-id").to_string(),
        package: attr("package").to_string(),
        hint: attr("hint").to_string(),
        bounds: parse_bounds(attr("bounds")),
        checkable: flag("checkable"),
        checked: flag("checked"),
        clickable: flag("clickable"),
        enabled: node.attribute("enabled") != Some("false"),
        focusable: flag("focusable"),
        focused: flag("focused"),
        scrollable: flag("scrollable"),
        long_clickable: flag("long-clickable"),
        password: flag("password"),
        selected: flag("selected"),
        visible_to_user: node.attribute("visible-to-user").map(|v| v == "true"),
        naf: flag("NAF"),
        display_id: node.attribute("display-id").and_then(|v| v.parse().ok()),
        drawing_order: node.attribute("drawing-order").and_then(|v| v.parse().ok()),
        ..Default::default()
    }
}

fn build(doc: &roxmltree::Document, screen: (u32, u32)) -> Result<UiTree, ParseError> {
    let root = doc.root_element();
    let rotation = root.attribute("rotation").and_then(|r| r.parse::<u8>().ok()).unwrap_or(0).min(3);
    let mut tree = UiTree { rotation, screen, ..Default::default() };
    let top: Vec<_> = root.children().filter(|n| n.is_element()).collect();
    walk(&mut tree, top, |n| n.children().filter(|c| c.is_element()).collect(), |n, at| element_from(*n, at))?;
    derive(&mut tree);
    Ok(tree)
}

#[cfg(test)]
mod tests {
    use super::parse_uiautomator as parse;
    use super::*;

    const NODE: &str = r#"<node index="0" text="Wi-Fi" resource-id="android:id/title" class="android.widget.TextView" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][100,50]" />"#;

    fn dump(body: &str) -> String {
        format!("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">{body}</hierarchy>")
    }

    #[test]
    fn a_hierarchy_nested_without_end_is_refused_not_followed() {
        let n = 100_000;
        let dump = format!(
            "<hierarchy rotation=\"0\">{}{}</hierarchy>",
            "<node class=\"a\" bounds=\"[0,0][1,1]\">".repeat(n),
            "</node>".repeat(n)
        );
        let e = parse(dump.as_bytes(), (1, 1)).unwrap_err();
        assert!(matches!(e, ParseError::TooDeep { max: 512 }), "{e}");
        let fine =
            format!("<hierarchy>{}{}</hierarchy>", "<node bounds=\"[0,0][1,1]\">".repeat(500), "</node>".repeat(500));
        assert_eq!(parse(fine.as_bytes(), (1, 1)).map(|t| t.elements.len()).ok(), Some(500));
    }

    #[test]
    fn strips_what_surrounds_the_xml() {
        let raw = format!("log line\r\n{}UI hierchary dumped to: /dev/tty\n", dump(NODE));
        let tree = parse(raw.as_bytes(), (1080, 2400)).unwrap();
        assert_eq!(tree.len(), 1);
        let e = &tree.elements[0];
        assert_eq!((e.text.as_str(), e.center, e.actions.touch, e.visible), ("Wi-Fi", (50, 25), true, true));
    }

    #[test]
    fn repairs_control_characters_and_bad_references() {
        let body = NODE.replace("Wi-Fi", "a\u{1}b &#1; & c &#128075; &amp; &nbsp;");
        let tree = parse(dump(&body).as_bytes(), (0, 0)).unwrap();
        assert_eq!(tree.elements[0].text, "ab \u{FFFD} & c 👋 & &nbsp;");
    }

    #[test]
    fn clear_errors_for_what_cannot_be_read() {
        assert!(matches!(parse(b"  \n", (1, 1)), Err(ParseError::Empty)));
        assert!(matches!(
            parse(b"ERROR: null root node returned by UiTestAutomationBridge.", (1, 1)),
            Err(ParseError::NoHierarchy { .. })
        ));
        let cut = dump(NODE);
        assert!(matches!(parse(&cut.as_bytes()[..cut.len() - 20], (1, 1)), Err(ParseError::Truncated { .. })));
        let broken = dump("<node bounds=\"[0,0][1,1]\"><node></hierarchy>");
        let err = parse(broken.as_bytes(), (1, 1)).unwrap_err();
        assert!(matches!(err, ParseError::Xml { .. }), "{err}");
        assert!(parse(b"<hierarchy rotation=\"1\"/>", (1, 1)).is_ok_and(|t| t.is_empty() && t.rotation == 1));
    }

    #[test]
    fn signatures_ignore_typed_text_and_track_children() {
        let field = |text: &str| {
            dump(&format!(
                r#"<node class="android.widget.EditText" resource-id="p:id/f" text="{text}" bounds="[0,0][9,9]" />"#
            ))
        };
        let a = parse(field("hello").as_bytes(), (10, 10)).unwrap();
        let b = parse(field("hello world").as_bytes(), (10, 10)).unwrap();
        assert_eq!(a.elements[0].signature, b.elements[0].signature);
        assert!(a.elements[0].actions.set_text);
        let deep =
            (0..40).fold(String::new(), |inner, i| format!(r#"<node class="c{i}" bounds="[0,0][1,1]">{inner}</node>"#));
        let tree = parse(dump(&deep).as_bytes(), (10, 10)).unwrap();
        assert_eq!(tree.len(), 40);
        assert_eq!(tree.elements[39].depth, 39);
    }

    #[test]
    fn appium_tags_name_the_class() {
        let raw = r#"<hierarchy index="0" class="hierarchy" rotation="0" width="1920" height="1080"><android.widget.TextView index="0" package="p" text="x" bounds="[0,0][5,5]" displayed="true" /></hierarchy>"#;
        let tree = parse(raw.as_bytes(), (1920, 1080)).unwrap();
        assert_eq!(tree.elements[0].class, "android.widget.TextView");
    }

    #[test]
    fn an_element_that_runs_off_the_screen_is_acted_on_where_it_shows() {
        let body = r#"<node class="a" text="low" bounds="[100,2300][300,2600]"/><node class="b" text="left" bounds="[-400,10][100,60]"/><node class="c" text="gone" bounds="[0,2500][10,2600]"/><node class="d" text="in" bounds="[0,0][10,10]"/>"#;
        let tree = parse(dump(body).as_bytes(), (1080, 2400)).unwrap();
        let at: Vec<((i32, i32), bool)> = tree.elements.iter().map(|e| (e.center, e.visible)).collect();
        assert_eq!(at[0], ((200, 2350), true), "the part above the bottom edge");
        assert_eq!(at[1], ((50, 35), true), "the part right of the left edge");
        assert!(!at[2].1, "wholly off the screen: not visible, so no selector reaches it");
        assert_eq!(at[3], ((5, 5), true));
    }

    #[test]
    fn a_page_of_more_elements_than_any_screen_is_refused_before_its_tree_is_built() {
        let node = r#"<node class="a" bounds="[0,0][1,1]"/>"#;
        for n in [150_000, 1_000_000] {
            let page = format!("<hierarchy rotation=\"0\">{}</hierarchy>", node.repeat(n));
            let e = parse(page.as_bytes(), (1, 1)).unwrap_err();
            assert!(matches!(e, ParseError::TooMany { max: 100_000 }), "{n}: {e}");
        }
        let fine = format!("<hierarchy>{}</hierarchy>", node.repeat(5_000));
        assert_eq!(parse(fine.as_bytes(), (1, 1)).map(|t| t.elements.len()).ok(), Some(5_000));
    }
}
