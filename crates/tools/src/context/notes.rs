//! What scripts keep in a session: the facts `remember()` kept (the newest
//! `MEMORY_ITEMS`) and the reply `answer()` gave. Part of the
//! [`ToolContext`](crate::ToolContext).

#[derive(Debug, Default)]
pub(crate) struct Notes {
    /// `remember()`'s facts, oldest first.
    facts: Vec<String>,
    /// What `answer(text)` gave last: the reply to a question task.
    answer: Option<String>,
}

impl Notes {
    /// Keeps `fact`, forgetting the oldest when `most` are kept already.
    pub(crate) fn remember(&mut self, fact: String, most: usize) {
        if self.facts.len() >= most {
            self.facts.remove(0);
        }
        self.facts.push(fact);
    }

    /// The facts kept, oldest first.
    pub fn facts(&self) -> &[String] {
        &self.facts
    }

    /// Replaces the answer.
    pub(crate) fn set_answer(&mut self, text: String) {
        self.answer = Some(text);
    }

    pub fn answer(&self) -> Option<&str> {
        self.answer.as_deref()
    }
}
