//! Text on an ADB shell line: names that need no quoting, and long text cut into
//! pieces a command line carries. Quoting itself is every shell's (`device/shell.rs`).

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
        assert!(valid_name("com.example.notes") && !valid_name("a;rm") && !valid_name(""));
        assert_eq!(chunks("ab你好c", 4), ["ab", "你", "好c"]);
        assert_eq!(chunks("", 4), Vec::<&str>::new());
    }
}
