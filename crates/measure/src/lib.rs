//! What measures agents and apps: [`eval`] (the task suite, comparisons and the
//! survival measurement) and [`explore`] (autonomous exploration and its
//! benchmark). Not here: the agent they run (the agent crate), the scripts their
//! oracles are (the scripts crate), flags and printing (the binary's `cli/`).

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod eval;
pub mod explore;
