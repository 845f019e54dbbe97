//! codeact's errors as Python exceptions: CodeactError and its subclasses
//! ScriptError (a snippet failed: the very text codeact prints, and its parts as
//! attributes) and DeviceError. Not the results of a run (results.rs).

use codeact::device::DeviceError as PhoneError;
use codeact::error_text::full_message;
use codeact::isolation::IsolationError;
use codeact::sandbox::RunError;
use codeact::session::SessionError;
use pyo3::create_exception;
use pyo3::exceptions::{PyBaseException, PyException};
use pyo3::prelude::*;

use crate::results::PyRunResult;

create_exception!(codeact, CodeactError, PyException, "An error of codeact: configuration, session, model or agent.");
create_exception!(
    codeact,
    ScriptError,
    CodeactError,
    "A Rhai snippet failed. str() is the error as codeact prints it (line, column, message and a caret under \
     the place); attributes: message, line, column, kind (syntax, script, limit, cancelled, tool, crashed), \
     limit, tool, failure, result (the RunResult: what it printed and did before failing)."
);
create_exception!(codeact, DeviceError, CodeactError, "The phone could not be opened, read or reached.");

pub(crate) fn codeact_error(e: &dyn std::error::Error) -> PyErr {
    CodeactError::new_err(full_message(e))
}

pub(crate) fn device_error(e: &PhoneError) -> PyErr {
    DeviceError::new_err(full_message(e))
}

/// A session that could not start, with the way out when its worker is the cause.
pub(crate) fn session_error(e: &SessionError) -> PyErr {
    let mut text = full_message(e);
    if matches!(e, SessionError::Isolation(IsolationError::Spawn { .. } | IsolationError::NotAWorker { .. })) {
        text.push_str(
            " (from Python the worker is the codeact-worker program installed with the codeact package: \
             reinstall the package, or set CODEACT_WORKER to that program or to a codeact binary)",
        );
    }
    CodeactError::new_err(text)
}

/// ScriptError with the very text RunError's Display gives, and its parts as
/// attributes (the kinds named as codeact's JSON names them).
pub(crate) fn script_error(py: Python<'_>, error: &RunError, result: Py<PyRunResult>) -> PyErr {
    let err = ScriptError::new_err(error.to_string());
    match describe(err.value(py), error, result) {
        Ok(()) => err,
        Err(e) => e,
    }
}

fn describe(value: &Bound<'_, PyBaseException>, error: &RunError, result: Py<PyRunResult>) -> PyResult<()> {
    value.setattr("message", error.message.as_str())?;
    value.setattr("line", error.line)?;
    value.setattr("column", error.column)?;
    // The kind and its parts named as codeact's JSON writes them
    // (`{"kind": "tool", "tool": "tap", "failure": "not_found"}`), so they cannot drift.
    let kind = serde_json::to_value(&error.kind).unwrap_or_default();
    for key in ["kind", "limit", "tool", "failure"] {
        value.setattr(key, kind.get(key).and_then(serde_json::Value::as_str))?;
    }
    value.setattr("result", result)
}
