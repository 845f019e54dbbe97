//! The runtime: the tool catalog scripts call, one `ToolSpec` each ([`tools`]),
//! people in the loop ([`human`]), personas ([`persona`]), the LLM client
//! ([`llm`]), settings ([`config`]) and the [`session`] that wires a sandbox and a
//! device together. Not here: records of a run (the record layer) or the modes
//! that drive a session.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod config;
pub mod human;
pub mod llm;
pub mod persona;
pub mod session;
pub mod tools;
