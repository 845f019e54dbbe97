//! Text from a model, a device or a script made safe for a page, and file names
//! made safe as links: what every part of a report escapes with. Not the page
//! itself (`html.rs`).

use std::fmt::Write as _;

/// `text` safe inside HTML text and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters (but newlines and tabs) are shown, not obeyed.
            c if c.is_control() && c != '\n' && c != '\t' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
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
