//! Selectors: finding elements on the live screen the way scripts describe them.
//!
//! A string matches an element whose text, content-desc or hint is exactly that
//! string; when nothing on screen is, one that contains it (ignoring case). A map
//! narrows further, each key literal unless it says otherwise — see [`SELECTOR_KEYS`]
//! for every key with an example. Regexes are only ever asked for by name
//! (`text_matches`), and one that does not compile is an error. The n-th match is
//! `nth`; `index` belongs to `ui_state` and is refused here with the way to use it.
//! Not here: waiting, tapping, or what an error lists (`catalog/selectors.rs`).

use std::collections::HashSet;
use std::time::Instant;

use regex::Regex;
use rhai::{Dynamic, Map};

use crate::ui::{Element, UiTree};

/// Every selector key, with what it matches and an example: the one list the error
/// messages, `codeact tools` and the README take.
pub const SELECTOR_KEYS: &[(&str, &str, &str)] = &[
    ("text", "text equals (exactly)", r#"#{text: "Wi-Fi"}"#),
    ("text_contains", "text contains", r#"#{text_contains: "Berlin (1/2)"}"#),
    ("text_starts_with", "text starts with", r#"#{text_starts_with: "New"}"#),
    ("text_matches", "text matches a regex (whole text)", r#"#{text_matches: "\\d+ new messages?"}"#),
    ("desc", "content-desc equals (also desc_contains, desc_starts_with, desc_matches)", r#"#{desc: "Navigate up"}"#),
    ("hint", "hint equals (also hint_contains, hint_starts_with, hint_matches)", r#"#{hint: "Search"}"#),
    ("id", "resource-id equals, with or without the package (also id_contains, id_matches)", r#"#{id: "wifi_switch"}"#),
    ("class", "class equals, full or short name (also class_matches)", r#"#{class: "Switch"}"#),
    ("app", "the element belongs to the app with this package", r#"#{app: "com.android.settings", text: "Wi-Fi"}"#),
    (
        "clickable, checkable, checked, enabled, focused, focusable, editable, scrollable, selected, long_clickable, password",
        "true or false",
        r#"#{class: "Switch", checked: true}"#,
    ),
    (
        "below, above, left_of, right_of",
        "relative to what another selector finds (nearest first)",
        r#"#{class: "Switch", right_of: "Bluetooth"}"#,
    ),
    ("inside", "has an ancestor the selector finds", r#"#{text: "OK", inside: #{id: "dialog"}}"#),
    ("has", "has a descendant the selector finds", r#"#{clickable: true, has: #{text: "Alarm"}}"#),
    (
        "nth",
        "the n-th match (0 first) in reading order, or nearest first with a relation",
        r#"#{class: "Switch", nth: 1}"#,
    ),
    (
        "no_scroll",
        "true: an action fails at once when nothing matches, instead of scrolling the list to look (tap, long_press, set_text, swipe_on, scroll)",
        r#"#{text: "Delete", no_scroll: true}"#,
    ),
];

/// The documented keys, one per line (`codeact tools`, errors).
pub fn selector_help() -> String {
    let mut out = String::from(
        "Selectors: a string matches text, content-desc or hint exactly, else contains it (any case): \"Wi-Fi\".\n\
         A map narrows (all keys must hold; values are literal unless the key ends in _matches):\n",
    );
    out.push_str(&format!(
        "(At most {MAX_PARTS} selectors in one, relations included, {MAX_PATTERNS} regexes and {} KiB of text.)\n",
        MAX_TEXT_BYTES / 1024
    ));
    for (key, meaning, example) in SELECTOR_KEYS {
        out.push_str(&format!("- {key}: {meaning}, e.g. {example}\n"));
    }
    out
}

/// The keys as a Markdown table (the README).
pub fn selector_markdown() -> String {
    let mut out = String::from("| Key | Matches | Example |\n|---|---|---|\n");
    for (key, meaning, example) in SELECTOR_KEYS {
        out.push_str(&format!("| `{key}` | {meaning} | `{example}` |\n"));
    }
    out
}

/// Why a value is not a selector.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    #[error("a selector is a string or a map like #{{text: \"OK\"}}, not {0}")]
    NotASelector(String),
    #[error(
        "unknown selector key {0:?}; the keys are text, desc, hint, id, class (each also _contains, _starts_with, _matches), app, clickable, checkable, checked, enabled, focused, focusable, editable, scrollable, selected, long_clickable, password, below, above, left_of, right_of, inside, has, nth, no_scroll (`codeact tools` shows examples)"
    )]
    UnknownKey(String),
    #[error(
        "`index` in a selector is refused: an element's index is its place in ui_state, so use tap_by_index({0}) for it, or nth: {0} for the n-th match of a selector"
    )]
    IndexKey(String),
    #[error("{key} must be {expected}, not {found}")]
    WrongType { key: String, expected: &'static str, found: String },
    #[error("nth must be ≥ 0")]
    NegativeNth,
    #[error("{key}: {pattern:?} is not a valid regex ({problem}); for a literal, use {literal} instead")]
    BadRegex { key: String, pattern: String, problem: String, literal: String },
    #[error("the pattern ({0} characters) compiles to more than 1 MiB; use a shorter pattern or fewer repetitions")]
    PatternTooLarge(usize),
    #[error("selectors nest at most {MAX_NESTING} levels deep")]
    TooDeep,
    #[error(
        "this selector holds more than {MAX_PARTS} selectors in all (below:, inside:, ... each count); describe the element with fewer relations"
    )]
    TooManyParts,
    #[error(
        "this selector holds more than {MAX_PATTERNS} regexes (*_matches keys) in all; use fewer, or _contains / _starts_with"
    )]
    TooManyPatterns,
    #[error(
        "this selector holds more than {} KiB of text in all; no element's text is that long: match a part of it with text_contains",
        MAX_TEXT_BYTES / 1024
    )]
    TooMuchText,
    #[error("the snippet's time ran out while its selector was being compiled")]
    OutOfTime,
    #[error("not a selector literal (a string or a map of literals): {0}")]
    NotALiteral(String),
}

/// How deep `below`/`inside`/... may nest.
const MAX_NESTING: usize = 16;

/// The most selectors one selector may hold, itself and every nested one counted.
/// The work done for a selector (compiling it, and matching it on every look of a
/// wait) runs in the runtime, not in the capped sandbox, so every part of it is
/// bounded: a tree of relations built in a loop (each level holding the previous one
/// twice) would otherwise double at every level.
pub const MAX_PARTS: usize = 64;

/// The most regexes (`*_matches` keys) one selector may compile, in all.
pub const MAX_PATTERNS: usize = 16;

/// The most text (literal and regex) one selector may hold, in all.
pub const MAX_TEXT_BYTES: usize = 64 * 1024;

/// How much of a selector its messages show.
const SHOWN_BYTES: usize = 240;

/// The most memory one selector pattern may compile to (and its matcher may cache):
/// a pattern like `(\w{1000}){1000}` is refused in milliseconds instead of taking
/// seconds and gigabytes.
const PATTERN_BYTES: usize = 1 << 20;

/// A compiled selector.
#[derive(Debug, Clone)]
pub struct Selector {
    /// A bare string: exact on text/desc/hint, else contains (any case).
    any_text: Option<String>,
    fields: Vec<(Field, Pattern)>,
    flags: Vec<(Flag, bool)>,
    relations: Vec<(Relation, Box<Selector>)>,
    nth: Option<usize>,
    /// An action on it does not scroll to look when nothing matches.
    pub no_scroll: bool,
    /// How the script wrote it, for messages.
    pub shown: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Text,
    Desc,
    Hint,
    Id,
    Class,
    Package,
}

#[derive(Debug, Clone, Copy)]
enum Flag {
    Clickable,
    Checkable,
    Checked,
    Enabled,
    Focused,
    Focusable,
    Editable,
    Scrollable,
    Selected,
    LongClickable,
    Password,
}

#[derive(Debug, Clone, Copy)]
enum Relation {
    Below,
    Above,
    LeftOf,
    RightOf,
    Inside,
    Has,
}

#[derive(Debug, Clone)]
enum Pattern {
    Exact(String),
    Contains(String),
    StartsWith(String),
    Regex(Regex),
}

impl Pattern {
    fn regex(key: &str, p: &str) -> Result<Self, SelectorError> {
        let built = regex::RegexBuilder::new(&format!("^(?:{p})$"))
            .size_limit(PATTERN_BYTES)
            .dfa_size_limit(PATTERN_BYTES)
            .build();
        match built {
            Ok(r) => Ok(Pattern::Regex(r)),
            Err(regex::Error::CompiledTooBig(_)) => Err(SelectorError::PatternTooLarge(p.chars().count())),
            Err(e) => {
                let problem = e.to_string().lines().last().unwrap_or("").trim().to_string();
                let field = key.strip_suffix("_matches").unwrap_or(key);
                Err(SelectorError::BadRegex {
                    key: key.to_string(),
                    pattern: p.to_string(),
                    problem,
                    literal: format!("{field}_contains or {field}"),
                })
            }
        }
    }

    fn matches(&self, s: &str) -> bool {
        match self {
            Pattern::Exact(e) => e == s,
            Pattern::Contains(c) => s.contains(c.as_str()),
            Pattern::StartsWith(p) => s.starts_with(p.as_str()),
            Pattern::Regex(r) => r.is_match(s),
        }
    }
}

/// Splits `text_contains` into the field and how it matches.
fn field_key(key: &str) -> Option<(Field, &str)> {
    let (name, how) = match key.split_once('_') {
        Some((name, how)) if matches!(how, "contains" | "starts_with" | "matches") => (name, how),
        _ => (key, "equals"),
    };
    let field = match name {
        "text" => Field::Text,
        "desc" => Field::Desc,
        "hint" => Field::Hint,
        "id" => Field::Id,
        "class" => Field::Class,
        "app" => Field::Package,
        _ => return None,
    };
    Some((field, how))
}

fn flag_key(key: &str) -> Option<Flag> {
    Some(match key {
        "clickable" => Flag::Clickable,
        "checkable" => Flag::Checkable,
        "checked" => Flag::Checked,
        "enabled" => Flag::Enabled,
        "focused" => Flag::Focused,
        "focusable" => Flag::Focusable,
        "editable" => Flag::Editable,
        "scrollable" => Flag::Scrollable,
        "selected" => Flag::Selected,
        "long_clickable" => Flag::LongClickable,
        "password" => Flag::Password,
        _ => return None,
    })
}

fn relation_key(key: &str) -> Option<Relation> {
    Some(match key {
        "below" => Relation::Below,
        "above" => Relation::Above,
        "left_of" => Relation::LeftOf,
        "right_of" => Relation::RightOf,
        "inside" => Relation::Inside,
        "has" => Relation::Has,
        _ => return None,
    })
}

/// The values of `e` a field matches against (an id and a class in full and short).
fn field_values(field: Field, e: &Element) -> [&str; 2] {
    match field {
        Field::Text => [&e.text, ""],
        Field::Desc => [&e.content_desc, ""],
        Field::Hint => [&e.hint, ""],
        // The short form is what `ui_state` shows as `id`.
        Field::Id => [&e.resource_id, e.resource_id.rsplit('/').next().unwrap_or("")],
        Field::Class => [&e.class, e.class.rsplit('.').next().unwrap_or("")],
        Field::Package => [&e.package, ""],
    }
}

/// What a selector being compiled has used of its allowance.
struct Budget {
    parts: usize,
    patterns: usize,
    text: usize,
    /// Compiling stops past it (the snippet's deadline).
    deadline: Option<Instant>,
}

impl Budget {
    fn part(&mut self) -> Result<(), SelectorError> {
        self.parts += 1;
        if self.parts > MAX_PARTS { Err(SelectorError::TooManyParts) } else { Ok(()) }
    }

    fn text(&mut self, text: &str) -> Result<(), SelectorError> {
        self.text += text.len();
        if self.text > MAX_TEXT_BYTES { Err(SelectorError::TooMuchText) } else { Ok(()) }
    }

    fn pattern(&mut self) -> Result<(), SelectorError> {
        self.patterns += 1;
        if self.patterns > MAX_PATTERNS {
            return Err(SelectorError::TooManyPatterns);
        }
        match self.deadline {
            Some(deadline) if Instant::now() >= deadline => Err(SelectorError::OutOfTime),
            _ => Ok(()),
        }
    }
}

/// The most source a selector literal may take (its text, quoted and keyed).
const MAX_SOURCE_BYTES: usize = 2 * MAX_TEXT_BYTES;

/// An engine that reads literals and nothing else: no functions (a raw engine),
/// no loops, branches, blocks or closures, and every size bounded.
fn literal_engine() -> rhai::Engine {
    let mut engine = rhai::Engine::new_raw();
    engine
        .set_allow_looping(false)
        .set_allow_loop_expressions(false)
        .set_allow_if_expression(false)
        .set_allow_switch_expression(false)
        .set_allow_statement_expression(false)
        .set_allow_anonymous_fn(false)
        .set_max_operations(10_000)
        .set_max_call_levels(4)
        .set_max_expr_depths(2 * MAX_NESTING + 8, 2 * MAX_NESTING + 8)
        .set_max_string_size(MAX_TEXT_BYTES)
        .set_max_array_size(MAX_PARTS)
        .set_max_map_size(MAX_PARTS)
        .set_max_variables(0)
        .set_max_functions(0)
        .set_max_modules(0);
    engine
}

/// `text`, cut to [`SHOWN_BYTES`] with its size said.
fn shorten(text: String) -> String {
    crate::clip::clip(&text, SHOWN_BYTES).into_owned()
}

impl Selector {
    /// Compiles a selector (a string or a map) within the limits above.
    pub fn from_dynamic(v: &Dynamic) -> Result<Self, SelectorError> {
        Self::compile(v, None)
    }

    /// Compiles a selector, giving up once `deadline` has passed (a tool call's).
    pub fn from_dynamic_until(v: &Dynamic, deadline: Instant) -> Result<Self, SelectorError> {
        Self::compile(v, Some(deadline))
    }

    /// Reads a selector written as a Rhai literal (`"OK"`, `#{id: "send", below: "To"}`),
    /// as a replay's precondition keeps it. Read as data: no loop, closure, block or
    /// branch is accepted, evaluation is capped in operations and sizes, and the
    /// source in length, so a remembered or imported step cannot make the runtime
    /// work without bound.
    pub fn from_source(source: &str) -> Result<Self, SelectorError> {
        if source.len() > MAX_SOURCE_BYTES {
            return Err(SelectorError::TooMuchText);
        }
        let value = literal_engine()
            .eval_expression::<Dynamic>(source)
            .map_err(|e| SelectorError::NotALiteral(shorten(e.to_string())))?;
        Self::from_dynamic(&value)
    }

    fn compile(v: &Dynamic, deadline: Option<Instant>) -> Result<Self, SelectorError> {
        let mut budget = Budget { parts: 0, patterns: 0, text: 0, deadline };
        Self::parse(v, 0, &mut budget)
    }

    fn parse(v: &Dynamic, depth: usize, budget: &mut Budget) -> Result<Self, SelectorError> {
        if depth > MAX_NESTING {
            return Err(SelectorError::TooDeep);
        }
        budget.part()?;
        // Read in place: cloning a value to look at it would copy a whole tree.
        if let Some(s) = v.read_lock::<rhai::ImmutableString>() {
            budget.text(&s)?;
            let s = s.to_string();
            return Ok(Selector { shown: shorten(format!("{s:?}")), any_text: Some(s), ..Self::empty() });
        }
        let Some(map) = v.read_lock::<Map>() else {
            return Err(SelectorError::NotASelector(v.type_name().to_string()));
        };
        let mut sel = Selector::empty();
        for (key, value) in map.iter() {
            let wrong = |expected: &'static str, found: &str| SelectorError::WrongType {
                key: key.to_string(),
                expected,
                found: found.to_string(),
            };
            if let Some((field, how)) = field_key(key) {
                let text = value
                    .read_lock::<rhai::ImmutableString>()
                    .map(|s| s.to_string())
                    .ok_or_else(|| wrong("a string", value.type_name()))?;
                budget.text(&text)?;
                let pattern = match how {
                    "contains" => Pattern::Contains(text),
                    "starts_with" => Pattern::StartsWith(text),
                    "matches" => {
                        budget.pattern()?;
                        Pattern::regex(key, &text)?
                    }
                    _ => Pattern::Exact(text),
                };
                sel.fields.push((field, pattern));
            } else if let Some(flag) = flag_key(key) {
                sel.flags.push((flag, value.as_bool().map_err(|t| wrong("true or false", t))?));
            } else if let Some(relation) = relation_key(key) {
                sel.relations.push((relation, Box::new(Selector::parse(value, depth + 1, budget)?)));
            } else if key.as_str() == "nth" {
                let n = value.as_int().map_err(|t| wrong("an integer", t))?;
                sel.nth = Some(usize::try_from(n).map_err(|_| SelectorError::NegativeNth)?);
            } else if key.as_str() == "no_scroll" {
                sel.no_scroll = value.as_bool().map_err(|t| wrong("true or false", t))?;
            } else if key.as_str() == "index" {
                return Err(SelectorError::IndexKey(shorten(value.to_string())));
            } else {
                return Err(SelectorError::UnknownKey(shorten(key.to_string())));
            }
        }
        drop(map);
        // Formatted only once the whole selector is known to be within its limits.
        sel.shown = shorten(format!("{v}"));
        Ok(sel)
    }

    fn empty() -> Self {
        Selector {
            any_text: None,
            fields: Vec::new(),
            flags: Vec::new(),
            relations: Vec::new(),
            nth: None,
            no_scroll: false,
            shown: String::new(),
        }
    }

    /// The text the selector looks for (a bare string, or a text-like key), for
    /// suggesting what is on screen instead.
    pub fn wanted_text(&self) -> Option<&str> {
        self.any_text.as_deref().or_else(|| {
            self.fields.iter().find_map(|(_, p)| match p {
                Pattern::Exact(t) | Pattern::Contains(t) | Pattern::StartsWith(t) => Some(t.as_str()),
                Pattern::Regex(_) => None,
            })
        })
    }

    /// `e` on its own (no relations); `loose` takes a bare string as "contains, any case".
    fn matches_self(&self, e: &Element, loose: bool) -> bool {
        let any_text = self.any_text.as_ref().is_none_or(|want| {
            let texts = [&e.text, &e.content_desc, &e.hint];
            if loose {
                let want = want.to_lowercase();
                texts.iter().any(|s| !s.is_empty() && s.to_lowercase().contains(&want))
            } else {
                texts.contains(&want)
            }
        });
        any_text
            && self
                .fields
                .iter()
                .all(|(field, p)| field_values(*field, e).iter().any(|v| !v.is_empty() && p.matches(v)))
            && self.flags.iter().all(|(f, want)| {
                let have = match f {
                    Flag::Clickable => e.clickable || e.actions.touch,
                    Flag::Checkable => e.checkable,
                    Flag::Checked => e.checked,
                    Flag::Enabled => e.enabled,
                    Flag::Focused => e.focused,
                    Flag::Focusable => e.focusable,
                    Flag::Editable => e.actions.set_text,
                    Flag::Scrollable => e.scrollable,
                    Flag::Selected => e.selected,
                    Flag::LongClickable => e.long_clickable,
                    Flag::Password => e.password,
                };
                have == *want
            })
    }

    /// Every visible element that matches, in reading order (top to bottom, then
    /// left to right), or nearest first when a position relation is given.
    pub fn find_all<'a>(&self, tree: &'a UiTree) -> Vec<&'a Element> {
        let pick = |loose: bool| -> Vec<&'a Element> {
            tree.elements.iter().filter(|e| e.visible && self.matches_self(e, loose)).collect()
        };
        let mut found = pick(false);
        if found.is_empty() && self.any_text.is_some() {
            found = pick(true);
        }
        found.sort_by_key(|e| (e.bounds.top, e.bounds.left));
        for (rel, anchor_sel) in &self.relations {
            match rel {
                Relation::Inside => {
                    let anchors: HashSet<usize> = anchor_sel.find_all(tree).iter().map(|a| a.id).collect();
                    found.retain(|e| ancestors(tree, e).any(|a| anchors.contains(&a)));
                }
                Relation::Has => {
                    // Every element some anchor lies inside: one walk up per anchor.
                    let holders: HashSet<usize> =
                        anchor_sel.find_all(tree).iter().flat_map(|a| ancestors(tree, a)).collect();
                    found.retain(|e| holders.contains(&e.id));
                }
                _ => {
                    let Some(anchor) = anchor_sel.find_all(tree).into_iter().next() else { return Vec::new() };
                    let a = anchor.bounds;
                    found.retain(|e| {
                        let b = e.bounds;
                        e.id != anchor.id
                            && match rel {
                                Relation::Below => b.top >= a.bottom - 2,
                                Relation::Above => b.bottom <= a.top + 2,
                                Relation::LeftOf => b.right <= a.left + 2,
                                _ => b.left >= a.right - 2,
                            }
                    });
                    let (ax, ay) = anchor.center;
                    found.sort_by_key(|e| {
                        let (dx, dy) = (i64::from(e.center.0 - ax), i64::from(e.center.1 - ay));
                        dx * dx + dy * dy
                    });
                }
            }
        }
        match self.nth {
            Some(i) => found.into_iter().nth(i).into_iter().collect(),
            None => found,
        }
    }

    pub fn find<'a>(&self, tree: &'a UiTree) -> Option<&'a Element> {
        self.find_all(tree).into_iter().next()
    }
}

/// The ids of `e`'s ancestors, nearest first.
fn ancestors<'a>(tree: &'a UiTree, e: &Element) -> impl Iterator<Item = usize> + 'a {
    std::iter::successors(e.parent, move |p| tree.get(*p).and_then(|p| p.parent))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Two labelled switches and a search field (the selector tests' screen).
    pub(crate) fn tree() -> UiTree {
        let xml = r#"<hierarchy rotation="0">
<node class="android.widget.FrameLayout" bounds="[0,0][1080,2400]">
<node class="android.widget.LinearLayout" resource-id="p:id/wifi_row" bounds="[0,100][1080,200]">
<node class="android.widget.TextView" text="Wi-Fi" bounds="[0,100][500,200]" clickable="true" />
<node class="android.widget.Switch" resource-id="p:id/wifi_switch" checkable="true" checked="true" bounds="[600,100][700,200]" />
</node>
<node class="android.widget.LinearLayout" resource-id="p:id/bt_row" bounds="[0,300][1080,400]">
<node class="android.widget.TextView" text="Bluetooth" bounds="[0,300][500,400]" clickable="true" />
<node class="android.widget.Switch" resource-id="p:id/bt_switch" checkable="true" bounds="[600,300][700,400]" />
</node>
<node class="android.widget.EditText" text="" hint="Search" bounds="[0,500][500,600]" />
</node>
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
        let text = |code: &str| sel(code).find(&t).map(|e| e.text.clone());
        assert_eq!(text(r#""Wi-Fi""#).as_deref(), Some("Wi-Fi"), "exact");
        assert_eq!(text(r#""wi-f""#).as_deref(), Some("Wi-Fi"), "else contains, any case");
        assert_eq!(sel(r#""Search""#).find(&t).map(|e| e.class.as_str()), Some("android.widget.EditText"), "hint");
        assert!(sel(r#""Wi-.*""#).find(&t).is_none(), "a string is never a regex");
        assert_eq!(text(r#"#{text_matches: "Wi-.*"}"#).as_deref(), Some("Wi-Fi"));
        assert_eq!(text(r#"#{text_starts_with: "Blue"}"#).as_deref(), Some("Bluetooth"));
        assert_eq!(text(r#"#{text_contains: "tooth"}"#).as_deref(), Some("Bluetooth"));
        assert!(sel(r#"#{text: "Wi"}"#).find(&t).is_none(), "text is exact");
        assert_eq!(sel(r#"#{id: "bt_switch"}"#).find(&t).map(|e| e.checked), Some(false));
        assert_eq!(sel(r#"#{id: "p:id/bt_switch"}"#).find(&t).map(|e| e.checked), Some(false), "with the package");
        assert!(sel(r#"#{id: "switch"}"#).find(&t).is_none());
        assert_eq!(sel(r#"#{id_contains: "switch"}"#).find_all(&t).len(), 2);
        let below = sel(r#"#{class: "Switch", below: "Wi-Fi"}"#);
        assert_eq!(below.find(&t).map(|e| e.resource_id.as_str()), Some("p:id/bt_switch"));
        assert_eq!(
            sel(r#"#{class: "Switch", nth: 1}"#).find(&t).map(|e| e.resource_id.as_str()),
            Some("p:id/bt_switch")
        );
        assert_eq!(sel(r#"#{class: "Switch", checked: true}"#).find_all(&t).len(), 1);
        assert_eq!(sel(r#"#{editable: true}"#).find(&t).map(|e| e.hint.as_str()), Some("Search"));
        assert_eq!(sel(r#"#{text: "Wi-Fi", inside: #{class: "LinearLayout"}}"#).find(&t).map(|e| e.id), Some(2));
        assert_eq!(sel(r#"#{class: "LinearLayout", has: #{text: "Bluetooth"}}"#).find(&t).map(|e| e.id), Some(4));
        assert!(sel(r#"#{text: "Wi-Fi", inside: #{id: "bt_row"}}"#).find(&t).is_none());
        let err = Selector::from_dynamic(&Dynamic::from(3_i64)).unwrap_err();
        assert!(err.to_string().contains("string or a map"), "{err}");
    }

    #[test]
    fn mistakes_are_errors_that_say_what_to_write() {
        let engine = rhai::Engine::new_raw();
        let err = |code: &str| {
            let value: Dynamic = engine.eval_expression(code).unwrap();
            Selector::from_dynamic(&value).unwrap_err().to_string()
        };
        assert!(
            err(r#"#{text_matches: "(Mobile"}"#).contains("not a valid regex"),
            "{}",
            err(r#"#{text_matches: "(Mobile"}"#)
        );
        assert!(err(r#"#{text_matches: "(Mobile"}"#).contains("text_contains or text"));
        assert!(err(r#"#{id: "x", index: 4}"#).contains("tap_by_index(4)"));
        assert!(err(r#"#{colour: "red"}"#).contains("unknown selector key \"colour\""));
        assert!(err(r#"#{nth: -1}"#).contains("≥ 0"));
        assert!(err(r#"#{checked: "yes"}"#).contains("true or false"));
        assert!(err(r#"#{text_matches: "(\\w{1000}){1000}"}"#).contains("1 MiB"));
        let deep = (0..40).fold(Dynamic::from("x"), |inner, _| {
            let mut m = Map::new();
            m.insert("below".into(), inner);
            Dynamic::from(m)
        });
        assert!(Selector::from_dynamic(&deep).unwrap_err().to_string().contains("nest at most"));
    }

    #[test]
    fn a_selector_built_in_a_loop_is_refused_before_it_costs_anything() {
        // Each level holds the one before twice, with a regex at every level: 2^16
        // parts and as many compilations, were the parts not counted.
        let doubling = (0..16).fold(Dynamic::from("x"), |inner, i| {
            let mut m = Map::new();
            m.insert("text_matches".into(), Dynamic::from(format!("(a|b|c){{{}}}", 50 + i)));
            m.insert("below".into(), inner.clone());
            m.insert("above".into(), inner);
            Dynamic::from(m)
        });
        let started = std::time::Instant::now();
        let err = Selector::from_dynamic(&doubling).unwrap_err();
        assert!(matches!(err, SelectorError::TooManyParts | SelectorError::TooManyPatterns), "{err}");
        assert!(started.elapsed() < std::time::Duration::from_secs(2), "took {:?}", started.elapsed());

        let patterns = (0..MAX_PATTERNS + 1).fold(Dynamic::from("x"), |inner, i| {
            let mut m = Map::new();
            m.insert("text_matches".into(), Dynamic::from(format!("a{i}")));
            m.insert("inside".into(), inner);
            Dynamic::from(m)
        });
        // 17 levels nest too deep too; either limit refuses it.
        assert!(Selector::from_dynamic(&patterns).is_err());
        let mut wide = Map::new();
        for (i, key) in
            ["text_matches", "desc_matches", "hint_matches", "id_matches", "class_matches"].iter().enumerate()
        {
            wide.insert((*key).into(), Dynamic::from(format!("p{i}")));
        }
        let mut several = Map::new();
        for (i, key) in ["below", "above", "left_of", "right_of"].iter().enumerate() {
            let _ = i;
            several.insert((*key).into(), Dynamic::from(wide.clone()));
        }
        let err = Selector::from_dynamic(&Dynamic::from(several)).unwrap_err();
        assert_eq!(err, SelectorError::TooManyPatterns, "20 regexes in one selector");

        let big = Dynamic::from("x".repeat(MAX_TEXT_BYTES + 1));
        assert_eq!(Selector::from_dynamic(&big).unwrap_err(), SelectorError::TooMuchText);

        let past = std::time::Instant::now() - std::time::Duration::from_millis(1);
        let mut m = Map::new();
        m.insert("text_matches".into(), Dynamic::from("a+"));
        assert_eq!(Selector::from_dynamic_until(&Dynamic::from(m), past).unwrap_err(), SelectorError::OutOfTime);
    }

    #[test]
    fn a_recorded_selector_is_read_as_data_and_nothing_else() {
        let t = tree();
        let found = |src: &str| Selector::from_source(src).map(|s| s.find(&t).map(|e| e.text.clone()));
        assert_eq!(found(r#"#{"text": "Wi-Fi"}"#).unwrap().as_deref(), Some("Wi-Fi"));
        assert_eq!(found(r#""Bluetooth""#).unwrap().as_deref(), Some("Bluetooth"));
        for hostile in ["loop { }", "{ let x = 1; loop {} }", "if true { \"a\" } else { \"b\" }", "|| 1", "f()"] {
            let started = std::time::Instant::now();
            assert!(Selector::from_source(hostile).is_err(), "{hostile} is refused");
            assert!(started.elapsed() < std::time::Duration::from_millis(500), "{hostile}");
        }
        assert_eq!(Selector::from_source(&"\"".repeat(300_000)).unwrap_err(), SelectorError::TooMuchText);
    }

    #[test]
    fn every_documented_example_parses() {
        let engine = rhai::Engine::new_raw();
        for (key, _, example) in SELECTOR_KEYS {
            let value: Dynamic = engine.eval_expression(example).unwrap_or_else(|e| panic!("{key}: {example}: {e}"));
            assert!(Selector::from_dynamic(&value).is_ok(), "{key}: {example}");
        }
    }
}
