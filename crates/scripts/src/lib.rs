//! Scripts run by hand: [`script`] (`codeact exec`, suites, `--heal`) and the
//! [`repl`]. Not here: flags and printing (the binary's `cli/`), the agent that
//! heals (the agent crate) or the flows a suite may hold (the flows crate).

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod repl;
pub mod script;
