//! The selector keys as users read them: every key with what it matches and an
//! example, the one list the errors, `codeact tools`, the REPL's help and the book
//! take. Not what a key means to the matcher (`keys.rs`).

use super::limits::{MAX_PARTS, MAX_PATTERNS, MAX_TEXT_BYTES};

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
