//! Selectors: finding elements on the live screen the way scripts describe them.
//!
//! A string is a full-match regex over text, content-desc and hint (falling back to
//! exact text when it is not a valid regex). A map narrows by `text`, `desc`, `id`,
//! `class` (regexes, full match; `id` also matches the part after `:id/`), `clickable`,
//! `checked`, `enabled`, relates to another selector with `below`, `above`, `left_of`,
//! `right_of` (nearest first), and picks the n-th match in reading order with `index`.

use regex::Regex;
use rhai::{Dynamic, Map};

use crate::ui::{Element, UiTree};

/// A compiled selector.
#[derive(Debug, Clone)]
pub struct Selector {
    any_text: Option<Pattern>,
    text: Option<Pattern>,
    desc: Option<Pattern>,
    id: Option<Pattern>,
    class: Option<Pattern>,
    flags: Vec<(Flag, bool)>,
    relations: Vec<(Relation, Box<Selector>)>,
    index: Option<usize>,
    /// How the script wrote it, for messages.
    pub shown: String,
}

#[derive(Debug, Clone, Copy)]
enum Flag {
    Clickable,
    Checked,
    Enabled,
}

#[derive(Debug, Clone, Copy)]
enum Relation {
    Below,
    Above,
    LeftOf,
    RightOf,
}

#[derive(Debug, Clone)]
enum Pattern {
    Regex(Regex),
    Exact(String),
}

impl Pattern {
    fn new(p: &str) -> Self {
        match Regex::new(&format!("^(?:{p})$")) {
            Ok(r) => Pattern::Regex(r),
            Err(_) => Pattern::Exact(p.to_string()),
        }
    }
    fn matches(&self, s: &str) -> bool {
        match self {
            Pattern::Regex(r) => r.is_match(s),
            Pattern::Exact(e) => e == s,
        }
    }
}

impl Selector {
    pub fn from_dynamic(v: &Dynamic) -> Result<Self, String> {
        if let Ok(s) = v.clone().into_immutable_string() {
            let s = s.to_string();
            return Ok(Selector { any_text: Some(Pattern::new(&s)), shown: format!("{s:?}"), ..Self::empty() });
        }
        let Some(map) = v.clone().try_cast::<Map>() else {
            return Err(format!("a selector is a string or a map like #{{text: \"OK\"}}, not {}", v.type_name()));
        };
        let mut sel = Selector { shown: format!("{v}"), ..Self::empty() };
        for (key, value) in &map {
            let text = || {
                value
                    .clone()
                    .into_immutable_string()
                    .map(|s| s.to_string())
                    .map_err(|t| format!("{key} must be a string, not {t}"))
            };
            let flag = || value.as_bool().map_err(|t| format!("{key} must be true or false, not {t}"));
            match key.as_str() {
                "text" => sel.text = Some(Pattern::new(&text()?)),
                "desc" => sel.desc = Some(Pattern::new(&text()?)),
                "id" => sel.id = Some(Pattern::new(&text()?)),
                "class" => sel.class = Some(Pattern::new(&text()?)),
                "clickable" => sel.flags.push((Flag::Clickable, flag()?)),
                "checked" => sel.flags.push((Flag::Checked, flag()?)),
                "enabled" => sel.flags.push((Flag::Enabled, flag()?)),
                "index" => {
                    let i = value.as_int().map_err(|t| format!("index must be an integer, not {t}"))?;
                    sel.index = Some(usize::try_from(i).map_err(|_| "index must be ≥ 0".to_string())?);
                }
                "below" | "above" | "left_of" | "right_of" => {
                    let rel = match key.as_str() {
                        "below" => Relation::Below,
                        "above" => Relation::Above,
                        "left_of" => Relation::LeftOf,
                        _ => Relation::RightOf,
                    };
                    sel.relations.push((rel, Box::new(Selector::from_dynamic(value)?)));
                }
                other => {
                    return Err(format!(
                        "unknown selector key {other:?}; use text, desc, id, class, index, below, above, left_of, \
                         right_of, clickable, checked, enabled"
                    ));
                }
            }
        }
        Ok(sel)
    }

    fn empty() -> Self {
        Selector {
            any_text: None,
            text: None,
            desc: None,
            id: None,
            class: None,
            flags: Vec::new(),
            relations: Vec::new(),
            index: None,
            shown: String::new(),
        }
    }

    fn matches_self(&self, e: &Element) -> bool {
        let short_id = e.resource_id.rsplit('/').next().unwrap_or("");
        let short_class = e.class.rsplit('.').next().unwrap_or("");
        self.any_text
            .as_ref()
            .is_none_or(|p| [&e.text, &e.content_desc, &e.hint].iter().any(|s| !s.is_empty() && p.matches(s)))
            && self.text.as_ref().is_none_or(|p| p.matches(&e.text))
            && self.desc.as_ref().is_none_or(|p| p.matches(&e.content_desc))
            && self.id.as_ref().is_none_or(|p| p.matches(&e.resource_id) || p.matches(short_id))
            && self.class.as_ref().is_none_or(|p| p.matches(&e.class) || p.matches(short_class))
            && self.flags.iter().all(|(f, want)| {
                let have = match f {
                    Flag::Clickable => e.actions.touch,
                    Flag::Checked => e.checked,
                    Flag::Enabled => e.enabled,
                };
                have == *want
            })
    }

    /// Every visible element that matches, in reading order (top to bottom, then
    /// left to right), or nearest first when relations are given.
    pub fn find_all<'a>(&self, tree: &'a UiTree) -> Vec<&'a Element> {
        let mut found: Vec<&Element> = tree.elements.iter().filter(|e| e.visible && self.matches_self(e)).collect();
        found.sort_by_key(|e| (e.bounds.top, e.bounds.left));
        for (rel, anchor_sel) in &self.relations {
            let Some(anchor) = anchor_sel.find_all(tree).into_iter().next() else { return Vec::new() };
            let a = anchor.bounds;
            found.retain(|e| {
                let b = e.bounds;
                e.id != anchor.id
                    && match rel {
                        Relation::Below => b.top >= a.bottom - 2,
                        Relation::Above => b.bottom <= a.top + 2,
                        Relation::LeftOf => b.right <= a.left + 2,
                        Relation::RightOf => b.left >= a.right - 2,
                    }
            });
            let (ax, ay) = anchor.center;
            found.sort_by_key(|e| {
                let (dx, dy) = (i64::from(e.center.0 - ax), i64::from(e.center.1 - ay));
                dx * dx + dy * dy
            });
        }
        match self.index {
            Some(i) => found.into_iter().nth(i).into_iter().collect(),
            None => found,
        }
    }

    pub fn find<'a>(&self, tree: &'a UiTree) -> Option<&'a Element> {
        self.find_all(tree).into_iter().next()
    }
}

/// Escapes the characters a regex treats specially ('-' and '/' stay readable).
fn regex_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `text` as a Rhai string literal.
pub fn rhai_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

enum Part {
    Text(String),
    Int(usize),
}

/// A selector, as Rhai source, that finds element `target` first on `tree`: its text,
/// content-desc or id, combined when one is not enough, then anchored to the nearest
/// labelled neighbour (`right_of`, `below`, `left_of`), then an `index` among equals.
/// Replays built from it survive layout changes that indices do not.
pub fn selector_for(tree: &UiTree, target: usize) -> Option<String> {
    let el = tree.get(target)?;
    let short_id = el.resource_id.rsplit('/').next().unwrap_or("").to_string();
    let short_class = el.class.rsplit('.').next().unwrap_or("").to_string();
    let lit = |s: &str| Part::Text(regex_literal(s));
    let mut own: Vec<Vec<(&str, Part)>> = Vec::new();
    if !el.text.is_empty() {
        own.push(vec![("text", lit(&el.text))]);
    }
    if !el.content_desc.is_empty() {
        own.push(vec![("desc", lit(&el.content_desc))]);
    }
    if !short_id.is_empty() {
        own.push(vec![("id", lit(&short_id))]);
        if !el.text.is_empty() {
            own.push(vec![("id", lit(&short_id)), ("text", lit(&el.text))]);
        }
        if !el.content_desc.is_empty() {
            own.push(vec![("id", lit(&short_id)), ("desc", lit(&el.content_desc))]);
        }
    }
    let base: (&str, String) = if short_id.is_empty() { ("class", short_class) } else { ("id", short_id) };
    // Labelled neighbours: on the same row to the left or right, or above.
    let b = el.bounds;
    let labelled = tree.elements.iter().filter(|e| e.visible && e.id != target && !e.text.is_empty());
    let same_row = |e: &&crate::ui::Element| e.center.1 >= b.top && e.center.1 <= b.bottom;
    let dist = |e: &crate::ui::Element| {
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
                parts.push(("index", Part::Int(i)));
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

    fn tree() -> UiTree {
        let xml = r#"<hierarchy rotation="0">
<node class="android.widget.TextView" text="Wi-Fi" bounds="[0,100][500,200]" clickable="true" />
<node class="android.widget.Switch" resource-id="p:id/wifi_switch" checkable="true" checked="true" bounds="[600,100][700,200]" />
<node class="android.widget.TextView" text="Bluetooth" bounds="[0,300][500,400]" clickable="true" />
<node class="android.widget.Switch" resource-id="p:id/bt_switch" checkable="true" bounds="[600,300][700,400]" />
<node class="android.widget.EditText" text="" hint="Search" bounds="[0,500][500,600]" />
</hierarchy>"#;
        crate::ui::parse(xml.as_bytes(), (1080, 2400)).unwrap()
    }

    fn sel(code: &str) -> Selector {
        let engine = rhai::Engine::new_raw();
        let value: Dynamic = engine.eval_expression(code).unwrap();
        Selector::from_dynamic(&value).unwrap()
    }

    #[test]
    fn strings_maps_and_relations() {
        let t = tree();
        assert_eq!(sel(r#""Wi-.*""#).find(&t).map(|e| e.text.as_str()), Some("Wi-Fi"));
        assert_eq!(sel(r#""Search""#).find(&t).map(|e| e.class.as_str()), Some("android.widget.EditText"));
        assert!(sel(r#""Wi""#).find(&t).is_none(), "full match, not a substring");
        assert_eq!(sel(r#"#{id: "bt_switch"}"#).find(&t).map(|e| e.checked), Some(false));
        let below = sel(r#"#{class: "Switch", below: "Wi-Fi"}"#);
        assert_eq!(below.find(&t).map(|e| e.resource_id.as_str()), Some("p:id/bt_switch"));
        assert_eq!(
            sel(r#"#{class: "Switch", index: 1}"#).find(&t).map(|e| e.resource_id.as_str()),
            Some("p:id/bt_switch")
        );
        assert_eq!(sel(r#"#{class: "Switch", checked: true}"#).find_all(&t).len(), 1);
        assert_eq!(sel(r#""(unclosed""#).find(&t).map(|e| e.id), None, "an invalid regex matches exactly");
        let err = Selector::from_dynamic(&Dynamic::from(3_i64)).unwrap_err();
        assert!(err.contains("string or a map"), "{err}");
    }

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
        let t = crate::ui::parse(xml.as_bytes(), (1080, 2400)).unwrap();
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
