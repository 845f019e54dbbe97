//! The REPL's line-editor helper: Tab completion of tools, variables, keywords and
//! meta-commands.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};

use super::meta::META;

const KEYWORDS: &[&str] = &[
    "let",
    "const",
    "fn",
    "if",
    "else",
    "while",
    "loop",
    "for",
    "in",
    "break",
    "continue",
    "return",
    "throw",
    "try",
    "catch",
    "true",
    "false",
    "print",
    "debug",
    "ui_state",
    "phone_state",
];

/// Completion of tools, variables, keywords and meta-commands.
pub(super) struct ReplHelper {
    /// Tools, then the session's variables (refreshed after every snippet).
    words: Arc<Mutex<Vec<String>>>,
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        if before.starts_with(':') && !before.contains(' ') {
            let found = META
                .iter()
                .map(|(m, _)| m.split(' ').next().unwrap_or(m))
                .filter(|m| m.starts_with(before))
                .map(|m| Pair { display: m.to_string(), replacement: m.to_string() })
                .collect();
            return Ok((0, found));
        }
        let start = before.rfind(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
        let word = &before[start..];
        if word.is_empty() {
            return Ok((pos, Vec::new()));
        }
        let words = self.words.lock().unwrap_or_else(|e| e.into_inner());
        let mut found: Vec<Pair> = words
            .iter()
            .map(String::as_str)
            .chain(KEYWORDS.iter().copied())
            .filter(|w| w.starts_with(word))
            .map(|w| Pair { display: w.to_string(), replacement: w.to_string() })
            .collect();
        found.sort_by(|a, b| a.display.cmp(&b.display));
        found.dedup_by(|a, b| a.display == b.display);
        Ok((start, found))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
}

impl Highlighter for ReplHelper {
    fn highlight_prompt<'b, 's: 'b, 'p: 'b>(&'s self, prompt: &'p str, _default: bool) -> Cow<'b, str> {
        Cow::Borrowed(prompt)
    }
}

/// Every line is taken as typed: the REPL itself joins the lines of an unfinished
/// snippet (so each gets the continuation prompt).
impl Validator for ReplHelper {}

impl Helper for ReplHelper {}

impl ReplHelper {
    /// Completes from `words` (the session's tools and variables, kept current by the
    /// REPL) and Rhai's keywords.
    pub(super) fn new(words: Arc<Mutex<Vec<String>>>) -> Self {
        Self { words }
    }
}
