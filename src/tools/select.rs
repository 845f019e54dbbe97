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

/// The keys a selector map may have.
pub const SELECTOR_KEYS: &str =
    "text, desc, id, class, index, below, above, left_of, right_of, clickable, checked, enabled";

/// Why a value is not a selector.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    #[error("a selector is a string or a map like #{{text: \"OK\"}}, not {0}")]
    NotASelector(String),
    #[error("unknown selector key {0:?}; use {SELECTOR_KEYS}")]
    UnknownKey(String),
    #[error("{key} must be {expected}, not {found}")]
    WrongType { key: String, expected: &'static str, found: String },
    #[error("index must be ≥ 0")]
    NegativeIndex,
    #[error("the pattern ({0} characters) compiles to more than 1 MiB; use a shorter pattern or fewer repetitions")]
    PatternTooLarge(usize),
}

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

/// The most memory one selector pattern may compile to (and its matcher may cache):
/// a pattern like `(\w{1000}){1000}` is refused in milliseconds instead of taking
/// seconds and gigabytes.
const PATTERN_BYTES: usize = 1 << 20;

impl Pattern {
    fn new(p: &str) -> Result<Self, SelectorError> {
        let built = regex::RegexBuilder::new(&format!("^(?:{p})$"))
            .size_limit(PATTERN_BYTES)
            .dfa_size_limit(PATTERN_BYTES)
            .build();
        match built {
            Ok(r) => Ok(Pattern::Regex(r)),
            Err(regex::Error::CompiledTooBig(_)) => Err(SelectorError::PatternTooLarge(p.chars().count())),
            Err(_) => Ok(Pattern::Exact(p.to_string())),
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
    pub fn from_dynamic(v: &Dynamic) -> Result<Self, SelectorError> {
        if let Ok(s) = v.clone().into_immutable_string() {
            let s = s.to_string();
            return Ok(Selector { any_text: Some(Pattern::new(&s)?), shown: format!("{s:?}"), ..Self::empty() });
        }
        let Some(map) = v.clone().try_cast::<Map>() else {
            return Err(SelectorError::NotASelector(v.type_name().to_string()));
        };
        let mut sel = Selector { shown: format!("{v}"), ..Self::empty() };
        for (key, value) in &map {
            let wrong = |expected: &'static str, found: &str| SelectorError::WrongType {
                key: key.to_string(),
                expected,
                found: found.to_string(),
            };
            let text =
                || value.clone().into_immutable_string().map(|s| s.to_string()).map_err(|t| wrong("a string", t));
            let flag = || value.as_bool().map_err(|t| wrong("true or false", t));
            match key.as_str() {
                "text" => sel.text = Some(Pattern::new(&text()?)?),
                "desc" => sel.desc = Some(Pattern::new(&text()?)?),
                "id" => sel.id = Some(Pattern::new(&text()?)?),
                "class" => sel.class = Some(Pattern::new(&text()?)?),
                "clickable" => sel.flags.push((Flag::Clickable, flag()?)),
                "checked" => sel.flags.push((Flag::Checked, flag()?)),
                "enabled" => sel.flags.push((Flag::Enabled, flag()?)),
                "index" => {
                    let i = value.as_int().map_err(|t| wrong("an integer", t))?;
                    sel.index = Some(usize::try_from(i).map_err(|_| SelectorError::NegativeIndex)?);
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
                other => return Err(SelectorError::UnknownKey(other.to_string())),
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Two labelled switches and a search field (the selector tests' screen).
    pub(crate) fn tree() -> UiTree {
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
        assert!(err.to_string().contains("string or a map"), "{err}");
    }
}
