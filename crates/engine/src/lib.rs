//! The engine: the locked-down Rhai engine and its limits ([`sandbox`]), the
//! worker process it runs in under OS caps ([`isolation`]), and the one emitter
//! of code and YAML written from data ([`emit`]). Not here: any device — tools
//! reach the engine as callbacks registered from above.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod emit;
pub mod isolation;
pub mod sandbox;
