//! Text made safe for an XML attribute value: markup escaped, tab, newline and
//! return as character references (an attribute keeps them then), the other
//! characters XML 1.0 cannot hold at all (most control characters, U+FFFE,
//! U+FFFF) as a space. One rule for every XML codeact writes from data it did not
//! make (page sources, a phone's tree). Not parsing.

use std::fmt::Write as _;

/// Appends `value` to `out`, escaped for a `"`-quoted attribute.
pub fn push_attribute(out: &mut String, value: &str) {
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\t' | '\n' | '\r' => {
                let _ = write!(out, "&#{};", c as u32);
            }
            c if (c as u32) < 0x20 || matches!(c, '\u{FFFE}' | '\u{FFFF}') => out.push(' '),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_forbidden_characters_are_made_safe() {
        let mut out = String::new();
        push_attribute(&mut out, "a<\"&'>\u{1}\n\u{FFFF}é");
        assert_eq!(out, "a&lt;&quot;&amp;'&gt; &#10; é");
    }
}
