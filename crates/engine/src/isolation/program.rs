//! Which program runs a sandbox worker (this program re-executed, or
//! `$CODEACT_WORKER`), and why a worker could not be started or used.

use std::path::{Path, PathBuf};

use super::pipe::PipeError;

/// Why a worker could not be started or used.
#[derive(Debug, thiserror::Error)]
pub enum IsolationError {
    #[error(
        "cannot start the sandbox worker {program}; it is this program re-executed (set another with `CODEACT_WORKER`)"
    )]
    Spawn {
        program: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{program} did not answer as a sandbox worker; a program that opens sessions must call `codeact::isolation::serve_if_worker()` first in main, or point `CODEACT_WORKER` at the codeact binary"
    )]
    NotAWorker { program: PathBuf },
    #[error("the sandbox worker refused its set-up: {0}")]
    Refused(String),
    #[error("the sandbox worker stopped answering")]
    Lost(#[source] PipeError),
}

/// Which program runs the worker: the `codeact` binary unless told otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerProgram(pub PathBuf);

impl WorkerProgram {
    /// `$CODEACT_WORKER`, else this very program.
    pub fn from_env() -> Self {
        let program = std::env::var_os("CODEACT_WORKER")
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::current_exe().ok())
            .unwrap_or_else(|| PathBuf::from("codeact"));
        Self(program)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Default for WorkerProgram {
    fn default() -> Self {
        Self::from_env()
    }
}
