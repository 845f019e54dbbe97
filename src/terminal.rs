//! Text from a model, a device or a script made safe for a terminal: control
//! characters (ESC, NUL, C1 codes) and the bidirectional overrides that reorder what
//! a reader sees are shown as `\u{..}` escapes; line breaks and tabs stay. Files keep
//! the exact text; only what is printed goes through here.

use std::borrow::Cow;

/// True for a character a terminal would act on instead of showing.
fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        || c == '\u{feff}'
}

/// `text` with every unsafe character escaped (borrowed when there is none).
pub fn clean(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
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

/// `println!` that never panics: a closed pipe (`codeact tools | head -1`) or a
/// closed stdout is not worth a crash, and the exit code stays the command's own.
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// `print!` that never panics (see [`outln!`]).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($arg)*);
    }};
}

/// `eprintln!` that never panics (see [`outln!`]).
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_a_terminal_would_obey_and_keeps_the_rest() {
        assert_eq!(clean("plain\ttext\nnext 变量"), "plain\ttext\nnext 变量");
        assert_eq!(clean("\u{1b}[2Jx\0y\u{202e}z\r"), "\\u{1b}[2Jx\\u{0}y\\u{202e}z\\u{d}");
    }
}
