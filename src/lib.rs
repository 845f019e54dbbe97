//! codeact: an LLM drives an Android device by writing small sandboxed Rhai scripts
//! (the CodeAct pattern). This crate holds the runtime's library; the `codeact`
//! binary is a thin CLI over it.
//!
//! Today it provides the virtual Android device ([`sim`]) that every later part is
//! tested against, and the shared key-code table ([`keycodes`]).

pub mod device;
pub mod keycodes;
pub mod persona;
pub mod sandbox;
pub mod sim;
pub mod tools;
pub mod ui;
