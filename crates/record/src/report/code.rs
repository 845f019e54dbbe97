//! Rhai source as a page shows it: comments, strings, keywords, numbers and calls
//! marked for the style, every character escaped. What the run, script and
//! exploration reports share. Not the page (`html.rs`).

use std::fmt::Write as _;

use super::escape::escape;

const KEYWORDS: &[&str] = &[
    "let", "const", "if", "else", "for", "in", "while", "loop", "do", "until", "fn", "return", "break", "continue",
    "throw", "try", "catch", "switch", "true", "false", "import", "export", "as", "private", "this",
];

/// Rhai source as highlighted HTML: comments, strings, keywords and numbers.
pub fn highlight(code: &str) -> String {
    let mut out = String::with_capacity(code.len() * 2);
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    let span = |out: &mut String, class: &str, text: &str| {
        let _ = write!(out, "<span class=\"{class}\">{}</span>", escape(text));
    };
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            span(&mut out, "c", &chars[start..i].iter().collect::<String>());
        } else if c == '"' || c == '`' || c == '\'' {
            i += 1;
            while i < chars.len() && chars[i] != c {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i = (i + 1).min(chars.len());
            span(&mut out, "s", &chars[start..i].iter().collect::<String>());
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.' || chars[i] == '_') {
                i += 1;
            }
            span(&mut out, "n", &chars[start..i].iter().collect::<String>());
        } else if c.is_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            if KEYWORDS.contains(&word.as_str()) {
                span(&mut out, "k", &word);
            } else if chars.get(i) == Some(&'(') {
                span(&mut out, "f", &word);
            } else {
                out.push_str(&escape(&word));
            }
        } else {
            out.push_str(&escape(&c.to_string()));
            i += 1;
        }
    }
    out
}
