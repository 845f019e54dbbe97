//! What a snippet did and what the screen shows, as frozen Python classes: RunResult
//! (with its Actions and Completion), Screen and its Elements. Made from codeact's
//! own types; not how they are obtained (session.rs).

use codeact::device::Observation;
use pyo3::prelude::*;

/// One tool call a snippet made.
#[pyclass(module = "codeact", name = "Action", frozen, get_all)]
pub(crate) struct PyAction {
    tool: String,
    /// The arguments as Rhai literals.
    args: Vec<String>,
    /// "ok", or the error the call ended with.
    result: String,
    /// How it failed (assertion, not_found, device...); None when it succeeded.
    failure: Option<String>,
    /// What it visibly changed ("opened .SubSettings"), when that was seen.
    effect: Option<String>,
    started_ms: f64,
    duration_ms: f64,
}

#[pymethods]
impl PyAction {
    fn __repr__(&self) -> String {
        let call = format!("{}({}) -> {}", self.tool, self.args.join(", "), self.result);
        match &self.effect {
            Some(effect) => format!("<Action {call}; {effect}>"),
            None => format!("<Action {call}>"),
        }
    }
}

/// What `complete(success, reason)` said.
#[pyclass(module = "codeact", name = "Completion", frozen, get_all)]
pub(crate) struct PyCompletion {
    success: bool,
    reason: String,
}

#[pymethods]
impl PyCompletion {
    fn __repr__(&self) -> String {
        format!("<Completion success={} reason={:?}>", if self.success { "True" } else { "False" }, self.reason)
    }
}

/// What one snippet did.
#[pyclass(module = "codeact", name = "RunResult", frozen, get_all)]
pub(crate) struct PyRunResult {
    /// What it printed.
    output: String,
    /// Its last expression's value as Rhai prints it; None for ().
    value: Option<String>,
    actions: Vec<Py<PyAction>>,
    /// Calls past those kept in `actions`, counted only.
    more_actions: usize,
    completion: Option<Py<PyCompletion>>,
    duration_ms: f64,
    /// No error and no complete(false, ...).
    ok: bool,
}

impl PyRunResult {
    pub(crate) fn new(py: Python<'_>, r: codeact::sandbox::RunResult) -> PyResult<Self> {
        let ok = r.ok();
        let actions = r
            .actions
            .into_iter()
            .map(|a| {
                let action = PyAction {
                    failure: a.failure.map(|f| json_name(serde_json::to_value(f))),
                    effect: a.capture.effect,
                    tool: a.tool,
                    args: a.args,
                    result: a.result,
                    started_ms: a.started_ms,
                    duration_ms: a.duration_ms,
                };
                Py::new(py, action)
            })
            .collect::<PyResult<Vec<_>>>()?;
        let completion =
            r.completion.map(|c| Py::new(py, PyCompletion { success: c.success, reason: c.reason })).transpose()?;
        Ok(Self {
            output: r.output,
            value: r.value,
            actions,
            more_actions: r.more_actions,
            completion,
            duration_ms: r.duration_ms,
            ok,
        })
    }
}

#[pymethods]
impl PyRunResult {
    fn __repr__(&self) -> String {
        let calls = self.actions.len() + self.more_actions;
        format!(
            "<RunResult ok={} value={:?} actions={calls} output={} bytes, {:.1} ms>",
            if self.ok { "True" } else { "False" },
            self.value,
            self.output.len(),
            self.duration_ms
        )
    }
}

/// One element of the screen, as `ui_state` lists it.
#[pyclass(module = "codeact", name = "Element", frozen, get_all)]
pub(crate) struct PyElement {
    /// Its `ui_state` index (what tap_by_index takes).
    index: usize,
    text: String,
    /// content-desc.
    desc: String,
    /// The short resource id ("wifi_switch").
    id: String,
    /// The short class ("Switch").
    cls: String,
    /// (left, top, right, bottom) in pixels.
    bounds: (i32, i32, i32, i32),
}

#[pymethods]
impl PyElement {
    fn __repr__(&self) -> String {
        let (l, t, r, b) = self.bounds;
        format!(
            "<Element {} {} id={:?} text={:?} desc={:?} ({l},{t},{r},{b})>",
            self.index, self.cls, self.id, self.text, self.desc
        )
    }
}

/// One look at the phone.
#[pyclass(module = "codeact", name = "Screen", frozen, get_all)]
pub(crate) struct PyScreen {
    /// The compact screen text a model reads: a phone line, then one line per element.
    pub(crate) text: String,
    /// The package in front.
    pub(crate) app: String,
    pub(crate) activity: String,
    pub(crate) elements: Vec<Py<PyElement>>,
}

#[pymethods]
impl PyScreen {
    fn __repr__(&self) -> String {
        format!("<Screen {}/{} with {} elements>", self.app, self.activity, self.elements.len())
    }
}

/// The screen without its elements, and the elements, made off the GIL; a secret a
/// script typed is blotted out as `ui_state` blots it.
pub(crate) fn screen_of(seen: &Observation) -> (PyScreen, Vec<PyElement>) {
    let blot = |t: &str| codeact::secrets::blot_registered(t).into_owned();
    let short = |s: &str, sep: char| s.rsplit(sep).next().unwrap_or("").to_string();
    let elements = codeact::ui::screen_text::listed(&seen.ui)
        .into_iter()
        .enumerate()
        .map(|(index, e)| PyElement {
            index,
            text: blot(&e.text),
            desc: blot(&e.content_desc),
            id: short(&e.resource_id, '/'),
            cls: short(&e.class, '.'),
            bounds: (e.bounds.left, e.bounds.top, e.bounds.right, e.bounds.bottom),
        })
        .collect();
    let screen = PyScreen {
        text: blot(&seen.screen_text()),
        app: seen.phone.package.clone(),
        activity: seen.phone.activity.clone(),
        elements: Vec::new(),
    };
    (screen, elements)
}

/// A unit variant's name as codeact's JSON writes it ("not_found", "success").
pub(crate) fn json_name(value: serde_json::Result<serde_json::Value>) -> String {
    value.ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}
