//! The one thread every snippet runs on: a plain thread with a deep stack that owns
//! the engine, the kept variables and the kept `fn`s, and runs jobs sent to it one at
//! a time. Parsing, running, printing and dropping script values all happen here,
//! because a deeply nested value recurses (a tokio worker has a 2 MiB stack).
//!
//! The caller blocks until its job is done; a job that panics (a bug in rhai or a
//! host function) is caught, reported, and the thread keeps serving. The thread ends
//! when the [`Worker`] is dropped, dropping the script values on its own stack.

use std::sync::mpsc;
use std::thread::JoinHandle;

use rhai::{AST, Engine, Scope};

/// The stack snippets run on: deep (bounded) recursion in debug builds needs it.
const SCRIPT_STACK: usize = 32 * 1024 * 1024;

/// What lives on the worker thread.
pub(crate) struct EngineState {
    pub(crate) engine: Engine,
    pub(crate) scope: Scope<'static>,
    /// The `fn` definitions kept from earlier snippets (statements are dropped).
    pub(crate) lib: AST,
}

type Job = Box<dyn FnOnce(&mut EngineState) + Send>;

/// Why a job could not be run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum WorkerError {
    #[error("cannot start the script thread")]
    Spawn,
    #[error("the script thread crashed (a bug in codeact: please report it)")]
    Crashed,
}

pub(crate) struct Worker {
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<JoinHandle<()>>,
}

impl Worker {
    pub(crate) fn start(state: EngineState) -> Result<Self, WorkerError> {
        let (jobs, inbox) = mpsc::channel::<Job>();
        let thread = std::thread::Builder::new()
            .name("codeact-script".into())
            .stack_size(SCRIPT_STACK)
            .spawn(move || {
                let mut state = state;
                for job in inbox {
                    job(&mut state);
                }
            })
            .map_err(|_| WorkerError::Spawn)?;
        Ok(Self { jobs: Some(jobs), thread: Some(thread) })
    }

    /// The thread jobs run on (cancels wake it from its waits).
    pub(crate) fn thread(&self) -> Option<std::thread::Thread> {
        self.thread.as_ref().map(|t| t.thread().clone())
    }

    /// Runs `job` on the worker and waits for its result.
    pub(crate) fn submit<T: Send + 'static>(
        &self,
        job: impl FnOnce(&mut EngineState) -> T + Send + 'static,
    ) -> Result<T, WorkerError> {
        let (reply, answer) = mpsc::sync_channel(1);
        let wrapped: Job = Box::new(move |state| {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(state)));
            let _ = reply.send(result.map_err(|_| WorkerError::Crashed));
        });
        let jobs = self.jobs.as_ref().ok_or(WorkerError::Crashed)?;
        jobs.send(wrapped).map_err(|_| WorkerError::Crashed)?;
        answer.recv().map_err(|_| WorkerError::Crashed)?
    }
}

impl Drop for Worker {
    /// Closing the queue ends the thread, which drops the script values on its own
    /// stack; waiting for it keeps a dropped session from leaving work behind.
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
