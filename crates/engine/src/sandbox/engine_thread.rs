//! The one thread every snippet runs on: a long-lived thread with a deep stack (a
//! one-thread rayon pool) on which the engine, the kept variables and the kept
//! `fn`s are used. Parsing, running, printing and dropping script values all happen
//! there, because a deeply nested value recurses (a tokio worker has a 2 MiB stack).
//!
//! The caller blocks until its job is done; a job that panics (a bug in rhai or a
//! host function) is caught and reported. Rayon's pool hands a job over in
//! microseconds (its idle thread spins before it sleeps); a plain thread woken
//! through a channel cost ~80 µs a call on this kind of machine, which a 10-call
//! snippet would pay twice.

use std::sync::Mutex;

use rhai::{AST, Engine, Scope};

/// The stack snippets run on: deep (bounded) recursion in debug builds needs it.
const SCRIPT_STACK: usize = 32 * 1024 * 1024;

/// What the worker thread works on.
pub(crate) struct EngineState {
    pub(crate) engine: Engine,
    pub(crate) scope: Scope<'static>,
    /// The `fn` definitions kept from earlier snippets (statements are dropped).
    pub(crate) lib: AST,
    /// The source each kept `fn` was defined in (errors inside it quote its lines).
    pub(crate) fn_sources: std::collections::HashMap<String, std::sync::Arc<str>>,
}

/// Why a job could not be run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineThreadError {
    #[error("cannot start the script thread")]
    Spawn,
    /// A panic inside the engine or a host function, with what it said.
    #[error("the engine failed while running this snippet ({0}); please report it to codeact with the snippet")]
    Crashed(String),
}

pub(crate) struct EngineThread {
    pool: std::sync::Arc<rayon::ThreadPool>,
    /// Taken only by the job that runs, and `None` only while being dropped.
    state: Mutex<Option<EngineState>>,
}

impl EngineThread {
    pub(crate) fn start(state: EngineState) -> Result<Self, EngineThreadError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .stack_size(SCRIPT_STACK)
            .thread_name(|_| "codeact-script".into())
            .build()
            .map_err(|_| EngineThreadError::Spawn)?;
        Ok(Self { pool: std::sync::Arc::new(pool), state: Mutex::new(Some(state)) })
    }

    /// The pool jobs run on: a caller already on its thread runs its jobs inline.
    pub(crate) fn pool(&self) -> std::sync::Arc<rayon::ThreadPool> {
        self.pool.clone()
    }

    /// The thread jobs run on (cancels wake it from its waits).
    pub(crate) fn thread(&self) -> std::thread::Thread {
        self.pool.install(std::thread::current)
    }

    /// Runs `job` on the worker and waits for its result.
    pub(crate) fn submit<T: Send>(
        &self,
        job: impl FnOnce(&mut EngineState) -> T + Send,
    ) -> Result<T, EngineThreadError> {
        // A job that panicked left the state as it was: keep serving it.
        let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let state = guard.as_mut().ok_or_else(|| EngineThreadError::Crashed("the engine is gone".into()))?;
        self.pool
            .install(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(state))))
            .map_err(|payload| EngineThreadError::Crashed(panic_text(payload.as_ref())))
    }
}

/// What a panic said, shortened (it becomes part of an error message).
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string());
    let short: String = text.chars().take(200).collect();
    format!("it panicked: {short}")
}

impl Drop for EngineThread {
    /// The script values are dropped on the worker's deep stack too.
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(state) = state {
            self.pool.install(move || drop(state));
        }
    }
}
