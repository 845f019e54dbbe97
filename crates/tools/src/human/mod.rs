//! A person in the loop: what the runtime asks of one ([`HumanRequest`]: a question
//! from `ask_user`, a sensitive action to confirm, a `take_over`), and how it asks:
//! a [`Human`] callback that returns the person's answer, or `None` when nobody can
//! answer. The CLI builds one from an answers file and the terminal; library users
//! pass their own (a chat bot, a web form).
//!
//! Not here: deciding what is sensitive (`tools::sensitive`), or the tools that ask
//! (`tools/catalog/human.rs`).

mod answers;
mod request;

use std::sync::Arc;

pub use answers::{Answers, AnswersError};
pub use request::HumanRequest;

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
