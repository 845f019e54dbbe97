//! What stands between a tool and the phone: the sensitive-action gate
//! (`gate.rs`: every act judged by what it reaches, `sensitive.rs` the rules,
//! `shell_input.rs` what a shell command injects, `consent.rs` what a person said)
//! and the watchers (`watchers.rs` what a blocker is, `watching.rs` how the
//! built-in ones clear it — acting through the gate like every act —,
//! `script_watchers.rs` the script's own and the context's doors to them,
//! `watcher_state.rs` their state). The gate and the watchers are lent only the
//! parts of the context they need (`context/lent.rs`), never the whole of it.
//! Not the acts themselves (`context/acting.rs`) or the tools (`catalog/`).

pub(crate) mod consent;
pub(crate) mod gate;
pub(crate) mod script_watchers;
pub mod sensitive;
pub mod shell_input;
pub(crate) mod watcher_state;
pub mod watchers;
pub(crate) mod watching;
