//! The one emitter of code and YAML written from data: every Rhai script and Maestro
//! flow codeact generates (translated flows, exported runs and flows, explore's tests,
//! heal patches, the REPL's `:save`, MCP's `session.rhai`) writes its literals, names
//! and comments through here, so a text from a device, a model, a flow or a file name
//! is always data in what it lands in — never a statement, a tag or the end of a
//! comment. `rhai.rs` writes Rhai, `yaml.rs` YAML. Not here: what the generated code
//! says (each exporter decides), or reading it back.

pub mod rhai;
pub mod yaml;

/// Characters a reader would not see as written, or that a YAML 1.1 reader, a
/// terminal or an editor takes as a line break: controls (C0, DEL, C1), the Unicode
/// line and paragraph separators, the bidirectional controls and other invisible
/// format characters. Emitters write them as escapes, never raw.
pub(crate) fn is_hidden(c: char) -> bool {
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
pub(crate) fn visible_line(text: &str, max: usize) -> String {
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

/// `text` in double quotes on one line: `"` and `\` escaped, line breaks and tabs as
/// `\n`, `\r`, `\t`, and every other hidden character as `hidden` writes it (each
/// language has its own escapes for them).
pub(crate) fn double_quoted(text: &str, hidden: fn(char) -> String) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_hidden(c) => out.push_str(&hidden(c)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The longest comment body written (longer ones are cut, saying their size).
pub(crate) const COMMENT_BYTES: usize = 1_000;

#[cfg(test)]
mod hostile;
