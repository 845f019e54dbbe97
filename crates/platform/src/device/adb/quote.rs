//! Text on an ADB shell line: quoting for the device's shell, names that need none,
//! and long text cut into pieces a command line carries.

/// Single-quotes `s` for the device's shell.
pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Whether `s` can be a package or activity name on the shell line as it is.
pub(super) fn valid_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '$' | '/'))
}

/// `text` in pieces of at most `max` bytes, cut at character boundaries.
pub(super) fn chunks(text: &str, max: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = rest.len().min(max);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let end = if end == 0 { rest.chars().next().map_or(rest.len(), char::len_utf8) } else { end };
        out.push(&rest[..end]);
        rest = &rest[end..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_names_and_pieces() {
        assert_eq!(quote("it's a 'b'"), r"'it'\''s a '\''b'\'''");
        assert!(valid_name("com.example.notes") && !valid_name("a;rm") && !valid_name(""));
        assert_eq!(chunks("ab你好c", 4), ["ab", "你", "好c"]);
        assert_eq!(chunks("", 4), Vec::<&str>::new());
    }
}
