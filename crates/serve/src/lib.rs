//! The servers codeact starts, each on 127.0.0.1 behind a token: `mcp` (the MCP
//! server), `studio` (the page that shows the phone, points, acts and records) and
//! `webdriver` (the W3C WebDriver endpoint Appium's clients drive); beneath them
//! what they share: `listen.rs` (the bounded accept loop), `door.rs` (the token,
//! `Origin` and `Host` checks) and `served.rs` (one recorder for a served
//! session's acts). Not here: the modes they expose (agent, measure) or flags and
//! printing (the binary's `cli/`).

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

#[cfg(any(feature = "studio", feature = "webdriver"))]
pub mod door;
#[cfg(feature = "serve")]
pub mod listen;
#[cfg(feature = "mcp")]
pub mod mcp;
#[cfg(feature = "serve")]
pub mod served;
#[cfg(feature = "studio")]
pub mod studio;
#[cfg(feature = "webdriver")]
pub mod webdriver;
