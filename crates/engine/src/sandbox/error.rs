//! Why a snippet failed, in a form an LLM or a person can act on (message, line,
//! column, the offending source line) and a program can classify without reading the
//! message ([`ErrorKind`]): a syntax error, a script's own error, a limit, a cancel, or
//! a host function (a tool) that failed with a [`FailureKind`].

use serde::{Deserialize, Serialize};

/// How a host function (a device tool) failed, as reports and the agent tell
/// failures apart. The tool catalog decides which kind each of its errors is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// An `assert_*` tool found the screen not as the script expected.
    Assertion,
    /// An index from `ui_state` no longer points at the element it named.
    Stale,
    /// The device failed, timed out or went away.
    Device,
    /// The call itself was wrong: a bad coordinate, key, selector or value.
    BadArgument,
    /// Nothing on screen matched what the tool looked for, or waited for.
    NotFound,
    /// The call would have run past the snippet's time limit.
    TimeLimit,
    /// The snippet was stopped (Ctrl-C) while the tool waited.
    Cancelled,
    /// A sensitive action was refused (a person said no, or nobody could confirm
    /// it), or a question found nobody to answer it.
    Refused,
}

/// Which limit a snippet ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    Operations,
    Time,
    CallDepth,
    Size,
    /// The engine's process needed more memory than `max_memory_mb`.
    Memory,
    /// Values or calls nested so deeply that the engine's stack ran out.
    Stack,
}

/// What kind of failure ended a snippet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ErrorKind {
    /// The code does not parse; nothing ran.
    Syntax,
    /// The script's own error: a `throw`, a wrong type, an unknown function.
    Script,
    /// A limit stopped it.
    Limit { limit: Limit },
    /// It was cancelled from outside (Ctrl-C).
    Cancelled,
    /// A tool failed and the script did not catch it.
    Tool { tool: String, failure: FailureKind },
    /// The engine itself failed (a bug in codeact or rhai), or its process died.
    Crashed,
}

/// Why a snippet failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunError {
    pub message: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// The offending source line, when the error has a position.
    pub source_line: Option<String>,
    #[serde(flatten)]
    pub kind: ErrorKind,
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "line {l}, column {c}: {}", self.message)?,
            (Some(l), None) => write!(f, "line {l}: {}", self.message)?,
            _ => f.write_str(&self.message)?,
        }
        if let (Some(src), Some(c)) = (&self.source_line, self.column) {
            write!(f, "\n  {src}\n  {}^", " ".repeat(c.saturating_sub(1)))?;
        }
        Ok(())
    }
}

impl std::error::Error for RunError {}

impl RunError {
    /// An error at `pos` in `code` (no position: none is shown).
    pub fn at(message: String, kind: ErrorKind, pos: rhai::Position, code: &str) -> Self {
        let line = pos.line();
        let source_line = line.and_then(|l| code.lines().nth(l.saturating_sub(1)));
        let (source_line, column) = match (source_line, pos.position()) {
            (Some(src), column) => {
                let (shown, column) = window(src, column);
                (Some(shown), column)
            }
            (None, column) => (None, column),
        };
        Self { message: bounded(message), line, column, source_line, kind }
    }

    /// An error with no place in the code.
    pub fn plain(message: impl Into<String>, kind: ErrorKind) -> Self {
        Self { message: bounded(message.into()), line: None, column: None, source_line: None, kind }
    }

    /// A parse error, with what Rhai says is wrong.
    pub(crate) fn syntax(e: &rhai::ParseError, code: &str) -> Self {
        let message = strip_position(&e.err_type().to_string());
        Self::at(format!("syntax error: {message}"), ErrorKind::Syntax, e.position(), code)
    }

    /// True when an assertion tool failed (a test failure rather than an error).
    /// Whether the screen was not as the script expected — an assertion, or what it
    /// looked or waited for not there — rather than the script unable to run (a
    /// syntax error, a device gone, a limit): a test's failure, not its error.
    pub fn is_failure(&self) -> bool {
        matches!(self.kind, ErrorKind::Tool { failure: FailureKind::Assertion | FailureKind::NotFound, .. })
    }

    /// The tool whose failure ended the snippet, if one did.
    pub fn failed_tool(&self) -> Option<&str> {
        match &self.kind {
            ErrorKind::Tool { tool, .. } => Some(tool),
            _ => None,
        }
    }
}

/// Rhai appends ` (line L, position C)`, reported separately here, and prefixes
/// errors thrown by functions with `Runtime error: `, which says nothing.
pub(crate) fn strip_position(message: &str) -> String {
    let message = message.strip_prefix("Runtime error: ").unwrap_or(message);
    match message.rfind(" (line ") {
        Some(i) if message.ends_with(')') => message[..i].to_string(),
        _ => message.to_string(),
    }
}

/// The most of an error message that is kept: a script can throw a megabyte, and
/// the message goes to a terminal, a trajectory and the model.
pub const MESSAGE_BYTES: usize = 4096;

/// `message`, cut at [`MESSAGE_BYTES`] with a note.
fn bounded(mut message: String) -> String {
    if message.len() > MESSAGE_BYTES {
        let total = message.len();
        message.truncate(message.floor_char_boundary(MESSAGE_BYTES));
        message.push_str(&format!(" [error cut: {total} bytes]"));
    }
    message
}

/// Characters of a source line shown under an error, at most.
const LINE_CHARS: usize = 160;

/// A long source line cut to the part around `column` (1-based, in characters),
/// with the column as it falls in that part.
fn window(line: &str, column: Option<usize>) -> (String, Option<usize>) {
    let count = line.chars().count();
    if count <= LINE_CHARS {
        return (line.to_string(), column);
    }
    let at = column.unwrap_or(1).saturating_sub(1).min(count);
    let start = at.saturating_sub(LINE_CHARS / 2).min(count.saturating_sub(LINE_CHARS));
    let part: String = line.chars().skip(start).take(LINE_CHARS).collect();
    let (lead, column) = if start > 0 { ("…", column.map(|c| c - start + 1)) } else { ("", column) };
    let tail = if start + LINE_CHARS < count { "…" } else { "" };
    (format!("{lead}{part}{tail}"), column)
}

/// Rhai's Rust type names in its messages, in the words scripts use: `i64` is an
/// integer, `&str | ImmutableString | String` a string.
pub(crate) fn plain_types(message: &str) -> String {
    const NAMES: &[(&str, &str)] = &[
        ("&str | ImmutableString | String", "string"),
        ("ImmutableString", "string"),
        ("&str", "string"),
        ("rhai::Map", "map"),
        ("rhai::Array", "array"),
        ("rhai::FnPtr", "function"),
        ("FnPtr", "function"),
        ("i64", "integer"),
        ("f64", "float"),
    ];
    let mut out = message.to_string();
    for (rust, plain) in NAMES {
        out = out.replace(rust, plain);
    }
    out
}

#[cfg(test)]
mod plain_tests {
    #[test]
    fn rust_type_names_become_script_words() {
        assert_eq!(
            super::plain_types("Function not found: tap (&str | ImmutableString | String, i64)"),
            "Function not found: tap (string, integer)"
        );
        assert_eq!(
            super::plain_types("a getter is not registered for type 'i64'"),
            "a getter is not registered for type 'integer'"
        );
    }
}
