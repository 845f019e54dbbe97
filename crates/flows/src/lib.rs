//! Maestro flows and suites split over machines: [`maestro`] runs a flow as a Rhai
//! script and writes a flow from a recording (through the emitter); [`shard`] is
//! how `exec` and `eval` take their part of a suite. Not here: running the scripts
//! (the scripts crate) or the agent that records.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod maestro;
pub mod shard;
