//! The `-android uiautomator` locator over the observed tree: the expression read
//! by adb-wire's `uiselector` into its calls, and those matched against each
//! element as UiAutomator does (`text` exactly, `textContains`, `textStartsWith`,
//! `textMatches` the whole text, the same for description, class, package and
//! resource id; the boolean states; `index` among siblings; `instance` the nth
//! match). A `UiScrollable` search is answered by `find.rs`, which swipes. Not the
//! other locators.

use adb_wire::uiselector::{self as language, Fields, Query};
use codeact_platform::ui::{Element, UiTree};
use serde_json::Value;

/// One condition of a selector.
enum Condition {
    Text(String, String),
    Pattern(String, regex::Regex),
    Flag(String, bool),
    Index(usize),
}

/// A selector: its conditions, and which match it wants (`instance`, when set).
pub struct Selector {
    conditions: Vec<Condition>,
    pub instance: Option<usize>,
}

/// What a locator asks for, ready to match.
pub enum Asked {
    Plain(Selector),
    Scroll { within: Selector, target: Selector, max_swipes: usize, horizontal: bool },
}

/// Reads a locator.
pub fn parse(text: &str) -> Result<Asked, String> {
    Ok(match language::parse(text)? {
        Query::Plain(fields) => Asked::Plain(selector(&fields)?),
        Query::Scroll(s) => Asked::Scroll {
            within: selector(&s.within)?,
            target: selector(&s.target)?,
            max_swipes: s.max_swipes,
            horizontal: s.horizontal,
        },
    })
}

fn selector(fields: &Fields) -> Result<Selector, String> {
    let mut conditions = Vec::new();
    let mut instance = None;
    for (name, value) in fields {
        let count = || value.as_u64().map(|n| n as usize).ok_or_else(|| format!("{name} takes a number"));
        match (name.as_str(), value) {
            ("index", _) => conditions.push(Condition::Index(count()?)),
            ("instance", _) => instance = Some(count()?),
            (n, Value::String(pattern)) if n.ends_with("Matches") => {
                // Java's String.matches: the whole text must match.
                let anchored = format!("^(?:{pattern})$");
                let compiled = regex::RegexBuilder::new(&anchored)
                    .size_limit(1 << 20)
                    .build()
                    .map_err(|e| format!("{n}: not a regular expression ({e})"))?;
                conditions.push(Condition::Pattern(n.to_string(), compiled));
            }
            (n, Value::Bool(b)) => conditions.push(Condition::Flag(n.to_string(), *b)),
            (n, Value::String(s)) => conditions.push(Condition::Text(n.to_string(), s.clone())),
            (n, _) => return Err(format!("UiSelector.{n}: the argument does not fit")),
        }
    }
    Ok(Selector { conditions, instance })
}

impl Selector {
    /// Whether `e` meets every condition.
    pub fn accepts(&self, e: &Element) -> bool {
        self.conditions.iter().all(|c| meets(e, c))
    }

    /// The ids of the elements it finds (below `scope` only, when given), its
    /// `instance` applied.
    pub fn find(&self, tree: &UiTree, scope: Option<usize>) -> Vec<usize> {
        let all = match scope {
            Some(id) => tree.subtree(id).get(1..).unwrap_or(&[]),
            None => &tree.elements[..],
        };
        let found = all.iter().filter(|e| self.accepts(e)).map(|e| e.id);
        match self.instance {
            Some(nth) => found.skip(nth).take(1).collect(),
            None => found.collect(),
        }
    }
}

fn meets(e: &Element, condition: &Condition) -> bool {
    let field = |name: &str| -> &str {
        match name {
            n if n.starts_with("text") => &e.text,
            n if n.starts_with("className") => &e.class,
            n if n.starts_with("description") => &e.content_desc,
            n if n.starts_with("packageName") => &e.package,
            _ => &e.resource_id,
        }
    };
    match condition {
        Condition::Text(name, want) => {
            let have = field(name);
            if name.ends_with("Contains") {
                have.contains(want.as_str())
            } else if name.ends_with("StartsWith") {
                have.starts_with(want.as_str())
            } else {
                have == want
            }
        }
        Condition::Pattern(name, pattern) => pattern.is_match(field(name)),
        Condition::Flag(name, want) => {
            let have = match name.as_str() {
                "checkable" => e.checkable,
                "checked" => e.checked,
                "clickable" => e.clickable,
                "longClickable" => e.long_clickable,
                "scrollable" => e.scrollable,
                "enabled" => e.enabled,
                "focusable" => e.focusable,
                "focused" => e.focused,
                _ => e.selected,
            };
            have == *want
        }
        Condition::Index(want) => e.index == *want,
    }
}
