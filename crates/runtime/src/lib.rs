//! The runtime: personas ([`persona`]), the LLM client ([`llm`]), settings
//! ([`config`]) and the [`session`] that wires a sandbox, a device and the tool
//! catalog together. Not here: the tools themselves and the people in the loop
//! (`codeact-tools`), records of a run (the record layer) or the modes that drive a
//! session.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod config;
pub mod llm;
pub mod persona;
pub mod session;
