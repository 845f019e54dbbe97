//! `codeact.Session`: a sandboxed Rhai engine bound to one phone, as `codeact exec`
//! and the REPL use it. Every call that waits on the phone or the engine goes
//! through [`blocking`]; not the agent (task.rs).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, PoisonError};

use codeact::config::{Flags, Settings};
use codeact::isolation::WorkerProgram;
use codeact::tools::SensitivePolicy;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use tokio_util::sync::CancellationToken;

use crate::errors::{CodeactError, codeact_error, device_error, script_error, session_error};
use crate::results::{PyRunResult, PyScreen, screen_of};
use crate::waiting::blocking;

const CLOSED: &str = "this session is closed";

/// The program each session's engine runs in: `codeact._worker.program()` (which
/// honours `$CODEACT_WORKER`).
pub(crate) fn worker_program(py: Python<'_>) -> PyResult<WorkerProgram> {
    let path: PathBuf = py.import("codeact._worker")?.call_method0("program")?.extract()?;
    Ok(WorkerProgram(path))
}

/// Settings as the CLI resolves them: `config` (else `$CODEACT_CONFIG` or
/// `./codeact.toml`), then these flags.
pub(crate) fn settings(config: Option<PathBuf>, flags: &Flags) -> PyResult<Settings> {
    Settings::load(config.as_deref(), flags).map_err(|e| codeact_error(&e))
}

/// A session on the device `settings` names (errors made here, off the GIL: a
/// PyErr is built lazily and may cross threads).
pub(crate) fn open_session(settings: &Settings) -> PyResult<codeact::session::Session> {
    codeact::session::Session::open(settings).map_err(|e| match e {
        codeact::session::OpenError::Device(e) => device_error(&e),
        codeact::session::OpenError::Session(e) => session_error(&e),
    })
}

/// A sandboxed Rhai engine bound to one phone, as `codeact exec` and the REPL use
/// it: variables and functions persist from one `run` to the next.
#[pyclass(module = "codeact", name = "Session", frozen)]
pub(crate) struct PySession {
    inner: Mutex<Option<codeact::session::Session>>,
    device: String,
}

impl PySession {
    fn lock(&self) -> MutexGuard<'_, Option<codeact::session::Session>> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `f` on the open session; `None` once it is closed.
    fn with<T>(&self, f: impl FnOnce(&mut codeact::session::Session) -> T) -> Option<T> {
        self.lock().as_mut().map(f)
    }
}

#[pymethods]
impl PySession {
    /// Opens `device` ("sim" starts a virtual phone in this process; a serial,
    /// HOST:PORT, "ios:URL", "hdc"...) with the tools of `persona` (default: every
    /// tool), codeact.toml at `config` (default: $CODEACT_CONFIG or ./codeact.toml)
    /// and `limits` laid over it, e.g. {"timeout_ms": 5000}.
    #[new]
    #[pyo3(signature = (device = "sim", persona = None, config = None, limits = None))]
    fn new(
        py: Python<'_>,
        device: &str,
        persona: Option<String>,
        config: Option<PathBuf>,
        limits: Option<BTreeMap<String, i64>>,
    ) -> PyResult<Self> {
        let flags = Flags {
            device: Some(device.to_string()),
            persona,
            limits: limits.unwrap_or_default().into_iter().map(|(k, v)| format!("{k}={v}")).collect(),
            // As `codeact exec`: a person's own script is let through.
            default_sensitive: Some(SensitivePolicy::Allow),
            ..Flags::default()
        };
        let mut settings = settings(config, &flags)?;
        settings.worker = worker_program(py)?;
        let session = blocking(py, || {}, move || open_session(&settings))??;
        let device = session.device_name();
        Ok(Self { inner: Mutex::new(Some(session)), device })
    }

    /// Compiles and runs `code` on the phone as it is now. Returns the RunResult;
    /// raises ScriptError when the snippet failed (syntax, its own error, a limit,
    /// a tool whose failure it did not catch). Ctrl-C stops it.
    fn run(&self, py: Python<'_>, code: &str) -> PyResult<Py<PyRunResult>> {
        let code = code.to_string();
        let stop = CancellationToken::new();
        let token = stop.clone();
        let ran = blocking(
            py,
            || stop.cancel(),
            move || {
                self.with(|s| {
                    // This call's own token: an earlier call's, cancelled, must not stop it.
                    s.stop_on(token);
                    s.eval(&code)
                })
            },
        )?
        .ok_or_else(|| CodeactError::new_err(CLOSED))?;
        let error = ran.error.clone();
        let result = Py::new(py, PyRunResult::new(py, ran)?)?;
        match error {
            Some(e) => Err(script_error(py, &e, result)),
            None => Ok(result),
        }
    }

    /// The screen now: the compact text a model reads, the app and activity in
    /// front, and the elements `ui_state` lists (same indices).
    fn observe(&self, py: Python<'_>) -> PyResult<PyScreen> {
        let (screen, elements) = blocking(
            py,
            || {},
            move || match self.with(|s| s.observe(false).map(|o| screen_of(&o))) {
                Some(seen) => seen.map_err(|e| device_error(&e)),
                None => Err(CodeactError::new_err(CLOSED)),
            },
        )??;
        let elements = elements.into_iter().map(|e| Py::new(py, e)).collect::<PyResult<Vec<_>>>()?;
        Ok(PyScreen { elements, ..screen })
    }

    /// A PNG of the screen now.
    fn screenshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let png = blocking(
            py,
            || {},
            move || match self.with(|s| s.screenshot()) {
                Some(png) => png.map_err(|e| device_error(&e)),
                None => Err(CodeactError::new_err(CLOSED)),
            },
        )??;
        Ok(PyBytes::new(py, &png))
    }

    /// Stops the engine's worker process and lets the phone go (a virtual phone
    /// stops). Later calls raise CodeactError; closing twice does nothing.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        blocking(py, || {}, move || drop(self.lock().take()))
    }

    /// The device's name ("sim (127.0.0.1:40123)", a serial).
    #[getter]
    fn device(&self) -> &str {
        &self.device
    }

    fn __enter__<'py>(slf: &Bound<'py, Self>) -> Bound<'py, Self> {
        slf.clone()
    }

    fn __exit__(
        &self,
        py: Python<'_>,
        _exc_type: &Bound<'_, PyAny>,
        _exc_value: &Bound<'_, PyAny>,
        _traceback: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        format!("<codeact.Session on {}>", self.device)
    }
}
