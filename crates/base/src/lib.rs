//! The floor every other layer stands on: files read and written safely
//! ([`files`]), text clipped on a char boundary ([`clip`]), an error's whole chain
//! as one line ([`error_text`]) and TOML errors with their place ([`toml_error`]),
//! the one notion of a hidden character ([`visible`]), where a Rhai source's
//! literals lie read as text ([`literals`]), secrets and their redaction
//! ([`secrets`]), access tokens for loopback servers ([`token`]), XML attribute values
//! escaped ([`xml`]), a seeded generator that repeats itself ([`rng`]) and the terminal every untrusted text reaches escaped
//! ([`terminal`]). Not here: anything that knows a phone, a Rhai engine, a tool or
//! a run.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod clip;
pub mod error_text;
pub mod files;
pub mod literals;
pub mod rng;
pub mod secrets;
pub mod terminal;
pub mod token;
pub mod toml_error;
pub mod visible;
pub mod xml;
