//! The ADB wire protocol, device side: framing, connections and streams, services.

pub mod connection;
pub mod message;
pub mod services;
pub mod sync;
