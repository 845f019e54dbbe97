//! What a snippet's text must be before the parser sees it: a leading byte-order mark
//! is dropped (editors on Windows write one), a NUL byte is refused by name (the
//! parser would call it an invisible character), and a source with more lines, or a
//! line with more characters, than the parser can number (65,535) is refused: past
//! that, Rhai's positions wrap and an error would point at the wrong place; and
//! which names a script may be given as variables (`--var`, a flow's `env:`: the
//! emitter's rule, which writes names into code, re-exported).
//! Not here: parsing itself.

use super::error::{ErrorKind, RunError};

/// The most lines, and characters in one line, that positions can tell apart.
pub const MAX_LINES: usize = u16::MAX as usize;

/// `code` ready for the parser (without its byte-order mark), or why it cannot be.
pub(crate) fn checked(code: &str) -> Result<&str, RunError> {
    let code = code.strip_prefix('\u{feff}').unwrap_or(code);
    let mut lines = 0usize;
    for (index, line) in code.lines().enumerate() {
        lines = index + 1;
        if let Some(at) = line.find('\0') {
            let column = line[..at].chars().count() + 1;
            let message = "the code holds a NUL byte (\\0) here; remove it (a file saved in another encoding, \
                           such as UTF-16, holds many)";
            return Err(refused(message.to_string(), lines, Some(column), line));
        }
        let chars = line.chars().count();
        if chars > MAX_LINES {
            let message =
                format!("this line has {chars} characters; lines of at most {MAX_LINES} characters can be run");
            return Err(refused(message, lines, None, ""));
        }
    }
    if lines > MAX_LINES {
        let message = format!(
            "the code has {lines} lines; at most {MAX_LINES} lines can be run at a time (split it into several scripts)"
        );
        return Err(RunError::plain(message, ErrorKind::Syntax));
    }
    Ok(code)
}

fn refused(message: String, line: usize, column: Option<usize>, source: &str) -> RunError {
    let mut e = RunError::plain(message, ErrorKind::Syntax);
    e.line = Some(line);
    e.column = column;
    e.source_line = column.map(|_| source.replace('\0', "\\0"));
    e
}

/// True when `code` fails to parse only because it stops early (an open block, a
/// missing operand, an unterminated string): the REPL then reads another line.
pub fn is_incomplete(code: &str) -> bool {
    use rhai::{LexError, ParseErrorType as P};
    let Ok(code) = checked(code) else { return false };
    let engine = rhai::Engine::new_raw();
    let Err(e) = engine.compile(code) else { return false };
    // At the end means past the last character that is not white space.
    let trimmed = code.trim_end();
    let last_line = trimmed.lines().count().max(1);
    let last_len = trimmed.lines().last().map_or(0, |l| l.chars().count());
    let pos = e.position();
    let at_end = match (pos.line(), pos.position()) {
        (None, _) => true,
        (Some(l), _) if l > last_line => true,
        (Some(l), Some(c)) => l == last_line && c > last_len,
        (Some(l), None) => l == last_line,
    };
    match e.err_type() {
        P::UnexpectedEOF => true,
        P::BadInput(LexError::UnterminatedString) => true,
        P::MissingToken(..) | P::MissingSymbol(..) | P::ExprExpected(..) => at_end,
        _ => false,
    }
}

/// A name Rhai takes for a variable (the emitter's rule: it writes such names).
pub use crate::emit::rhai::is_variable_name;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bom_is_dropped_and_a_nul_or_an_overlong_source_is_refused() {
        assert_eq!(checked("\u{feff}print(1);").unwrap(), "print(1);");
        assert_eq!(checked("print(1);").unwrap(), "print(1);");
        let e = checked("print(1);\nlet x = 1;\0").unwrap_err();
        assert_eq!((e.line, e.column, e.kind.clone()), (Some(2), Some(11), ErrorKind::Syntax));
        assert!(e.message.contains("NUL byte"), "{}", e.message);
        assert_eq!(e.source_line.as_deref(), Some("let x = 1;\\0"));
        let long = "let x = 1;\n".repeat(MAX_LINES + 1);
        assert!(checked(&long).unwrap_err().message.contains("65536 lines"));
        assert!(checked(&"let x = 1;\n".repeat(MAX_LINES)).is_ok());
        let wide = format!("let s = \"{}\";", "a".repeat(MAX_LINES));
        assert!(checked(&wide).unwrap_err().message.contains("characters"));
    }
}
