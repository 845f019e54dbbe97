//! Who consents to sensitive actions in a session, and what they said: the person
//! (or nobody), a yes for the running call, and the rules they answered "always"
//! for. Part of the [`ToolContext`](crate::ToolContext); the asking is `gate.rs`'s.

#[derive(Default)]
pub(crate) struct Consent {
    /// Who answers `ask_user`, `take_over` and sensitive-action confirmations
    /// (`None`: nobody; questions fail and sensitive actions are refused).
    pub(crate) human: Option<crate::human::Human>,
    /// A person said yes to a sensitive action in the running call.
    pub(crate) this_call: bool,
    /// Sensitive rules a person answered "always" for, this session.
    pub(crate) always: Vec<String>,
    /// A built-in watcher is acting: it asks nobody, and a yes given to the call's
    /// own action is not its (it presses what nobody named).
    pub(crate) watcher_acting: bool,
}
