//! Rhai source written from data: string literals that read back as exactly the text
//! they were made from, on one line, with every hidden character escaped (Rhai's
//! `"…"` strings take `\\ \" \n \r \t \xHH \uHHHH \UHHHHHHHH`, and nothing else:
//! Rust's `{:?}` writes `\0` and `\u{..}`, which Rhai refuses); numbers that read
//! back as numbers; values (arrays, maps) as literals; names checked to be names;
//! and comments that stay comments — always `// ` and one line, so no line break, no
//! `*/`, no doc-comment marker in the text can end them or make them code. Not here:
//! what the code says.

use rhai::{Dynamic, Map};

use super::{COMMENT_BYTES, double_quoted, visible_line};
pub use codeact_base::literals::{inside_spans, literal_spans};

/// `text` as a Rhai string literal on one line: `"…"` that evaluates to `text`.
pub fn string(text: &str) -> String {
    double_quoted(text, |c| match c as u32 {
        n @ 0..=0xff => format!("\\x{n:02x}"),
        n @ 0x100..=0xffff => format!("\\u{n:04x}"),
        n => format!("\\U{n:08x}"),
    })
}

/// `text` as a comment: `// ` and the text on one line (its line breaks shown as
/// `\n`, hidden characters as `\u{..}`, cut at 1,000 bytes). Never a doc comment,
/// never more than one line; no trailing line break.
pub fn comment(text: &str) -> String {
    format!("// {}", visible_line(text, COMMENT_BYTES))
}

/// `code` kept as comments, a `// ` line for each of its lines (any line break
/// splits: Rhai ends a `//` comment at a lone `\r` too), each ending with `\n`.
pub fn commented_out(code: &str, pad: &str) -> String {
    let mut out = String::new();
    for line in code.split(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}']) {
        out.push_str(pad);
        out.push_str("// ");
        out.push_str(&visible_line(line, LINE_BYTES));
        out.push('\n');
    }
    out
}

/// `text` (a thought, a note) as comments: a `// ` line, ending with `\n`, for each
/// of its lines that is not blank.
pub fn comment_lines(text: &str) -> String {
    let mut out = String::new();
    for line in text.split(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}']).filter(|l| !l.trim().is_empty()) {
        out.push_str(&comment(line.trim_end()));
        out.push('\n');
    }
    out
}

/// `code` ending in a statement, so that more code can follow it: a snippet that
/// ends in an expression (`sent.len()`, `let m = #{a: 1}`, typed at a prompt
/// without its `;`) gets a `;` on a line of its own (after a trailing comment too).
/// Code that does not parse is left as it is.
pub fn terminated(code: &str) -> std::borrow::Cow<'_, str> {
    let code = code.trim_end();
    let parses = |c: &str| {
        let mut engine = rhai::Engine::new_raw();
        engine.set_max_expr_depths(256, 256);
        engine.compile(c).is_ok()
    };
    if code.is_empty() || parses(&format!("{code}\nlet end = 0;")) {
        return code.into();
    }
    if parses(&format!("{code};\nlet end = 0;")) {
        return format!("{code};").into();
    }
    match parses(&format!("{code}\n;\nlet end = 0;")) {
        true => format!("{code}\n;").into(),
        false => code.into(),
    }
}

/// The `// tags: a, b` line a suite reads (ending with `\n`), each tag one word
/// of letters, digits, `_`, `-` and `.` (anything else becomes `-`), so no text
/// can add a tag or leave the comment.
pub fn tags_comment<S: AsRef<str>>(tags: &[S]) -> String {
    let words: Vec<String> = tags
        .iter()
        .map(|t| t.as_ref().chars().map(|c| if c.is_alphanumeric() || "_-.".contains(c) { c } else { '-' }).collect())
        .collect();
    format!("{}\n", comment(&format!("tags: {}", words.join(", "))))
}

/// The longest line of code kept in a comment.
const LINE_BYTES: usize = 16 * 1024;

/// `name` when it can stand as a variable in a script (ASCII letters, digits and
/// `_`, not a keyword); else `None`.
pub fn ident(name: &str) -> Option<&str> {
    is_variable_name(name).then_some(name)
}

/// A name Rhai takes for a variable: ASCII letters, digits and `_`, not starting
/// with a digit, at least one letter, and not a keyword (the parser is asked).
pub fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.chars().any(|c| c.is_ascii_alphabetic())
        && rhai::Engine::new_raw().compile(format!("let {name} = ();")).is_ok()
}

/// `n` as a Rhai float literal (always with a `.` or an exponent, so it reads back
/// as a float); `None` for NaN and the infinities, which Rhai has no literal for.
pub fn float(n: f64) -> Option<String> {
    if !n.is_finite() {
        return None;
    }
    let text = format!("{n:?}");
    Some(if text.contains(['.', 'e', 'E']) { text } else { format!("{text}.0") })
}

/// `value` as a Rhai literal that evaluates to an equal value: unit, booleans,
/// integers, floats, characters, strings, arrays and maps (keys quoted, as Rhai
/// prints a map); `None` for
/// what has no literal (a function pointer, a timestamp, a NaN, a host type).
pub fn value(value: &Dynamic) -> Option<String> {
    value_at(value, 0)
}

/// How deep [`value`] writes arrays and maps inside each other.
const VALUE_DEPTH: usize = 32;

fn value_at(value: &Dynamic, depth: usize) -> Option<String> {
    if depth > VALUE_DEPTH {
        return None;
    }
    if value.is_unit() {
        return Some("()".into());
    }
    if let Ok(b) = value.as_bool() {
        return Some(b.to_string());
    }
    if let Ok(i) = value.as_int() {
        return Some(i.to_string());
    }
    if let Ok(f) = value.as_float() {
        return float(f);
    }
    if let Ok(c) = value.as_char() {
        return Some(char_literal(c));
    }
    if value.is_string() {
        return value.read_lock::<rhai::ImmutableString>().map(|s| string(&s));
    }
    if value.is_array() {
        let items = value.read_lock::<rhai::Array>()?;
        let parts: Option<Vec<String>> = items.iter().map(|v| value_at(v, depth + 1)).collect();
        return Some(format!("[{}]", parts?.join(", ")));
    }
    if value.is_map() {
        let map = value.read_lock::<Map>()?;
        return map_literal(&map, depth);
    }
    None
}

/// A JSON value (a model's or a client's function-call argument) as a Rhai literal
/// that evaluates to it: `null` is `()`, integers stay integers, other numbers keep
/// a decimal point (`0.5`, `1.0`), strings are escaped, object keys quoted. `None`
/// past the nesting [`value`] writes.
pub fn json(value: &serde_json::Value) -> Option<String> {
    json_at(value, 0)
}

fn json_at(value: &serde_json::Value, depth: usize) -> Option<String> {
    use serde_json::Value;
    if depth > VALUE_DEPTH {
        return None;
    }
    Some(match value {
        Value::Null => "()".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => json_number(n),
        Value::String(s) => string(s),
        Value::Array(items) => {
            let parts: Option<Vec<String>> = items.iter().map(|v| json_at(v, depth + 1)).collect();
            format!("[{}]", parts?.join(", "))
        }
        Value::Object(map) => {
            let mut parts = Vec::with_capacity(map.len());
            for (k, v) in map {
                parts.push(format!("{}: {}", string(k), json_at(v, depth + 1)?));
            }
            format!("#{{{}}}", parts.join(", "))
        }
    })
}

/// A JSON number as Rhai reads it back: an integer as one, any other number in
/// plain decimal with a point (JSON has no NaN or infinity).
fn json_number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    let text = n.as_f64().unwrap_or(0.0).to_string();
    if text.contains(['.', 'e', 'E']) { text } else { format!("{text}.0") }
}

fn map_literal(map: &Map, depth: usize) -> Option<String> {
    let mut parts = Vec::with_capacity(map.len());
    for (k, v) in map {
        parts.push(format!("{}: {}", string(k), value_at(v, depth + 1)?));
    }
    Some(format!("#{{{}}}", parts.join(", ")))
}

/// `c` as a Rhai character literal.
fn char_literal(c: char) -> String {
    match c {
        '\'' => "'\\''".into(),
        '"' => "'\"'".into(),
        c => {
            let s = string(&c.to_string());
            format!("'{}'", &s[1..s.len() - 1])
        }
    }
}

#[cfg(test)]
mod tests;
