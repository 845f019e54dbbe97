//! An answers file: what a person would answer, written down for unattended runs
//! (`--answers FILE`). Three tables, one per kind of request; each key is a pattern
//! (a regular expression, any case, found anywhere in the request's text) and the
//! first one in file order that matches gives the answer:
//!
//! ```toml
//! [ask]
//! "phone number|which number" = "555-0100"
//! [confirm]                      # a sensitive action: "yes", "always" or "no"
//! "delete" = "yes"
//! "pay|transfer" = "no"
//! [take_over]                    # a take_over(reason): what the person reports
//! "log ?in" = "done"
//! ```
//!
//! A request no pattern matches has no answer here (the terminal may still give
//! one). Not here: asking the terminal (the CLI does).

use std::path::{Path, PathBuf};

use regex::{Regex, RegexBuilder};

use super::request::HumanRequest;

#[derive(Debug, thiserror::Error)]
pub enum AnswersError {
    #[error("cannot read the answers file {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the answers file {path} is not valid")]
    Invalid {
        path: PathBuf,
        #[source]
        source: codeact_base::toml_error::TomlError,
    },
    #[error(
        "the answers file {path}: [{table}] is not one of [ask], [confirm], [take_over] (each holds \"pattern\" = \"answer\" lines)"
    )]
    UnknownTable { path: PathBuf, table: String },
    #[error("the answers file {path}: [{table}] {pattern:?} must map to a string answer")]
    NotAString { path: PathBuf, table: String, pattern: String },
    #[error("the answers file {path}: [{table}] {pattern:?} is not a valid regular expression")]
    BadPattern {
        path: PathBuf,
        table: String,
        pattern: String,
        #[source]
        source: regex::Error,
    },
}

/// The kinds of request a file answers, as its tables name them.
const TABLES: &[&str] = &["ask", "confirm", "take_over"];

/// A loaded answers file.
#[derive(Debug, Clone, Default)]
pub struct Answers {
    /// (kind, pattern, answer), in file order.
    entries: Vec<(String, Regex, String)>,
}

impl Answers {
    pub fn load(path: &Path) -> Result<Self, AnswersError> {
        let text = codeact_base::files::read_text(path, codeact_base::files::TEXT_BYTES)
            .map_err(|source| AnswersError::Read { path: path.to_path_buf(), source })?;
        Self::parse(&text, path)
    }

    pub fn parse(text: &str, path: &Path) -> Result<Self, AnswersError> {
        // Tables keep file order (toml's `preserve_order`): the first match wins.
        let doc: toml::Table = toml::from_str(text).map_err(|e| AnswersError::Invalid {
            path: path.to_path_buf(),
            source: codeact_base::toml_error::TomlError::new(&e, text),
        })?;
        let mut entries = Vec::new();
        for (table, items) in &doc {
            if !TABLES.contains(&table.as_str()) {
                return Err(AnswersError::UnknownTable { path: path.to_path_buf(), table: table.clone() });
            }
            let Some(items) = items.as_table() else {
                return Err(AnswersError::UnknownTable { path: path.to_path_buf(), table: table.clone() });
            };
            for (pattern, answer) in items {
                let answer = answer.as_str().ok_or_else(|| AnswersError::NotAString {
                    path: path.to_path_buf(),
                    table: table.clone(),
                    pattern: pattern.clone(),
                })?;
                let regex = RegexBuilder::new(pattern).case_insensitive(true).build().map_err(|source| {
                    AnswersError::BadPattern {
                        path: path.to_path_buf(),
                        table: table.clone(),
                        pattern: pattern.clone(),
                        source,
                    }
                })?;
                entries.push((table.clone(), regex, answer.to_string()));
            }
        }
        Ok(Self { entries })
    }

    /// The answer the file gives `request`, if one of its patterns matches.
    pub fn answer(&self, request: &HumanRequest) -> Option<String> {
        let text = request.text();
        self.entries
            .iter()
            .find(|(kind, pattern, _)| kind == request.kind() && pattern.is_match(&text))
            .map(|(_, _, answer)| answer.clone())
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_matching_pattern_of_the_right_kind_answers() {
        let file = "[ask]\n\"phone|number\" = \"555-0100\"\n\".*\" = \"no idea\"\n[confirm]\n\"delete\" = \"yes\"\n";
        let a = Answers::parse(file, Path::new("answers.toml")).unwrap();
        let q = |question| a.answer(&HumanRequest::Question { question });
        assert_eq!(q("Which Phone number?").as_deref(), Some("555-0100"));
        assert_eq!(q("anything").as_deref(), Some("no idea"));
        let c = HumanRequest::Confirm { action: "tap \"Delete all\"", rule: "delete" };
        assert_eq!(a.answer(&c).as_deref(), Some("yes"));
        assert_eq!(a.answer(&HumanRequest::TakeOver { reason: "log in" }), None);
        let err = Answers::parse("[asks]\n", Path::new("a.toml")).unwrap_err().to_string();
        assert!(err.contains("[ask], [confirm], [take_over]"), "{err}");
        let err = Answers::parse("[ask]\n\"(\" = \"x\"\n", Path::new("a.toml")).unwrap_err().to_string();
        assert!(err.contains("regular expression"), "{err}");
    }
}
