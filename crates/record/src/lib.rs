//! The records of a run: the one step recorder every mode writes with
//! ([`recorder`]), run folders, typed events and exports ([`trajectory`]),
//! the HTML report ([`report`]), OTLP spans ([`trace`]) and the SQLite memory of
//! past runs ([`memory`]). Not here: deciding what to do (the modes) or doing it
//! (the runtime).

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod memory;
pub mod recorder;
pub mod report;
pub mod trace;
pub mod trajectory;
