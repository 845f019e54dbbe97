//! `codeact.run_task`: codeact's agent on a goal, as `codeact run` runs it, and the
//! TaskResult it returns. Not the session a person drives (session.rs).

use std::path::PathBuf;

use codeact::agent::{ActionFormat, AgentOptions, Models, Outcome};
use codeact::config::Flags;
use codeact::llm::{LlmClient, LlmConfig, LlmError, LlmFlags};
use codeact::tools::{Recording, SensitivePolicy};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use tokio_util::sync::CancellationToken;

use crate::errors::{CodeactError, codeact_error};
use crate::results::json_name;
use crate::session::{open_session, settings, worker_program};
use crate::waiting::blocking;

/// How an agent's run ended.
#[pyclass(module = "codeact", name = "TaskResult", frozen, get_all)]
pub(crate) struct PyTaskResult {
    /// outcome == "success".
    success: bool,
    /// success, failure, interrupted or error.
    outcome: String,
    steps: usize,
    reason: String,
    /// The run's folder (absolute): events, screenshots, report.html, script.rhai.
    run_dir: PathBuf,
    /// The command that replays the run without the model.
    replay: String,
}

#[pymethods]
impl PyTaskResult {
    fn __repr__(&self) -> String {
        format!(
            "<TaskResult {} after {} steps: {:?} ({})>",
            self.outcome,
            self.steps,
            self.reason,
            self.run_dir.display()
        )
    }
}

const NO_MODEL: &str = "no model: pass model=NAME with an API key in $OPENAI_API_KEY (or api_key_env=\"VAR\"), \
    or base_url=URL for a local server, e.g. codeact.run_task(goal, base_url=\"http://localhost:11434/v1\", \
    model=\"qwen2.5:7b\", vision=False); or set [llm] in codeact.toml. Without a model, codeact.Session runs \
    Rhai scripts.";

/// codeact's agent works on `goal` on `device` until the model calls complete() or
/// `max_steps` run out, as `codeact run` does; the run's folder is made under `out`.
#[pyfunction]
#[pyo3(
    signature = (
        goal,
        device = "sim",
        model = None,
        base_url = None,
        api_key_env = None,
        max_steps = 15,
        out = PathBuf::from("runs"),
        persona = None,
        config = None,
        vision = None,
        actions = "code",
    ),
    text_signature = "(goal, device='sim', model=None, base_url=None, api_key_env=None, max_steps=15, \
                      out='runs', persona=None, config=None, vision=None, actions='code')"
)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_task(
    py: Python<'_>,
    goal: &str,
    device: &str,
    model: Option<String>,
    base_url: Option<String>,
    api_key_env: Option<String>,
    max_steps: usize,
    out: PathBuf,
    persona: Option<String>,
    config: Option<PathBuf>,
    vision: Option<bool>,
    actions: &str,
) -> PyResult<PyTaskResult> {
    if !(1..=500).contains(&max_steps) {
        return Err(PyValueError::new_err("max_steps must be between 1 and 500"));
    }
    // As `codeact run --actions`: a Rhai snippet per step, or function calls.
    let actions = match actions {
        "code" => ActionFormat::Code,
        "json" => ActionFormat::Json,
        other => {
            let other = codeact::terminal::one_line(other);
            return Err(PyValueError::new_err(format!("actions must be \"code\" or \"json\", not {other:?}")));
        }
    };
    let flags = Flags {
        device: Some(device.to_string()),
        persona,
        // As `codeact run` with a step's files kept: the default persona, no
        // per-action captures, sensitive actions asked about (nobody answers here:
        // they are refused).
        default_persona: true,
        default_record: Some(Recording::None),
        default_sensitive: Some(SensitivePolicy::Ask),
        ..Flags::default()
    };
    let mut settings = settings(config, &flags)?;
    let llm = LlmFlags { base_url, model, api_key_env, ..LlmFlags::default() };
    let client = match LlmConfig::resolve(&settings.llm, &llm).and_then(LlmClient::new) {
        Ok(client) => client,
        Err(LlmError::NotConfigured { .. }) => return Err(CodeactError::new_err(NO_MODEL)),
        Err(e) => return Err(codeact_error(&e)),
    };
    settings.worker = worker_program(py)?;
    let models = Models::single(client);
    let persona = settings.agent_persona().map_err(|e| codeact_error(&e))?;
    let vision = vision.unwrap_or_else(|| persona.wants("screenshot"));
    let goal = goal.to_string();
    let stop = CancellationToken::new();
    let interrupt = stop.clone();
    blocking(
        py,
        || stop.cancel(),
        move || -> PyResult<PyTaskResult> {
            let options = AgentOptions {
                max_steps,
                vision,
                out_dir: out,
                device_spec: settings.device.clone(),
                actions,
                ..AgentOptions::new(goal)
            };
            let mut session = open_session(&settings)?;
            // The agent needs a multi-threaded runtime (it blocks in place).
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .map_err(|e| CodeactError::new_err(format!("cannot start the async runtime: {e}")))?;
            let summary = runtime
                .block_on(codeact::agent::run_task(
                    codeact::agent::AgentRequest {
                        session: &mut session,
                        models: &models,
                        persona: &persona,
                        options: &options,
                    },
                    &interrupt,
                    &mut |_| {},
                ))
                .map_err(|e| codeact_error(&e))?;
            Ok(PyTaskResult {
                success: summary.outcome == Outcome::Success,
                outcome: json_name(serde_json::to_value(summary.outcome)),
                steps: summary.steps,
                reason: summary.reason,
                // Absolute: the caller may change directory before reading it.
                run_dir: std::path::absolute(&summary.run_dir).unwrap_or(summary.run_dir),
                replay: summary.replay,
            })
        },
    )?
}
