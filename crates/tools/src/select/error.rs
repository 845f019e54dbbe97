//! Why a value is not a selector: one typed error per mistake, each saying what to
//! write instead.

use super::limits::{MAX_NESTING, MAX_PARTS, MAX_PATTERNS, MAX_TEXT_BYTES};

/// Why a value is not a selector.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    #[error("a selector is a string or a map like #{{text: \"OK\"}}, not {0}")]
    NotASelector(String),
    #[error("unknown selector key {:?}; the keys are {} (`codeact tools` shows examples)", .0, key_names())]
    UnknownKey(String),
    #[error(
        "this element's signature or bounds were changed: pass an element as find() or ui_state gave it, or write a selector for it (#{{id: el.id}}, #{{text: el.text}})"
    )]
    NotAnElement,
    #[error(
        "`index` in a selector is refused: an element's index is its place in ui_state, so use tap_by_index({0}) for it, or nth: {0} for the n-th match of a selector"
    )]
    IndexKey(String),
    #[error("{key} must be {expected}, not {found}")]
    WrongType { key: String, expected: &'static str, found: String },
    #[error("nth must be ≥ 0")]
    NegativeNth,
    #[error(
        "image and ai go in the outer selector, not inside below:, inside:, has: ...: #{{text: \"Send\", image: \"send_button\", ai: \"the send button\"}} tries the tree, then the picture, then the model"
    )]
    LocatedNested,
    #[error(
        "ai describes what to find in a few words (at most 500 bytes), e.g. #{{ai: \"the blue send button\"}}; got {0:?}"
    )]
    BadDescription(String),
    #[error(
        "a watcher looks between actions and asks no model (that would be a model call before every action): watch a text, desc, id or #{{image: \"NAME\"}} instead of #{{ai: ...}}, or ask yourself (locate(\"...\"))"
    )]
    ImageInWatcher,
    #[error("threshold goes with image, and is above 0 and at most 1: #{{image: \"send_button\", threshold: 0.85}}")]
    BadThreshold,
    #[error("{0:?} is not a reference name (`codeact assets list` shows them: lowercase letters, digits, _ and -)")]
    BadImageName(String),
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

/// Every selector key, as the one list has them.
fn key_names() -> String {
    super::reference::SELECTOR_KEYS.iter().map(|(k, _, _)| *k).collect::<Vec<_>>().join(", ")
}
