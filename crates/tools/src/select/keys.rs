//! What each selector key means once read: a field and how it matches, a flag, a
//! relation. Not the documented list of keys (`reference.rs`), compiling a selector
//! (`compile.rs`) or matching one (`mod.rs`).

use regex::Regex;

use super::error::SelectorError;
use super::limits::PATTERN_BYTES;

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
