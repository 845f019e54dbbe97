//! The screen a call is made on: the phone as it is now, what the caller's model
//! read, or what the caller read a moment ago. Not the calls (`calls.rs`).

use std::sync::Arc;

use codeact_platform::device::Observation;

/// The screen a call is made on.
#[derive(Debug, Clone, Copy)]
pub enum Screen<'a> {
    /// The phone as it is now: `ui_state` read when first used, and after each act.
    Live,
    /// What its maker read (a model): `ui_state` and the indices are that
    /// observation's until an act or `refresh()`.
    Seen(&'a Arc<Observation>),
    /// What its maker read a moment ago (a door that looked, resolved an element
    /// and acts on it): as `Seen`, and the first lookup finds on it instead of
    /// reading the screen again — one read per act.
    JustRead(&'a Arc<Observation>),
}
