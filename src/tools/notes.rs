//! What scripts keep in a session: the facts `remember()` kept (the newest
//! `MEMORY_ITEMS`) and the reply `answer()` gave. Part of the
//! [`ToolContext`](super::ToolContext).

#[derive(Debug, Default)]
pub(crate) struct Notes {
    /// `remember()`'s facts, oldest first.
    pub(crate) facts: Vec<String>,
    /// What `answer(text)` gave last: the reply to a question task.
    pub(crate) answer: Option<String>,
}
