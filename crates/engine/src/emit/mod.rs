//! The one emitter of code and YAML written from data: every Rhai script and Maestro
//! flow codeact generates (translated flows, exported runs and flows, explore's tests,
//! heal patches, the REPL's `:save`, MCP's `session.rhai`) writes its literals, names
//! and comments through here, so a text from a device, a model, a flow or a file name
//! is always data in what it lands in — never a statement, a tag or the end of a
//! comment. `rhai.rs` writes Rhai, `yaml.rs` YAML. Not here: what the generated code
//! says (each exporter decides), or reading it back.

pub mod rhai;
pub mod yaml;

pub use codeact_base::visible::{is_hidden, visible_line};

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
