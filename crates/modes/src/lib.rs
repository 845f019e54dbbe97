//! The ways to use a session, each a library call: [`agent`] (`codeact run`),
//! [`script`] (`codeact exec`, suites, `--heal`), [`maestro`] (flows as scripts and
//! back), [`repl`], [`eval`] (the task suite and the survival measurement),
//! [`explore`] (autonomous exploration), `mcp` (the MCP server), `studio`
//! (the page that shows the phone, points, acts and records) and `webdriver` (the
//! W3C WebDriver endpoint Appium's clients drive); [`shard`] is how
//! `exec` and `eval` split a suite over machines. Not here: flags
//! and printing (the binary's `cli/`).

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod agent;
#[cfg(any(feature = "studio", feature = "webdriver"))]
pub mod door;
pub mod eval;
pub mod explore;
#[cfg(feature = "serve")]
pub mod listen;
pub mod maestro;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod repl;
pub mod script;
#[cfg(any(feature = "mcp", feature = "webdriver"))]
pub mod served;
pub mod shard;
#[cfg(feature = "studio")]
pub mod studio;
#[cfg(feature = "webdriver")]
pub mod webdriver;
