//! The selector that finds one element first on a screen, as Rhai source: what an
//! exported replay writes instead of `tap_by_index(i)`, so it survives layout
//! changes that indices do not. Built from the element's text, content-desc or id,
//! then anchored to a labelled neighbour, then an `nth` among equals; checked to
//! find that very element first. This module only writes source.

use rhai::{Dynamic, Map};

use crate::select::Selector;
use codeact_engine::emit::rhai::string as rhai_string;
use codeact_platform::ui::UiTree;

enum Part {
    Text(String),
    Int(usize),
}

/// A selector, as Rhai source, that finds element `target` first on `tree`: its text,
/// content-desc or id, combined when one is not enough, then anchored to the nearest
/// labelled neighbour (`right_of`, `below`, `left_of`), then an `nth` among equals.
/// Replays built from it survive layout changes that indices do not.
pub fn selector_for(tree: &UiTree, target: usize) -> Option<String> {
    selector_among(tree, target, true)
}

/// [`selector_for`] a toggle: never by its own text, which many switches change
/// with their state ("ON" / "OFF"), so the selector finds it either way.
pub fn toggle_selector_for(tree: &UiTree, target: usize) -> Option<String> {
    selector_among(tree, target, false)
}

fn selector_among(tree: &UiTree, target: usize, by_own_text: bool) -> Option<String> {
    let el = tree.get(target)?;
    let own_text = if by_own_text { el.text.as_str() } else { "" };
    let short_id = el.resource_id.rsplit('/').next().unwrap_or("").to_string();
    let short_class = el.class.rsplit('.').next().unwrap_or("").to_string();
    let lit = |s: &str| Part::Text(s.to_string());
    let mut own: Vec<Vec<(&str, Part)>> = Vec::new();
    if !own_text.is_empty() {
        own.push(vec![("text", lit(own_text))]);
    }
    if !el.content_desc.is_empty() {
        own.push(vec![("desc", lit(&el.content_desc))]);
    }
    if !short_id.is_empty() {
        own.push(vec![("id", lit(&short_id))]);
        if !own_text.is_empty() {
            own.push(vec![("id", lit(&short_id)), ("text", lit(own_text))]);
        }
        if !el.content_desc.is_empty() {
            own.push(vec![("id", lit(&short_id)), ("desc", lit(&el.content_desc))]);
        }
    }
    let base: (&str, String) = if short_id.is_empty() { ("class", short_class) } else { ("id", short_id) };
    // Labelled neighbours: on the same row to the left or right, or above.
    let b = el.bounds;
    let labelled = tree.elements.iter().filter(|e| e.visible && e.id != target && !e.text.is_empty());
    let same_row = |e: &&codeact_platform::ui::Element| e.center.1 >= b.top && e.center.1 <= b.bottom;
    let dist = |e: &codeact_platform::ui::Element| {
        let (dx, dy) = (i64::from(e.center.0 - el.center.0), i64::from(e.center.1 - el.center.1));
        dx * dx + dy * dy
    };
    let left = labelled.clone().filter(same_row).filter(|e| e.bounds.right <= b.left + 2).min_by_key(|e| dist(e));
    let right = labelled.clone().filter(same_row).filter(|e| e.bounds.left >= b.right - 2).min_by_key(|e| dist(e));
    let above = labelled.filter(|e| e.bounds.bottom <= b.top + 2).min_by_key(|e| dist(e));
    for (relation, anchor) in [("right_of", left), ("left_of", right), ("below", above)] {
        if let Some(a) = anchor {
            own.push(vec![(base.0, lit(&base.1)), (relation, lit(&a.text))]);
        }
    }
    let last = own.len();
    let candidates = own.into_iter().chain(std::iter::once(vec![(base.0, lit(&base.1))]));
    for (n, parts) in candidates.enumerate() {
        let mut map = Map::new();
        for (key, part) in &parts {
            let value = match part {
                Part::Text(t) => Dynamic::from(t.clone()),
                Part::Int(i) => Dynamic::from(*i as i64),
            };
            map.insert((*key).into(), value);
        }
        let Ok(sel) = Selector::from_dynamic(&Dynamic::from(map.clone())) else { continue };
        let found = sel.find_all(tree);
        let source = |parts: &[(&str, Part)]| {
            let fields: Vec<String> = parts
                .iter()
                .map(|(k, p)| match p {
                    Part::Text(t) => format!("{k}: {}", rhai_string(t)),
                    Part::Int(i) => format!("{k}: {i}"),
                })
                .collect();
            format!("#{{{}}}", fields.join(", "))
        };
        match found.iter().position(|e| e.id == target) {
            Some(0) => return Some(source(&parts)),
            // Only the last candidate (the base alone) settles for an index.
            Some(i) if n == last => {
                let mut parts = parts;
                parts.push(("nth", Part::Int(i)));
                return Some(source(&parts));
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::tests::tree;

    #[test]
    fn generated_selectors_find_their_element_first() {
        let t = tree();
        let by_id = |id: &str| t.elements.iter().position(|e| e.resource_id.ends_with(id)).unwrap();
        assert_eq!(selector_for(&t, by_id("wifi_switch")).as_deref(), Some(r#"#{id: "wifi_switch"}"#));
        let wifi = t.elements.iter().position(|e| e.text == "Wi-Fi").unwrap();
        assert_eq!(selector_for(&t, wifi).as_deref(), Some(r#"#{text: "Wi-Fi"}"#));
        // Every element of every shape gets a selector that finds it first.
        let xml = r#"<hierarchy rotation="0">
<node class="android.widget.TextView" text="Price (USD) $5" bounds="[0,0][500,100]" />
<node class="android.widget.Switch" resource-id="p:id/switch_widget" bounds="[600,0][700,100]" />
<node class="android.widget.TextView" text="Dark &quot;mode&quot;" bounds="[0,200][500,300]" />
<node class="android.widget.Switch" resource-id="p:id/switch_widget" bounds="[600,200][700,300]" />
<node class="android.widget.ImageView" bounds="[0,400][100,500]" clickable="true" />
<node class="android.widget.ImageView" bounds="[200,400][300,500]" clickable="true" />
</hierarchy>"#;
        let t = codeact_platform::ui::parse(xml.as_bytes(), (1080, 2400)).unwrap();
        let engine = rhai::Engine::new_raw();
        for e in t.elements.iter().filter(|e| e.visible) {
            let source = selector_for(&t, e.id).unwrap_or_else(|| panic!("no selector for {e:?}"));
            let value: Dynamic = engine.eval_expression(&source).unwrap_or_else(|err| panic!("{source}: {err}"));
            let found = Selector::from_dynamic(&value).unwrap().find(&t).map(|f| f.id);
            assert_eq!(found, Some(e.id), "{source} finds its element");
        }
        let second = t.elements.iter().rposition(|e| e.resource_id.ends_with("switch_widget")).unwrap();
        assert_eq!(selector_for(&t, second).as_deref(), Some(r#"#{id: "switch_widget", right_of: "Dark \"mode\""}"#));
    }
}
