//! The ADB wire protocol as data, without I/O: the 24-byte message header and its
//! command words ([`message`]), shell protocol v2 packets ([`shell_v2`]), the sync
//! service's file transfer ([`sync`]) and Android key codes ([`keycodes`]).
//!
//! Both ends of codeact's ADB traffic are written on it: the runtime's client (which
//! drives real phones) and the virtual device's adbd. Sockets, timeouts, flow control
//! and payload limits belong to each side; this crate only says what the bytes mean.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod keycodes;
pub mod message;
pub mod shell_v2;
pub mod sync;

pub use message::{A_AUTH, A_CLSE, A_CNXN, A_OKAY, A_OPEN, A_STLS, A_VERSION, A_VERSION_MIN, A_WRTE, Header};
