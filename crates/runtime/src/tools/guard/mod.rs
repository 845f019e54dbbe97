//! What stands between a tool and the phone: the sensitive-action gate
//! (`gate.rs`: every act judged by what it reaches, `sensitive.rs` the rules,
//! `shell_input.rs` what a shell command injects, `consent.rs` what a person said)
//! and the watchers (`watchers.rs` what a blocker is, `watching.rs` how they fire
//! and act — through the gate like every act — `watcher_state.rs` their state).
//! Not the acts themselves (`context/acting.rs`) or the tools (`catalog/`).

pub(crate) mod consent;
pub(crate) mod gate;
pub mod sensitive;
pub mod shell_input;
pub(crate) mod watcher_state;
pub mod watchers;
pub(crate) mod watching;
