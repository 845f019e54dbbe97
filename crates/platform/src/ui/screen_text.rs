//! The compact screen text an LLM reads: a phone-state line, then one line per
//! element worth seeing, indexed exactly like `ui_state`.
//!
//! `3 Switch #wifi_switch "Wi-Fi" [on] @943,703`: index, short class, short id, text
//! (and desc when it differs), state flags, and the centre, where a tap lands. A list
//! that scrolls gives its bounds instead (`(0,326,720,1475)`: where a swipe fits);
//! a line without a class is text only (nothing to tap, type into or scroll). Containers
//! that carry nothing are dropped. Every token counts: this text is most of each
//! prompt. This module only formats; it observes nothing.

use std::fmt::Write as _;

use crate::ui::tree::{Element, UiTree};

/// The elements worth listing: visible, and actionable or labelled, in document
/// order. `ui_state` indices are positions in this list.
pub fn listed(tree: &UiTree) -> Vec<&Element> {
    tree.elements
        .iter()
        .filter(|e| {
            e.visible
                && (e.actions.touch
                    || e.actions.long_touch
                    || e.actions.set_text
                    || e.actions.scroll
                    || !e.text.is_empty()
                    || !e.content_desc.is_empty())
        })
        .collect()
}

/// One line per listed element, after a line about the phone.
pub fn screen_text(tree: &UiTree, package: &str, activity: &str, keyboard: bool) -> String {
    let mut out = String::with_capacity(64 * tree.len().min(400));
    let short_activity = activity.strip_prefix(package).unwrap_or(activity);
    let focused = tree.elements.iter().rfind(|e| e.focused && e.actions.set_text);
    // iOS and HarmonyOS screens have no activity: the app alone names them.
    let screen = if short_activity.is_empty() { package.to_string() } else { format!("{package}/{short_activity}") };
    let _ = write!(out, "app {screen}; keyboard {}", if keyboard { "shown" } else { "hidden" });
    if let Some(f) = focused {
        let _ = write!(out, "; focus {:?}", if f.text.is_empty() { &f.hint } else { &f.text });
    }
    out.push('\n');
    for (i, e) in listed(tree).into_iter().enumerate() {
        let text_only = !e.actions.touch && !e.actions.long_touch && !e.actions.set_text && !e.actions.scroll;
        let _ = write!(out, "{i}");
        if !text_only {
            let class = e.class.rsplit('.').next().filter(|c| !c.is_empty()).unwrap_or("View");
            let _ = write!(out, " {class}");
        }
        let id = e.resource_id.rsplit('/').next().unwrap_or("");
        if !id.is_empty() {
            let _ = write!(out, " #{id}");
        }
        let text = one_line(&e.text);
        if !text.is_empty() {
            let _ = write!(out, " {text:?}");
        } else if e.actions.set_text && !e.hint.is_empty() {
            let _ = write!(out, " hint={:?}", one_line(&e.hint));
        }
        let desc = one_line(&e.content_desc);
        if !desc.is_empty() && desc != text {
            let _ = write!(out, " desc={desc:?}");
        }
        let mut flags = Vec::new();
        if e.checkable {
            flags.push(if e.checked { "on" } else { "off" });
        }
        if e.focused {
            flags.push("focused");
        }
        if !e.enabled {
            flags.push("disabled");
        }
        if e.selected {
            flags.push("selected");
        }
        if e.actions.scroll {
            flags.push("scrolls");
        }
        if !flags.is_empty() {
            let _ = write!(out, " [{}]", flags.join(","));
        }
        let b = e.bounds;
        if e.actions.scroll {
            let _ = writeln!(out, " ({},{},{},{})", b.left, b.top, b.right, b.bottom);
        } else {
            let (x, y) = b.center();
            let _ = writeln!(out, " @{x},{y}");
        }
    }
    out
}

/// Text on one line, capped so one huge label cannot flood the prompt.
fn one_line(s: &str) -> String {
    const MAX: usize = 160;
    // Marks that only steer the direction or joining of text carry nothing a model
    // reads, and cost tokens escaped (`\u{200e}`): they are left out.
    let flat: String = s
        .chars()
        .filter(
            |c| !matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}'),
        )
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let flat = flat.trim();
    match flat.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &flat[..cut]),
        None => flat.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_what_matters_once() {
        let xml = r#"<hierarchy rotation="0">
<node class="android.widget.FrameLayout" bounds="[0,0][1080,2400]">
<node class="android.widget.TextView" text="Wi-Fi" bounds="[0,100][800,200]" />
<node class="android.widget.Switch" resource-id="p:id/wifi_switch" checkable="true" checked="true" clickable="true" bounds="[800,100][1000,200]" />
<node class="android.widget.EditText" hint="Search" focused="true" clickable="true" bounds="[0,300][1000,400]" />
<node class="android.widget.Button" text="" content-desc="Send SMS" clickable="true" enabled="false" bounds="[0,500][100,600]" />
<node class="android.widget.TextView" text="line one&#10;line two" bounds="[0,700][100,800]" />
<node class="android.widget.ScrollView" scrollable="true" bounds="[0,900][1000,1400]">
<node class="android.widget.TextView" text="&#x200e;hey" bounds="[0,900][100,1000]" />
</node>
</node></hierarchy>"#;
        let tree = crate::ui::parse(xml.as_bytes(), (1080, 2400)).unwrap();
        let text = screen_text(&tree, "p", "p.Main", true);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "app p/.Main; keyboard shown; focus \"Search\"");
        assert_eq!(lines[1], "0 \"Wi-Fi\" @400,150", "text only: no class");
        assert_eq!(lines[2], "1 Switch #wifi_switch [on] @900,150");
        assert_eq!(lines[3], "2 EditText hint=\"Search\" [focused] @500,350");
        assert_eq!(lines[4], "3 Button desc=\"Send SMS\" [disabled] @50,550");
        assert_eq!(lines[5], "4 \"line one line two\" @50,750");
        assert_eq!(lines[6], "5 ScrollView [scrolls] (0,900,1000,1400)", "a list gives its extent");
        assert_eq!(lines[7], "6 \"hey\" @50,950", "direction marks are left out");
        assert_eq!(lines.len(), 8, "the empty container is dropped");
    }
}
