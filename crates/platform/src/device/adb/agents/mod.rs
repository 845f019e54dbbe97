//! On-device agents an Android phone may already run, and the choice between them
//! and `uiautomator dump` (`--observe auto|dump|u2`). An agent is a server on a
//! device port, reached only through the ADB transport (a `tcp:PORT` stream per
//! request, `http.rs`); it returns the UI tree in tens of milliseconds where a dump
//! takes seconds, and taps without starting a JVM. uiautomator2's server is
//! `u2.rs`'s, the mobilerun Portal `portal.rs`'s (which also types with its keyboard
//! and takes screenshots). An agent is started when it is installed and never installed here; a
//! tree it returns that looks stale or empty is replaced by a dump, and the
//! observation says so. Not the ADB client (`transport/`).

mod choose;
mod exchange;
pub mod http;
mod portal;
mod portal_tree;
mod u2;

pub(in crate::device::adb) use super::agent_state::KeyboardAct;
pub use super::agent_state::ObserveWith;
pub use crate::device::errors::agent::AgentError;
