//! A person in the loop: what the runtime asks of one ([`HumanRequest`]: a question
//! from `ask_user`, a sensitive action to confirm, a `take_over`), and how it asks:
//! a [`Human`] callback that returns the person's answer, or `None` when nobody can
//! answer. The CLI builds one from an answers file and the terminal; library users
//! pass their own (a chat bot, a web form).
//!
//! Not here: deciding what is sensitive (`tools::sensitive`), or the tools that ask
//! (`tools/catalog/human.rs`).

mod answers;

use std::sync::Arc;

pub use answers::{Answers, AnswersError};

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

/// Asks a person; `None`: nobody can answer (no terminal, no matching answer).
pub type Human = Arc<dyn Fn(&HumanRequest) -> Option<String> + Send + Sync>;

/// How a person answered a confirmation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consent {
    /// This action, this once.
    Yes,
    /// Every action this rule matches, for the rest of the session.
    Always,
    No,
}

impl Consent {
    /// Reads an answer: yes / y / ok / allow / 是 / 确认 / 好, always / a, anything
    /// else is no (a typo must not pay).
    pub fn from_answer(answer: &str) -> Self {
        let a = answer.trim().to_lowercase();
        match a.as_str() {
            "always" | "a" | "yes to all" | "总是" => Consent::Always,
            "yes" | "y" | "ok" | "allow" | "confirm" | "是" | "确认" | "好" | "同意" => Consent::Yes,
            _ => Consent::No,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_clear_yes_consents() {
        assert_eq!(Consent::from_answer(" Yes\n"), Consent::Yes);
        assert_eq!(Consent::from_answer("确认"), Consent::Yes);
        assert_eq!(Consent::from_answer("always"), Consent::Always);
        for no in ["", "no", "yse", "sure?", "n"] {
            assert_eq!(Consent::from_answer(no), Consent::No, "{no:?}");
        }
        let r = HumanRequest::Confirm { action: "tap Button \"Delete\"", rule: "delete" };
        assert_eq!((r.kind(), r.text().as_str()), ("confirm", "tap Button \"Delete\" (sensitive: delete)"));
    }
}
