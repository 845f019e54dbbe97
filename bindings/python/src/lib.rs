//! codeact from Python: `codeact.Session` (a sandboxed engine on one phone: run
//! Rhai, observe, screenshot) and `codeact.run_task` (codeact's own agent on a
//! goal), typed results as frozen classes, and codeact's errors as Python
//! exceptions. The package's Python side (`python/codeact/`) re-exports these and
//! finds the `codeact-worker` program each session's engine runs in.
//!
//! Every call that waits on the phone, the engine or the model runs on a thread of
//! its own with the GIL released (waiting.rs); the calling thread wakes often to look
//! for Ctrl-C, which stops the snippet (or the agent) and raises KeyboardInterrupt
//! once it has stopped.

#![deny(clippy::unwrap_used, clippy::expect_used)]

mod errors;
mod results;
mod session;
mod task;
mod waiting;

use pyo3::prelude::*;

use errors::{CodeactError, DeviceError, ScriptError};
use results::{PyAction, PyCompletion, PyElement, PyRunResult, PyScreen};
use session::PySession;
use task::{PyTaskResult, run_task};

/// Serves this process as a session's sandbox worker until the runtime closes the
/// pipe; returns the exit code. Only `codeact-worker` calls it: it caps this
/// process's memory, CPU, files and processes.
#[pyfunction]
#[pyo3(name = "_serve_worker")]
fn serve_worker(py: Python<'_>) -> i32 {
    py.detach(codeact::isolation::serve_worker)
}

#[pymodule(name = "_codeact")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("CodeactError", py.get_type::<CodeactError>())?;
    m.add("ScriptError", py.get_type::<ScriptError>())?;
    m.add("DeviceError", py.get_type::<DeviceError>())?;
    m.add_class::<PySession>()?;
    m.add_class::<PyRunResult>()?;
    m.add_class::<PyAction>()?;
    m.add_class::<PyCompletion>()?;
    m.add_class::<PyScreen>()?;
    m.add_class::<PyElement>()?;
    m.add_class::<PyTaskResult>()?;
    m.add_function(wrap_pyfunction!(run_task, m)?)?;
    m.add_function(wrap_pyfunction!(serve_worker, m)?)?;
    m.add("WORKER_ARG", codeact::isolation::WORKER_ARG)?;
    Ok(())
}
