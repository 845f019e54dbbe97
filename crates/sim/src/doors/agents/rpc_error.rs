//! A JSON-RPC error as uiautomator2's server writes one: its code, message and
//! data (a trace or a hint). Shared by the coordinate calls (`u2.rs`) and the
//! selector calls (`u2_selector.rs`); writing the reply is `u2.rs`'s.

/// A JSON-RPC error: code, message, data.
#[derive(Debug)]
pub(crate) struct RpcError(pub(crate) i64, pub(crate) String, pub(crate) Option<String>);
