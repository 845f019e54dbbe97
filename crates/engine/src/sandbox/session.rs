//! The sandbox's two handles as types: the session ([`Sandbox`]) and a snippet
//! parsed for it ([`Compiled`]), fields and all, so that the files that give them
//! methods stand below them. Not here: running a snippet (`mod.rs`) or checking
//! its calls (`calls.rs`).

use std::sync::Arc;

use rhai::AST;

use super::engine_thread::EngineThread;
use super::limits::Limits;
use super::shared::Shared;
use super::snippet_end::Judge;

/// A snippet parsed once, ready to run in the sandbox that compiled it.
#[derive(Debug, Clone)]
pub struct Compiled {
    pub(super) ast: Arc<AST>,
    pub(super) source: Arc<str>,
}

/// A persistent, locked-down Rhai session.
pub struct Sandbox {
    pub(super) worker: EngineThread,
    pub(super) shared: Arc<Shared>,
    pub(super) limits: Limits,
    pub(super) judge: Judge,
}
