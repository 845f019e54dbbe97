//! Why an XPath expression was not evaluated, and how a client's words are clipped
//! in the messages that quote them: what every part of the evaluator says. Not the
//! evaluation.

/// Why an expression was not evaluated.
#[derive(Debug, thiserror::Error)]
pub enum XPathError {
    #[error("longer than {max} characters")]
    TooLong { max: usize },
    #[error("nested more than {max} deep")]
    TooDeep { max: usize },
    #[error(
        "it takes more than {steps} steps on this page{}; search by an attribute, or find an element and search below it",
        if *.elements > 0 { format!(" of {} elements", .elements) } else { String::new() }
    )]
    TooMuchWork { steps: u64, elements: usize },
    #[error("not an XPath 1.0 expression: {why}")]
    Expression { why: String },
    #[error("the expression is empty")]
    Empty,
    #[error("the expression selects a value, not elements")]
    NotElements,
    #[error("the page source did not parse ({reason})")]
    Page { reason: String },
    #[error("the page is empty")]
    EmptyPage,
    #[error("the element left the page")]
    ScopeGone,
}

/// `text` cut at `chars` characters (a client's words in a message).
pub(super) fn clip(text: &str, chars: usize) -> String {
    let cut: String = text.chars().take(chars).collect();
    if cut.len() < text.len() { format!("{cut}…") } else { cut }
}
