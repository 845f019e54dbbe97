//! codeact: an LLM drives an Android device by writing small sandboxed Rhai scripts
//! (the CodeAct pattern). This crate is the runtime; the `codeact` binary is a thin
//! CLI over it (`src/cli/`, one file per subcommand).
//!
//! From the bottom up: [`ui`] (parsed hierarchy dumps and the compact screen text),
//! [`locate`] (reference pictures found on a screenshot),
//! [`device`] (the one interface to a phone; Android over ADB), [`apk`] (what an APK
//! declares, from the file or pulled from a phone), [`sandbox`] (the
//! locked-down Rhai engine) in the worker process of [`isolation`], [`human`] (a
//! person in the loop), [`tools`] (the catalog scripts call), [`persona`], [`llm`],
//! [`config`], [`session`] (the façade that wires them to one device), [`report`],
//! [`trajectory`] (run directories, events, exports), [`memory`], [`trace`] (OTLP),
//! and the ways to use a session, each a library call: [`agent`] (`codeact run`),
//! [`script`] (`codeact exec`, `--heal`), [`maestro`] (flows as scripts and back), [`repl`], [`eval`] (the task suite and the
//! survival measurement) and [`explore`] (autonomous exploration: coverage, crashes,
//! the tests it found). `docs/ARCHITECTURE.md` is the map. The virtual phone the
//! tests use is its own crate, `codeact-sim`, reached only over ADB.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod agent;
pub mod apk;
pub mod clip;
pub mod config;
pub mod device;
pub mod emit;
pub mod error_text;
pub mod eval;
pub mod explore;
pub mod files;
pub mod human;
pub mod isolation;
pub mod llm;
pub mod locate;
pub mod maestro;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod memory;
pub mod persona;
pub mod repl;
pub mod report;
pub mod sandbox;
pub mod script;
pub mod secrets;
pub mod session;
pub mod terminal;
pub mod toml_error;
pub mod tools;
pub mod trace;
pub mod trajectory;
pub mod ui;
