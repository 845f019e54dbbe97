//! TOML mistakes reported without quoting the file: the offending line may hold a
//! secret someone put there by mistake (an API key under `[llm]`), so only the
//! message and the position are kept. Used for `codeact.toml` and persona files.

/// What is wrong in a TOML text, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}{}", match (.line, .column) { (Some(l), Some(c)) => format!(" (line {l}, column {c})"), _ => String::new() })]
pub struct TomlError {
    pub message: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

impl TomlError {
    /// The parser's complaint about `text`, with its position but not its source line.
    pub fn new(e: &toml::de::Error, text: &str) -> Self {
        let message = e.message().trim().to_string();
        match e.span() {
            Some(span) => {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                Self { message, line: Some(line), column: Some(column) }
            }
            None => Self { message, line: None, column: None },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_position_is_kept_and_the_line_is_not() {
        let text = "a = 1\napi_key = 'sk-secret-123456\n";
        let e = toml::from_str::<toml::Table>(text).unwrap_err();
        let shown = TomlError::new(&e, text).to_string();
        assert!(shown.contains("line 2") && !shown.contains("sk-secret"), "{shown}");
    }
}
