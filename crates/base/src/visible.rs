//! The one notion of a hidden character — one a reader would not see as written,
//! or that a terminal, an editor or a YAML 1.1 reader takes as a line break — and
//! the visible line that shows each as an escape. The emitter, the terminal and
//! every echo of untrusted text use it. Not here: quoting for a language (the
//! emitter's) or redaction (`secrets`).

/// Characters a reader would not see as written, or that a YAML 1.1 reader, a
/// terminal or an editor takes as a line break: controls (C0, DEL, C1), the Unicode
/// line and paragraph separators, the bidirectional controls and other invisible
/// format characters. Emitters write them as escapes, never raw.
pub fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00ad}'
                | '\u{061c}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2069}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
                | '\u{fffe}'
                | '\u{ffff}'
                // Tags: letters no one sees, which some models read.
                | '\u{e0000}'..='\u{e007f}'
        )
}

/// `text` as one line that shows every hidden character as `\u{..}` (a line break
/// as `\n`, `\r`), cut at `max` bytes with a note of the whole size: the body of a
/// comment.
pub fn visible_line(text: &str, max: usize) -> String {
    let text = crate::clip::clip(text, max);
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_hidden(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}
