//! Waiting on codeact with the GIL released: the work runs on a thread of its own,
//! the calling thread wakes every [`POLL`] to look for Ctrl-C. Not where the work is
//! chosen (session.rs, task.rs) nor how its errors read (errors.rs).

use std::any::Any;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use pyo3::prelude::*;

use crate::errors::CodeactError;

/// How often a waiting call looks for Ctrl-C.
const POLL: Duration = Duration::from_millis(100);

/// Runs `work` on a thread of its own with the GIL released and returns what it
/// returned. Meanwhile this thread looks for Ctrl-C (KeyboardInterrupt, main thread
/// only) every [`POLL`]: on one it calls `interrupt` once, waits for `work` to end,
/// and raises it.
pub(crate) fn blocking<T, W>(py: Python<'_>, interrupt: impl Fn(), work: W) -> PyResult<T>
where
    T: Send,
    W: FnOnce() -> T + Send,
{
    std::thread::scope(|scope| {
        let (done, mut waiting) = mpsc::channel::<()>();
        let worker = std::thread::Builder::new()
            .name("codeact-py".into())
            .spawn_scoped(scope, move || {
                let out = work();
                let _ = done.send(());
                out
            })
            .map_err(|e| CodeactError::new_err(format!("cannot start a thread: {e}")))?;
        let mut interrupted: Option<PyErr> = None;
        loop {
            let (back, ended) = py.detach(move || {
                let ended = waiting.recv_timeout(POLL);
                (waiting, ended)
            });
            waiting = back;
            // Sent, or the worker panicked (its end of the channel dropped).
            if !matches!(ended, Err(RecvTimeoutError::Timeout)) {
                break;
            }
            if interrupted.is_none()
                && let Err(e) = py.check_signals()
            {
                interrupt();
                interrupted = Some(e);
            }
        }
        let joined = py.detach(move || worker.join());
        if let Some(e) = interrupted {
            return Err(e);
        }
        joined.map_err(|panic| CodeactError::new_err(format!("codeact failed: {}", panic_text(panic.as_ref()))))
    })
}

fn panic_text(panic: &(dyn Any + Send)) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(s), _) => (*s).to_string(),
        (_, Some(s)) => s.clone(),
        _ => "a panic".to_string(),
    }
}
