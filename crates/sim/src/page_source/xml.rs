//! Attribute writing the page formats share: ` name="value"` with `&`, `<`, `>` and
//! `"` escaped; each format says what becomes of the other characters it treats
//! apart (control characters, characters outside the BMP), since Android's
//! KXmlSerializer and iOS's libxml2 do not agree on them.

/// Appends ` name="value"`; `other` escapes (or drops) a character the four
/// common escapes leave, returning false to keep it as it is.
pub(crate) fn attr(out: &mut String, name: &str, value: &str, other: fn(char, &mut String) -> bool) {
    out.push(' ');
    out.push_str(name);
    out.push_str("=\"");
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if other(c, out) => {}
            c => out.push(c),
        }
    }
    out.push('"');
}
