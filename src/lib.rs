//! codeact: an LLM drives an Android device by writing small sandboxed Rhai scripts
//! (the CodeAct pattern). This crate holds the runtime's library; the `codeact`
//! binary is a thin CLI over it.
//!
//! The parts: [`device`] (a phone over ADB), [`ui`] (parsed hierarchy dumps and the
//! compact screen text), [`sandbox`] (the locked-down Rhai engine), [`tools`] (the
//! catalog scripts call), [`persona`], [`config`], [`session`] (all of them wired
//! together), [`trajectory`] (run directories and reports), and [`sim`], the virtual
//! Android device everything is tested against.

pub mod adb_protocol;
pub mod agent;
pub mod config;
pub mod device;
pub mod keycodes;
pub mod llm;
pub mod persona;
pub mod repl;
pub mod sandbox;
pub mod session;
pub mod sim;
pub mod tools;
pub mod trajectory;
pub mod ui;
