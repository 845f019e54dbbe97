//! Text from a model, a device or a script made safe for a terminal: secrets out
//! (every registered secret — keys, `type_secret` values — and anything shaped like
//! a key, by value, as files have them), control characters (ESC, NUL, C1 codes)
//! and the bidirectional overrides that reorder what a reader sees shown as
//! `\u{..}` escapes; line breaks and tabs stay in [`clean`] (a script's output is
//! lines) and are escaped too in [`one_line`] (a name, a reason on a verdict line:
//! one line, so nothing can forge the next). Everything codeact prints goes through
//! here: [`outln!`]-style macros redact what they print too.

use std::borrow::Cow;

/// True for a character a terminal would act on (or a reader would not see) instead
/// of showing: what the emitter calls hidden, line breaks and tabs excepted.
fn is_unsafe(c: char) -> bool {
    crate::visible::is_hidden(c) && c != '\n' && c != '\t'
}

/// `text` with its secrets out and every unsafe character escaped (borrowed when
/// there is nothing to change).
pub fn clean(text: &str) -> Cow<'_, str> {
    escaped(crate::secrets::redact(text))
}

/// [`clean`], and line breaks and tabs escaped too (`\n`, `\r`, `\t`; the Unicode
/// line separators as `\u{..}`), as the emitter writes a comment: a file name, a
/// script's name, a reason on a verdict line, always one line.
pub fn one_line(text: &str) -> String {
    crate::visible::visible_line(&crate::secrets::redact(text), usize::MAX)
}

/// A path as [`one_line`] shows it: a file name can hold a line break.
pub fn path(path: &std::path::Path) -> String {
    one_line(&path.display().to_string())
}

fn escaped(text: Cow<'_, str>) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_unsafe(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// What a print macro writes: `text` with its secrets out (the macros' arguments
/// are codeact's own words around foreign text, which may hold a secret).
#[doc(hidden)]
pub fn printed(text: std::fmt::Arguments<'_>) -> String {
    let text = text.to_string();
    match crate::secrets::redact(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(o) => o,
    }
}

/// `println!` that never panics: a closed pipe (`codeact tools | head -1`) or a
/// closed stdout is not worth a crash, and the exit code stays the command's own.
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), "{}", $crate::terminal::printed(format_args!($($arg)*)));
    }};
}

/// `print!` that never panics (see [`outln!`]).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), "{}", $crate::terminal::printed(format_args!($($arg)*)));
    }};
}

/// `eprintln!` that never panics (see [`outln!`]).
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "{}", $crate::terminal::printed(format_args!($($arg)*)));
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_a_terminal_would_obey_and_keeps_the_rest() {
        assert_eq!(clean("plain\ttext\nnext 变量"), "plain\ttext\nnext 变量");
        assert_eq!(clean("\u{1b}[2Jx\0y\u{202e}z\r"), "\\u{1b}[2Jx\\u{0}y\\u{202e}z\\u{d}");
        assert_eq!(one_line("a.rhai\nPASS b\r\u{2028}"), "a.rhai\\nPASS b\\r\\u{2028}");
    }
}
