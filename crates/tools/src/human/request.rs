//! What the runtime asks of a person ([`HumanRequest`]): a question, a confirmation
//! of a sensitive action, or taking the phone over — and how each is named and
//! shown. Not who answers (`answers.rs`, the [`Human`](super::Human) callback).

/// What the runtime needs a person for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HumanRequest<'a> {
    /// `ask_user(question)`: the answer goes back to the script.
    Question { question: &'a str },
    /// A sensitive action waits for a yes or a no: `action` says what it is, `rule`
    /// which rule it matched.
    Confirm { action: &'a str, rule: &'a str },
    /// `take_over(reason)`: the person acts on the phone, then answers (anything) to
    /// hand it back.
    TakeOver { reason: &'a str },
}

impl HumanRequest<'_> {
    /// The request's kind as answers files and events name it.
    pub fn kind(&self) -> &'static str {
        match self {
            HumanRequest::Question { .. } => "ask",
            HumanRequest::Confirm { .. } => "confirm",
            HumanRequest::TakeOver { .. } => "take_over",
        }
    }

    /// The text a pattern is matched against, and a person reads.
    pub fn text(&self) -> String {
        match self {
            HumanRequest::Question { question } => question.to_string(),
            HumanRequest::Confirm { action, rule } => format!("{action} (sensitive: {rule})"),
            HumanRequest::TakeOver { reason } => reason.to_string(),
        }
    }
}
