//! Inspecting an element for a person writing a script (the REPL's `:inspect X Y`
//! and `:pick N`, the studio's pointing): the element at a point or with a
//! `ui_state` index, what it is, and the selectors that find it — first the one
//! exported scripts write (unique on this screen), then others, each said unique or
//! not, so a person picks one that holds. Reads a tree; changes nothing. Not the
//! REPL's loop nor the studio's page (the modes).

use super::call::ToolCall;
use super::select::selector::Selector;
use super::select::unique_selector::{selector_for, toggle_selector_for};
use codeact_engine::emit::rhai::string as rhai_string;
use codeact_platform::ui::{Element, UiTree};

/// The visible element deepest under the point (the smallest that contains it).
pub fn element_at(tree: &UiTree, x: i32, y: i32) -> Option<&Element> {
    tree.elements
        .iter()
        .filter(|e| e.visible && e.bounds.contains(x, y))
        .min_by_key(|e| (i64::from(e.bounds.width()) * i64::from(e.bounds.height()), std::cmp::Reverse(e.depth)))
}

/// The element `ui_state[index]` names on this screen.
pub fn element_listed(tree: &UiTree, index: usize) -> Option<&Element> {
    codeact_platform::ui::screen_text::listed(tree).into_iter().nth(index)
}

/// How a selector fares on this screen for `target`: (how, unique), or `None`
/// when it does not find the target at all.
fn fares(tree: &UiTree, source: &str, target: usize) -> Option<(String, bool)> {
    let sel = Selector::from_source(source).ok()?;
    let found = sel.find_all(tree);
    let at = found.iter().position(|e| e.id == target)?;
    Some(match (found.len(), at) {
        (1, _) => ("unique".to_string(), true),
        (n, 0) => (format!("{n} match; this one first"), false),
        (n, k) => (format!("{n} match; this one is nth {k}"), false),
    })
}

/// One selector that finds an element, and how it fares on this screen.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Candidate {
    /// Rhai source: `#{id: "wifi_switch"}`.
    pub source: String,
    /// `unique`, or how many it matches and where this one is among them.
    pub fares: String,
    pub unique: bool,
    /// The one exported scripts write (unique, a toggle by what stays when it flips).
    pub best: bool,
    /// How long finding it on this screen took, in microseconds.
    pub lookup_us: f64,
}

/// The selectors that find `target` on this screen, the best first: the one
/// exported scripts write, then by text, description, id and class, each with how
/// it fares and how long the lookup took.
pub fn candidates(tree: &UiTree, target: &Element) -> Vec<Candidate> {
    let class = target.class.rsplit('.').next().unwrap_or(&target.class);
    let short_id = target.resource_id.rsplit('/').next().unwrap_or("");
    // The exported scripts' own choice: a switch by what stays when it flips.
    let best = if target.checkable { toggle_selector_for(tree, target.id) } else { selector_for(tree, target.id) };
    let mut sources: Vec<(String, bool)> = best.iter().map(|b| (b.clone(), true)).collect();
    if !target.text.is_empty() {
        sources.push((rhai_string(&target.text), false));
    }
    if !target.content_desc.is_empty() {
        sources.push((format!("#{{desc: {}}}", rhai_string(&target.content_desc)), false));
    }
    if !short_id.is_empty() {
        sources.push((format!("#{{id: {}}}", rhai_string(short_id)), false));
    }
    if !class.is_empty() {
        sources.push((format!("#{{class: {}}}", rhai_string(class)), false));
    }
    let mut out: Vec<Candidate> = Vec::new();
    for (source, is_best) in sources {
        if out.iter().any(|c| c.source == source) {
            continue;
        }
        let started = std::time::Instant::now();
        let Some((fares, unique)) = fares(tree, &source, target.id) else { continue };
        let lookup_us = (started.elapsed().as_secs_f64() * 1e7).round() / 10.0;
        out.push(Candidate { source, fares, unique, best: is_best, lookup_us });
    }
    out
}

/// What `:inspect` and `:pick` print for the element `target`.
pub fn describe(tree: &UiTree, target: &Element) -> String {
    let class = target.class.rsplit('.').next().unwrap_or(&target.class);
    let short_id = target.resource_id.rsplit('/').next().unwrap_or("");
    let b = target.bounds;
    let mut out = class.to_string();
    if !short_id.is_empty() {
        out.push_str(&format!(" #{short_id}"));
    }
    for (label, value) in [("text", &target.text), ("desc", &target.content_desc), ("hint", &target.hint)] {
        if !value.is_empty() {
            out.push_str(&format!(" {label}={value:?}"));
        }
    }
    out.push_str(&format!(" at ({},{},{},{}), centre {:?}", b.left, b.top, b.right, b.bottom, target.center));
    let mut flags = Vec::new();
    for (on, word) in [
        (target.clickable, "clickable"),
        (target.checkable, if target.checked { "checked" } else { "unchecked" }),
        (target.actions.set_text, "editable"),
        (target.scrollable, "scrollable"),
        (!target.enabled, "disabled"),
    ] {
        if on {
            flags.push(word);
        }
    }
    if !flags.is_empty() {
        out.push_str(&format!(" [{}]", flags.join(", ")));
    }
    out.push('\n');
    let all = candidates(tree, target);
    match all.iter().find(|c| c.best) {
        Some(best) => out.push_str(&format!("  selector: {}   (unique: what exported scripts write)\n", best.source)),
        None => out.push_str("  selector: none finds it alone on this screen; tap it by its point or an index\n"),
    }
    for other in all.iter().filter(|c| !c.best) {
        out.push_str(&format!("  also:     {}   ({})\n", other.source, other.fares));
    }
    out.push_str(&format!(
        "  point:    {}\n",
        ToolCall::tap_point(target.center.0.into(), target.center.1.into()).expr()
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_element_under_a_point_and_its_selectors() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">
<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="p" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]">
<node index="0" text="Wi-Fi" resource-id="p:id/title" class="android.widget.TextView" package="p" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[40,600][700,700]"/>
<node index="1" text="" resource-id="p:id/wifi_switch" class="android.widget.Switch" package="p" content-desc="" checkable="true" checked="true" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[850,600][1040,700]"/>
<node index="2" text="Bluetooth" resource-id="p:id/title" class="android.widget.TextView" package="p" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[40,800][700,900]"/>
</node></hierarchy>"#;
        let tree = codeact_platform::ui::parse(xml.as_bytes(), (1080, 2400)).unwrap();
        let switch = element_at(&tree, 900, 650).unwrap();
        let text = describe(&tree, switch);
        assert!(text.starts_with("Switch #wifi_switch at (850,600,1040,700)"), "{text}");
        assert!(text.contains("selector: #{id: \"wifi_switch\"}   (unique"), "{text}");
        let title = element_at(&tree, 100, 850).unwrap();
        let text = describe(&tree, title);
        assert!(
            text.contains("selector: \"Bluetooth\"") || text.contains("selector: #{text: \"Bluetooth\"}"),
            "{text}"
        );
        assert!(text.contains("#{id: \"title\"}   (2 match; this one is nth 1)"), "{text}");
        assert!(element_at(&tree, 5000, 5000).is_none());
        assert_eq!(element_listed(&tree, 0).map(|e| e.text.as_str()), Some("Wi-Fi"));
    }
}
