//! The selector keys: every key with what it matches and an example (the one list
//! the errors, `codeact tools` and the README take), and what each key means once
//! read (a field and how it matches, a flag, a relation). Not compiling a selector
//! (`compile.rs`) or matching one (`mod.rs`).

use regex::Regex;

use super::error::SelectorError;
use super::limits::{MAX_PARTS, MAX_PATTERNS, MAX_TEXT_BYTES, PATTERN_BYTES};

/// Every selector key, with what it matches and an example: the one list the error
/// messages, `codeact tools` and the README take.
pub const SELECTOR_KEYS: &[(&str, &str, &str)] = &[
    ("text", "text equals (exactly)", r#"#{text: "Wi-Fi"}"#),
    ("text_contains", "text contains", r#"#{text_contains: "Berlin (1/2)"}"#),
    ("text_starts_with", "text starts with", r#"#{text_starts_with: "New"}"#),
    ("text_matches", "text matches a regex (whole text)", r#"#{text_matches: "\\d+ new messages?"}"#),
    ("desc", "content-desc equals (also desc_contains, desc_starts_with, desc_matches)", r#"#{desc: "Navigate up"}"#),
    ("hint", "hint equals (also hint_contains, hint_starts_with, hint_matches)", r#"#{hint: "Search"}"#),
    (
        "label",
        "text, content-desc or hint equals: what a bare string looks at, as a key (also label_contains, label_starts_with, label_matches)",
        r#"#{label_matches: "(?i)new note", enabled: true}"#,
    ),
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
        "relative to what another selector finds (nearest first); an anchor that matches several places is refused, naming them: narrow it, or pick one with nth inside it (right_of: #{label: \"Dark theme\", nth: 1})",
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
        "image",
        "a reference picture (`codeact assets`), found on the screenshot where the tree cannot say where; with threshold (0–1, default the reference's or 0.8)",
        r#"#{image: "send_button", threshold: 0.85}"#,
    ),
    (
        "ai",
        "a description the vision model locates on the screenshot (`locate`); with other keys, a chain: the tree first, then the picture, then the model, and the action line says which answered",
        r#"#{text: "Send", image: "send_button", ai: "the blue send button"}"#,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Field {
    Text,
    Desc,
    Hint,
    /// Text, content-desc or hint: any of them.
    Label,
    Id,
    Class,
    Package,
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Flag {
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
pub(super) enum Relation {
    Below,
    Above,
    LeftOf,
    RightOf,
    Inside,
    Has,
}

#[derive(Debug, Clone)]
pub(super) enum Pattern {
    Exact(String),
    Contains(String),
    StartsWith(String),
    Regex(Regex),
}

impl Pattern {
    pub(super) fn regex(key: &str, p: &str) -> Result<Self, SelectorError> {
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

    pub(super) fn matches(&self, s: &str) -> bool {
        match self {
            Pattern::Exact(e) => e == s,
            Pattern::Contains(c) => s.contains(c.as_str()),
            Pattern::StartsWith(p) => s.starts_with(p.as_str()),
            Pattern::Regex(r) => r.is_match(s),
        }
    }
}

/// Splits `text_contains` into the field and how it matches.
pub(super) fn field_key(key: &str) -> Option<(Field, &str)> {
    let (name, how) = match key.split_once('_') {
        Some((name, how)) if matches!(how, "contains" | "starts_with" | "matches") => (name, how),
        _ => (key, "equals"),
    };
    let field = match name {
        "text" => Field::Text,
        "desc" => Field::Desc,
        "hint" => Field::Hint,
        "label" => Field::Label,
        "id" => Field::Id,
        "class" => Field::Class,
        "app" => Field::Package,
        _ => return None,
    };
    Some((field, how))
}

pub(super) fn flag_key(key: &str) -> Option<Flag> {
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

pub(super) fn relation_key(key: &str) -> Option<Relation> {
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
