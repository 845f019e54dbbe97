//! How a process becomes a sandbox worker: the argument the runtime starts it with,
//! and the two entry points, one for a program that re-executes itself (the
//! `codeact` binary, an embedding program) and one for a worker program that checks
//! its own arguments (the Python package's `codeact-worker`). What a worker does is
//! `worker.rs`; starting one is `process.rs`.

/// The argument that makes the `codeact` binary (or any program that calls
/// [`serve_if_worker`] first) a sandbox worker.
pub const WORKER_ARG: &str = "__codeact-sandbox-worker";

/// Runs the worker and returns its exit code when this process was started as one
/// (its first argument is [`WORKER_ARG`]); `None` otherwise. A program that opens
/// sessions calls this first thing in `main`:
///
/// ```no_run
/// if let Some(code) = codeact::isolation::serve_if_worker() {
///     std::process::exit(code);
/// }
/// ```
pub fn serve_if_worker() -> Option<i32> {
    let mut args = std::env::args_os();
    (args.nth(1).as_deref() == Some(std::ffi::OsStr::new(WORKER_ARG))).then(serve_worker)
}

/// Serves this process as a sandbox worker, whatever its arguments, and returns the
/// exit code once the runtime closes the pipe: stdin and stdout must be the pipes the
/// runtime started it with, and it caps this process's memory, CPU, open files and
/// processes. For a worker program that checks its arguments itself (the Python
/// package's `codeact-worker`, whose executable is the interpreter); any other
/// program calls [`serve_if_worker`].
pub fn serve_worker() -> i32 {
    super::worker::serve()
}
