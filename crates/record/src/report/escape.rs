//! Text from a model, a device or a script made safe for a page, and file names
//! made safe as links: what every part of a report escapes with. Not the page
//! itself (`html.rs`).

use std::fmt::Write as _;

/// `text` safe inside HTML text and attribute values.
///
/// A byte loop with plain indexing, copying the runs between special characters
/// whole: reports escape every step's UI dump, and char-by-char pushing was a sixth of
/// a 100-step run's CPU in an unoptimised build (the tests'). Every special character
/// is ASCII but the C1 controls, which UTF-8 writes as 0xC2 then 0x80..=0x9F.
pub fn escape(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        let b = bytes[i];
        let c1 = b == 0xc2 && i + 1 < bytes.len() && bytes[i + 1] >= 0x80 && bytes[i + 1] <= 0x9f;
        let special = matches!(b, b'&' | b'<' | b'>' | b'"' | b'\'' | 0x7f) || (b < 0x20 && b != b'\n' && b != b'\t');
        if !special && !c1 {
            i += 1;
            continue;
        }
        out.push_str(&text[start..i]);
        match b {
            b'&' => out.push_str("&amp;"),
            b'<' => out.push_str("&lt;"),
            b'>' => out.push_str("&gt;"),
            b'"' => out.push_str("&quot;"),
            b'\'' => out.push_str("&#39;"),
            // Control characters (but newlines and tabs) are shown, not obeyed.
            _ => {
                let code = if c1 { u32::from(bytes[i + 1]) } else { u32::from(b) };
                let _ = write!(out, "\\u{{{code:x}}}");
            }
        }
        i += if c1 { 2 } else { 1 };
        start = i;
    }
    out.push_str(&text[start..]);
    out
}

/// Every byte of a path segment but the unreserved ones (`A-Z a-z 0-9 - . _ ~`).
const SEGMENT: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// A link to `rel`, a path below the page's folder: `./a%20b/report.html`. Each
/// segment percent-encoded and the whole starting with `./`, so no name (a script
/// called `javascript:…`, `..`, one with `#` or `?`) can make it another scheme, a
/// fragment, or a place outside the folder; `None` for a path that is not plainly
/// below (`..`, `/`, `.`).
pub fn relative_href(rel: &std::path::Path) -> Option<String> {
    let mut out = String::from(".");
    for part in rel.components() {
        let std::path::Component::Normal(name) = part else { return None };
        out.push('/');
        out.extend(percent_encoding::utf8_percent_encode(&name.to_string_lossy(), SEGMENT));
    }
    (out.len() > 1).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::escape;

    /// The same escaping, char by char.
    fn reference(text: &str) -> String {
        text.chars()
            .map(|c| match c {
                '&' => "&amp;".to_string(),
                '<' => "&lt;".to_string(),
                '>' => "&gt;".to_string(),
                '"' => "&quot;".to_string(),
                '\'' => "&#39;".to_string(),
                c if c.is_control() && c != '\n' && c != '\t' => format!("\\u{{{:x}}}", c as u32),
                c => c.to_string(),
            })
            .collect()
    }

    #[test]
    fn escapes_as_the_char_by_char_rule_does() {
        let every_ascii: String = (0u8..128).map(char::from).collect();
        for text in [
            "",
            "plain",
            "<a href=\"x\">Tom & Jerry's</a>",
            "tab\tnewline\nbell\u{7}del\u{7f}",
            "C1 \u{80}\u{85}\u{9f} but not \u{a0} nor é nor \u{c2}\u{bf}",
            "张三 😀 <b>",
            "\u{9f}",
            every_ascii.as_str(),
        ] {
            assert_eq!(escape(text), reference(text), "{text:?}");
        }
    }
}
