//! One instance, start to judgement: reset the phone, draw the parameters, run the
//! set-up, check that the judge scores the start 0, inject the faults, let the
//! agent (the oracle's script, a recorded script, or the LLM loop) work, and score
//! the final state. A failure to get that far is an [`InstanceError`], kept in the
//! instance's result. Not the suite around it (`runner.rs`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::agents::{Agent, LlmAgent, Recorded};
use super::job::{EvalOptions, Job};
use super::judge::{self, Evidence, JudgeError};
use super::params::{self, ParamError, Rng};
use super::results::InstanceResult;
use super::task::{self, Kind, TaskSpec};
use codeact_agent::{self as agent, AgentOptions};
use codeact_platform::device::DeviceError;
use codeact_platform::device::quote as shell_quote;
use codeact_record::trajectory::junit::Verdict;
use codeact_runtime::session::Session;
use codeact_scripts::script::{self, ExecOptions, Script};

/// Why an instance could not be judged.
#[derive(Debug, thiserror::Error)]
pub enum InstanceError {
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error(transparent)]
    Engine(#[from] codeact_engine::isolation::IsolationError),
    #[error("simctl state did not print JSON (is this the virtual phone?)")]
    StateNotJson(#[source] serde_json::Error),
    /// A parameter's expression failed.
    #[error("parameter {name}")]
    Parameter {
        name: String,
        #[source]
        source: JudgeError,
    },
    /// A parameter's generator failed (its message names the parameter).
    #[error(transparent)]
    Generator(#[from] ParamError),
    #[error("set-up `{line}` failed: {}", codeact_base::clip::clip(.stderr, 2048))]
    SetUp { line: String, stderr: String },
    #[error("judge")]
    Judge(#[source] JudgeError),
    #[error("the judge scores the start {0}: the task is solved before it begins")]
    SolvedAtStart(f64),
    #[error("no recorded script for {0}")]
    NoScript(String),
    #[error(transparent)]
    Oracle(codeact_scripts::script::ScriptError),
    #[error("the oracle did not run")]
    OracleDidNotRun,
    #[error(transparent)]
    Agent(codeact_agent::AgentError),
}

/// The phone's state as `simctl state` prints it.
fn read_state(session: &mut Session) -> Result<Value, InstanceError> {
    let out = session.device_shell("simctl state")?;
    serde_json::from_slice(&out.stdout).map_err(InstanceError::StateNotJson)
}

/// Draws the instance's parameters, in declaration order.
fn draw_params(task: &TaskSpec, seed: u64, initial: &Value) -> Result<serde_json::Map<String, Value>, InstanceError> {
    let mut rng = Rng::new(seed);
    let mut params = serde_json::Map::new();
    for spec in &task.params {
        let value = match &spec.expr {
            Some(expr) => judge::compute(expr, &params, initial)
                .map_err(|source| InstanceError::Parameter { name: spec.name.clone(), source })?,
            None => params::generate(spec, &mut rng, initial, &params)?,
        };
        params.insert(spec.name.clone(), value);
    }
    Ok(params)
}

/// The shell lines of the set-up, parameters filled in.
fn setup_lines(task: &TaskSpec, params: &serde_json::Map<String, Value>) -> Vec<String> {
    let mut lines = Vec::new();
    for step in &task.setup {
        let items: Vec<Option<&Value>> = match step.each.as_deref().and_then(|e| params.get(e)) {
            Some(Value::Array(items)) => items.iter().map(Some).collect(),
            Some(one) => vec![Some(one)],
            None => vec![None],
        };
        for item in items {
            let plain = |t: &str| task::render(t, params, item, |s| s.to_string());
            if let (Some(key), Some(to)) = (&step.set, &step.to) {
                let value = task::text_of(&task::render_value(to, params, item));
                // The key may name a parameter too (`maps.{place}_name`).
                lines.push(format!("simctl set {} {}", shell_quote(&plain(key)), shell_quote(&value)));
            }
            if let (Some(collection), Some(record)) = (&step.add, &step.record) {
                let filled: serde_json::Map<String, Value> =
                    record.iter().map(|(k, v)| (k.clone(), task::render_value(v, params, item))).collect();
                lines.push(format!(
                    "simctl add {} {}",
                    shell_quote(collection),
                    shell_quote(&Value::Object(filled).to_string())
                ));
            }
            if let Some(collection) = &step.empty {
                lines.push(format!("simctl empty {}", shell_quote(collection)));
            }
            if let Some(package) = &step.launch {
                lines.push(format!("simctl launch {}", shell_quote(&plain(package))));
            }
            if let Some(text) = &step.clipboard {
                lines.push(format!("simctl clipboard set {}", shell_quote(&plain(text))));
            }
            if let (Some(path), Some(text)) = (&step.file, &step.text) {
                lines.push(format!("simctl file {} {}", shell_quote(&plain(path)), shell_quote(&plain(text))));
            }
            if let Some(path) = &step.folder {
                lines.push(format!("simctl mkdir {}", shell_quote(&plain(path))));
            }
            if let Some(line) = &step.shell {
                lines.push(task::render(line, params, item, shell_quote));
            }
        }
    }
    lines
}

pub(super) fn run_instance(
    session: &mut Session,
    task: &TaskSpec,
    job: &Job,
    options: &EvalOptions,
    agent: &Agent,
    interrupt: &CancellationToken,
) -> InstanceResult {
    let started = Instant::now();
    let seed = params::instance_seed(options.seed, &task.id, job.instance);
    let mut result = InstanceResult::new(task, job, seed, &options.faults);
    let outcome = attempt(session, task, seed, options, agent, interrupt, &mut result);
    if let Err(why) = outcome {
        result.error = Some(codeact_base::error_text::full_message(&why));
        if result.outcome.is_empty() {
            result.outcome = "error".into();
        }
    }
    result.wall_ms = started.elapsed().as_secs_f64() * 1000.0;
    result
}

/// The body of one instance; `Err` is the reason it could not be judged.
fn attempt(
    session: &mut Session,
    task: &TaskSpec,
    seed: u64,
    options: &EvalOptions,
    agent: &Agent,
    interrupt: &CancellationToken,
    result: &mut InstanceResult,
) -> Result<(), InstanceError> {
    session.reset()?;
    session.reset_virtual_phone()?;
    session.device_shell(&format!("simctl variant {}", options.variant))?;
    let first = read_state(session)?;
    let params = draw_params(task, seed, &first).inspect_err(|_| result.broken = true)?;
    result.goal = task::render(&task.goal, &params, None, |s| s.to_string());
    result.params = params.clone();
    for line in setup_lines(task, &params) {
        let out = session.device_shell(&line)?;
        if out.code.unwrap_or(0) != 0 {
            result.broken = true;
            return Err(InstanceError::SetUp { stderr: out.stderr_text().trim().to_string(), line });
        }
    }
    let initial = read_state(session)?;
    let screen = screen_text(session);
    let start =
        Evidence { state: &initial, initial: &initial, params: &params, answer: None, done: false, screen: &screen };
    let initial_score = judge::score(&task.judge, &start).map_err(|e| {
        result.broken = true;
        InstanceError::Judge(e)
    })?;
    result.initial_score = initial_score;
    if initial_score != 0.0 {
        result.broken = true;
        return Err(InstanceError::SolvedAtStart(initial_score));
    }
    for fault in &options.faults {
        session.device_shell(&fault.command(result.seed))?;
    }
    let run_name = format!("{}-{}-r{}", task.id, result.instance, result.repeat);
    let dir = options.out_dir.join("runs").join(&run_name);
    let written = Written { dir: &dir, traces: options.traces.as_deref() };
    let mut recorded = Vec::new();
    let done = match agent {
        Agent::Oracle => run_oracle(session, task, &task.oracle, &params, &written, result, None)?,
        Agent::Recorder(_) => run_oracle(session, task, &task.oracle, &params, &written, result, Some(&mut recorded))?,
        Agent::Scripts(scripts) => {
            let code = scripts.get(&task.id).ok_or_else(|| InstanceError::NoScript(task.id.clone()))?;
            run_oracle(session, task, code, &params, &written, result, None)?
        }
        Agent::Llm(llm) => run_llm(session, task, llm, options, interrupt, result)?,
    };
    result.answer = session.answer();
    let _ = session.device_shell("simctl fault clear");
    let state = read_state(session)?;
    let screen = screen_text(session);
    let evidence = Evidence {
        state: &state,
        initial: &initial,
        params: &params,
        answer: result.answer.as_deref(),
        done,
        screen: &screen,
    };
    result.score = judge::score(&task.judge, &evidence).map_err(|e| {
        result.broken = true;
        InstanceError::Judge(e)
    })?;
    if let Agent::Recorder(kept) = agent {
        let run = Recorded { goal: result.goal.clone(), actions: recorded, score: result.score };
        kept.lock().unwrap_or_else(|e| e.into_inner()).insert(task.id.clone(), run);
    }
    Ok(())
}

/// The final screen as the model reads it (empty when it cannot be read).
fn screen_text(session: &mut Session) -> String {
    match session.observe(false) {
        Ok(obs) => codeact_platform::ui::screen_text::screen_text(
            &obs.ui,
            &obs.phone.package,
            &obs.phone.activity,
            obs.phone.keyboard_shown,
        ),
        Err(_) => String::new(),
    }
}

/// Where a script's run goes: its directory, and the trace exporter if any.
struct Written<'a> {
    dir: &'a Path,
    traces: Option<&'a codeact_record::trace::Traces>,
}

/// A script for the template (its reference script, or a recorded run), with the
/// parameters as variables; true when it called complete(true). `keep` receives
/// its actions.
fn run_oracle(
    session: &mut Session,
    task: &TaskSpec,
    code: &str,
    params: &serde_json::Map<String, Value>,
    written: &Written,
    result: &mut InstanceResult,
    keep: Option<&mut Vec<codeact_engine::sandbox::Action>>,
) -> Result<bool, InstanceError> {
    let vars: Vec<(String, rhai::Dynamic)> = params.iter().map(|(k, v)| (k.clone(), judge::to_dynamic(v))).collect();
    let script = Script {
        path: PathBuf::from(format!("{}.rhai", task.id)),
        code: code.to_string(),
        tags: Vec::new(),
        folder: None,
        root: None,
        screenshot_files: Vec::new(),
    };
    let options = ExecOptions {
        vars: &vars,
        trajectory: Some(written.dir),
        persona: None,
        fresh_world: false,
        retries: 0,
        failure_screenshots: None,
        verify_completion: false,
        traces: written.traces,
        record_screen: false,
    };
    let reports = script::run_scripts(session, std::slice::from_ref(&script), &options, &mut |_| {})
        .map_err(InstanceError::Oracle)?;
    let report = reports.into_iter().next().ok_or(InstanceError::OracleDidNotRun)?;
    if let Some(keep) = keep {
        keep.clone_from(&report.result.actions);
        // complete() ends the script rather than acting: kept as its last action.
        if let Some(c) = &report.result.completion {
            keep.push(codeact_engine::sandbox::Action {
                tool: "complete".into(),
                args: vec![c.success.to_string(), codeact_engine::emit::rhai::string(&c.reason)],
                result: "ok".into(),
                failure: None,
                started_ms: 0.0,
                duration_ms: 0.0,
                capture: codeact_engine::sandbox::Capture::default(),
            });
        }
    }
    result.steps = 1;
    result.actions = report.result.actions.len() + report.result.more_actions;
    result.run_dir = report.trajectory.clone();
    result.outcome = report.verdict.word().to_lowercase();
    if let Verdict::Failed { message, .. } | Verdict::Error { message, .. } = &report.verdict {
        result.error = Some(format!("the oracle: {message}"));
    }
    Ok(report.result.completion.is_some_and(|c| c.success))
}

/// The agent loop on the goal; true when the model called complete(true).
fn run_llm(
    session: &mut Session,
    task: &TaskSpec,
    llm: &LlmAgent,
    options: &EvalOptions,
    interrupt: &CancellationToken,
    result: &mut InstanceResult,
) -> Result<bool, InstanceError> {
    let agent_options = AgentOptions {
        max_steps: llm.max_steps.map_or(task.max_steps, |cap| task.max_steps.min(cap))
            + llm.memory.as_ref().map_or(0, |(_, extra)| *extra),
        vision: llm.vision,
        save: llm.save,
        out_dir: options.out_dir.join("runs"),
        device_spec: Some("sim".into()),
        error_threshold: llm.error_threshold,
        verify_completion: llm.verify_completion,
        strategy: llm.strategy,
        reflect_every: llm.reflect_every,
        tree_depth: llm.tree_depth,
        actions: llm.actions,
        // The suite measures the agent: a remembered run would replay instead,
        // unless replaying is what is measured.
        memory: llm.memory.as_ref().map(|(path, _)| path.clone()),
        traces: options.traces.clone(),
        ..AgentOptions::new(result.goal.clone())
    };
    let child = interrupt.child_token();
    let summary = llm
        .runtime
        .block_on(agent::run_task(
            agent::AgentRequest { session, models: llm.models, persona: llm.persona, options: &agent_options },
            &child,
            &mut |_| {},
        ))
        .map_err(InstanceError::Agent)?;
    result.steps = summary.steps;
    result.actions = summary.actions;
    result.llm_calls = summary.llm_calls();
    result.prompt_tokens = summary.tokens.prompt_tokens;
    result.completion_tokens = summary.tokens.completion_tokens;
    result.roles.clone_from(&summary.roles);
    result.llm_ms = summary.llm_ms;
    result.run_dir = Some(summary.run_dir.clone());
    result.outcome = format!("{:?}", summary.outcome).to_lowercase();
    // Not one answer from the LLM: a wrong address, model or key, or a provider down.
    // Every other instance would end the same way, so the suite stops here.
    if matches!(summary.ending, agent::Ending::LlmFailed { never_answered: true, .. }) && !interrupt.is_cancelled() {
        result.stopped_suite = Some(summary.reason.clone());
        result.error = Some(summary.reason.clone());
    }
    if task.kind == Kind::Question && session.answer().is_none() {
        result.note = Some("no answer() was given".into());
    }
    Ok(summary.outcome == agent::Outcome::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_up_lines_quote_what_the_parameters_hold() {
        let tasks = task::load(None).unwrap();
        let task = tasks.iter().find(|t| !t.setup.is_empty()).unwrap();
        let params = draw_params(task, 1, &serde_json::json!({"contacts": [{"name": "Bob Smith", "phone": "1"}]}));
        assert!(params.is_ok(), "{params:?}");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }
}
