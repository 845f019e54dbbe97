//! The session's locator: the vision model `#{ai: ...}` and `locate()` ask (when one
//! is configured), whether the persona lets them ask it, and the answers it gave, per
//! screen and description. Part of the [`ToolContext`](crate::ToolContext); the
//! asking is `ai_lookup.rs`.

use codeact_platform::locate::ai::{Answer, AnswerCache, Vision};

/// The session's locator: the model (when one is configured), whether the persona
/// lets the actor ask it, and the answers it gave.
pub(crate) struct Locator {
    pub(crate) vision: Option<Vision>,
    /// The persona's tools include `locate` (all tools do without a persona).
    pub(crate) allowed: bool,
    answers: AnswerCache,
}

impl Default for Locator {
    /// No model yet; allowed until a persona says otherwise.
    fn default() -> Self {
        Self { vision: None, allowed: true, answers: AnswerCache::default() }
    }
}

impl Locator {
    /// The answer given for `description` on the screen `fingerprint`, and the
    /// model that gave it.
    pub(crate) fn answered(&self, fingerprint: u64, description: &str) -> Option<(Answer, &str)> {
        self.answers.get(fingerprint, description)
    }

    /// Keeps an answer for the same question on the same screen.
    pub(crate) fn keep(&mut self, fingerprint: u64, description: &str, answer: Answer, model: &str) {
        self.answers.put(fingerprint, description, answer, model);
    }
}
