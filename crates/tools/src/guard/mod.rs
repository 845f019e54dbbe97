//! What stands between a tool and the phone: the sensitive-action gate
//! (`gate.rs`: every act judged by what it reaches, by the rules of
//! `tools/sensitive.rs` and the consent of `tools/consent.rs`; `shell_input.rs` what
//! a shell command injects) and the watchers (`watchers.rs` what a blocker is,
//! `watching.rs` how the built-in ones clear it — acting through the gate like
//! every act —, `watcher_state.rs` their state; the script's own watchers locate
//! like tools, in `catalog/script_watchers.rs`). The gate and the watchers are lent
//! only the parts of the context they need (`context/lent.rs`), never the whole of
//! it. Not the acts themselves (`tools/acting.rs`) or the tools (`catalog/`).

pub(crate) mod gate;
pub mod shell_input;
pub(crate) mod watcher_state;
pub mod watchers;
pub(crate) mod watching;
