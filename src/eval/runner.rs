//! Runs a suite: plans the instances (template × instance × repeat, then the shard),
//! spreads them over N phones (one worker thread and one session each), and for each
//! instance: reset the phone, draw the parameters, set up, check the judge scores the
//! start 0, add the faults, run the agent (the oracle's script or the LLM loop), and
//! judge the end. Not how results are summed up or printed (`results.rs`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::judge::{self, Evidence};
use super::params::{self, Rng};
use super::results::InstanceResult;
use super::task::{self, Kind, TaskSpec};
use crate::agent::{self, AgentOptions, Models, SaveMode, Strategy};
use crate::device::adb::quote as shell_quote;
use crate::persona::Persona;
use crate::script::{self, ExecOptions, Script};
use crate::session::Session;
use crate::trajectory::junit::Verdict;

/// Faults a run can add to every instance, through simctl.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fault {
    /// A blocker at the first screen change: "isn't responding", "keeps stopping",
    /// a permission request, a rate or an update popup (which one follows from the
    /// instance's seed).
    Dialog,
    /// Every screen change settles over 300 ms, in steps.
    SlowUi,
    /// 30 ms before every device command.
    Latency,
}

/// The blockers `--faults dialog` picks from.
const DIALOG_KINDS: [&str; 5] = ["anr", "crash", "permission", "rate", "update"];

impl Fault {
    /// The simctl command that injects the fault into an instance with `seed`.
    fn command(self, seed: u64) -> String {
        match self {
            Fault::Dialog => {
                format!("simctl fault dialog {}", DIALOG_KINDS[(seed % DIALOG_KINDS.len() as u64) as usize])
            }
            Fault::SlowUi => "simctl slow-ui 300".into(),
            Fault::Latency => "simctl fault latency 30".into(),
        }
    }
}

/// Who does the tasks.
pub enum Agent<'a> {
    /// Each template's reference script, run as `codeact exec` runs one.
    Oracle,
    /// The oracle, each instance's actions (with where their elements were) kept by
    /// template id, for the replay-survival measurement.
    Recorder(&'a Mutex<HashMap<String, Recorded>>),
    /// A script per template id run instead of the oracle's (a recorded run replayed
    /// in one form); a template without one is an error.
    Scripts(&'a HashMap<String, String>),
    /// The `codeact run` loop.
    Llm(LlmAgent<'a>),
}

pub struct LlmAgent<'a> {
    /// The model of each role.
    pub models: &'a Models,
    pub persona: &'a Persona,
    /// As `codeact run --strategy`.
    pub strategy: Strategy,
    /// As `codeact run --reflect-every`.
    pub reflect_every: usize,
    pub vision: bool,
    /// As `codeact run --error-threshold`.
    pub error_threshold: usize,
    /// As `codeact run --verify-completion`.
    pub verify_completion: bool,
    pub save: SaveMode,
    /// The runtime the agent's requests run on (multi-threaded).
    pub runtime: tokio::runtime::Handle,
    /// A memory database to replay from and keep runs in (`None`: the suite measures
    /// the agent alone), and steps allowed beyond each template's own budget (a
    /// replayed step counts as a step).
    pub memory: Option<(PathBuf, usize)>,
}

/// An oracle run as the recorder keeps it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub goal: String,
    pub actions: Vec<crate::sandbox::Action>,
    pub score: f64,
}

pub struct EvalOptions {
    pub seed: u64,
    pub instances: usize,
    pub repeat: usize,
    pub parallel: usize,
    /// (index, count): run only the instances whose number modulo count is index.
    pub shard: Option<(usize, usize)>,
    pub faults: Vec<Fault>,
    /// The virtual phone's layout variant (`simctl variant`; 0: the apps as written).
    pub variant: u32,
    pub out_dir: PathBuf,
    /// Export every instance's run (the oracle's script, or the agent's run) as a
    /// trace (`--otlp`).
    pub traces: Option<std::sync::Arc<crate::trace::Traces>>,
}

/// One instance to run.
#[derive(Debug, Clone, Copy)]
pub struct Job {
    pub task: usize,
    pub instance: usize,
    pub repeat: usize,
}

/// Why a suite could not run (a task's own failure is a result, not an error).
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("cannot open a phone for a worker")]
    Session(#[source] Box<dyn std::error::Error + Send + Sync>),
    #[error("cannot write {path}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Task(#[from] super::task::TaskError),
    #[error("{0} already holds an eval's runs; pick another --out or remove it")]
    OutInUse(PathBuf),
}

/// Refuses a folder that already holds an eval (its results would be mixed or lost).
pub fn check_out_dir(dir: &Path) -> Result<(), EvalError> {
    let runs_in_use = std::fs::read_dir(dir.join("runs")).is_ok_and(|mut entries| entries.next().is_some());
    if runs_in_use || dir.join("results.jsonl").exists() || dir.join("results.json").exists() {
        return Err(EvalError::OutInUse(dir.to_path_buf()));
    }
    Ok(())
}

/// Every instance of the suite in a fixed order, then this machine's shard.
pub fn plan(tasks: &[TaskSpec], options: &EvalOptions) -> Vec<Job> {
    let mut jobs = Vec::new();
    for (t, _) in tasks.iter().enumerate() {
        for instance in 0..options.instances {
            for repeat in 0..options.repeat {
                jobs.push(Job { task: t, instance, repeat });
            }
        }
    }
    match options.shard {
        Some((index, count)) if count > 1 => {
            jobs.into_iter().enumerate().filter(|(i, _)| i % count == index).map(|(_, j)| j).collect()
        }
        _ => jobs,
    }
}

/// Makes a session on a fresh virtual phone (called once per worker).
pub type SessionFactory<'a> = dyn Fn() -> Result<Session, Box<dyn std::error::Error + Send + Sync>> + Sync + 'a;

/// Runs `jobs` on `options.parallel` phones; `on_result` sees each instance as it
/// finishes (from any worker). Results come back in plan order.
pub fn run_suite(
    tasks: &[TaskSpec],
    jobs: &[Job],
    options: &EvalOptions,
    agent: &Agent,
    open_session: &SessionFactory,
    interrupt: &CancellationToken,
    on_result: &(dyn Fn(&InstanceResult) + Sync),
) -> Result<Vec<InstanceResult>, EvalError> {
    if std::fs::read_dir(options.out_dir.join("runs")).is_ok_and(|mut entries| entries.next().is_some()) {
        return Err(EvalError::OutInUse(options.out_dir.clone()));
    }
    std::fs::create_dir_all(options.out_dir.join("runs"))
        .map_err(|source| EvalError::Write { path: options.out_dir.join("runs"), source })?;
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, InstanceResult)>> = Mutex::new(Vec::new());
    let fatal: Mutex<Option<EvalError>> = Mutex::new(None);
    let workers = options.parallel.clamp(1, jobs.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let mut session = match open_session() {
                    Ok(s) => s,
                    Err(e) => {
                        lock(&fatal).get_or_insert(EvalError::Session(e));
                        return;
                    }
                };
                loop {
                    if interrupt.is_cancelled() || lock(&fatal).is_some() {
                        return;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(job) = jobs.get(i) else { return };
                    let result = run_instance(&mut session, &tasks[job.task], job, options, agent, interrupt);
                    if result.stopped_suite.is_some() {
                        interrupt.cancel();
                    }
                    on_result(&result);
                    lock(&done).push((i, result));
                }
            });
        }
    });
    if let Some(e) = lock(&fatal).take() {
        return Err(e);
    }
    let mut done = std::mem::take(&mut *lock(&done));
    done.sort_by_key(|(i, _)| *i);
    Ok(done.into_iter().map(|(_, r)| r).collect())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The phone's state as `simctl state` prints it.
fn read_state(session: &mut Session) -> Result<Value, String> {
    let out = session.device_shell("simctl state").map_err(|e| crate::error_text::full_message(&e))?;
    serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("simctl state is not JSON ({e}); is this the virtual phone?"))
}

/// Draws the instance's parameters, in declaration order.
fn draw_params(task: &TaskSpec, seed: u64, initial: &Value) -> Result<serde_json::Map<String, Value>, String> {
    let mut rng = Rng::new(seed);
    let mut params = serde_json::Map::new();
    for spec in &task.params {
        let value = match &spec.expr {
            Some(expr) => {
                judge::compute(expr, &params, initial).map_err(|e| format!("parameter {}: {e}", spec.name))?
            }
            None => params::generate(spec, &mut rng, initial, &params).map_err(|e| e.to_string())?,
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
                lines.push(format!("simctl set {key} {}", shell_quote(&value)));
            }
            if let (Some(collection), Some(record)) = (&step.add, &step.record) {
                let filled: serde_json::Map<String, Value> =
                    record.iter().map(|(k, v)| (k.clone(), task::render_value(v, params, item))).collect();
                lines.push(format!("simctl add {collection} {}", shell_quote(&Value::Object(filled).to_string())));
            }
            if let Some(collection) = &step.empty {
                lines.push(format!("simctl empty {collection}"));
            }
            if let Some(package) = &step.launch {
                lines.push(format!("simctl launch {}", shell_quote(&plain(package))));
            }
            if let Some(text) = &step.clipboard {
                lines.push(format!("simctl clipboard set {}", shell_quote(&plain(text))));
            }
            if let Some(line) = &step.shell {
                lines.push(task::render(line, params, item, shell_quote));
            }
        }
    }
    lines
}

fn run_instance(
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
        result.error = Some(why);
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
) -> Result<(), String> {
    session.reset().map_err(|e| crate::error_text::full_message(&e))?;
    session.reset_virtual_phone().map_err(|e| crate::error_text::full_message(&e))?;
    session
        .device_shell(&format!("simctl variant {}", options.variant))
        .map_err(|e| crate::error_text::full_message(&e))?;
    let first = read_state(session)?;
    let params = draw_params(task, seed, &first).inspect_err(|_| result.broken = true)?;
    result.goal = task::render(&task.goal, &params, None, |s| s.to_string());
    result.params = params.clone();
    for line in setup_lines(task, &params) {
        let out = session.device_shell(&line).map_err(|e| crate::error_text::full_message(&e))?;
        if out.code.unwrap_or(0) != 0 {
            result.broken = true;
            return Err(format!("set-up `{line}` failed: {}", out.stderr_text().trim()));
        }
    }
    let initial = read_state(session)?;
    let screen = screen_text(session);
    let start =
        Evidence { state: &initial, initial: &initial, params: &params, answer: None, done: false, screen: &screen };
    let initial_score = judge::score(&task.judge, &start).map_err(|e| {
        result.broken = true;
        format!("judge: {e}")
    })?;
    result.initial_score = initial_score;
    if initial_score != 0.0 {
        result.broken = true;
        return Err(format!("the judge scores the start {initial_score}: the task is solved before it begins"));
    }
    for fault in &options.faults {
        session.device_shell(&fault.command(result.seed)).map_err(|e| crate::error_text::full_message(&e))?;
    }
    let run_name = format!("{}-{}-r{}", task.id, result.instance, result.repeat);
    let dir = options.out_dir.join("runs").join(&run_name);
    let written = Written { dir: &dir, traces: options.traces.as_deref() };
    let mut recorded = Vec::new();
    let done = match agent {
        Agent::Oracle => run_oracle(session, task, &task.oracle, &params, &written, result, None)?,
        Agent::Recorder(_) => run_oracle(session, task, &task.oracle, &params, &written, result, Some(&mut recorded))?,
        Agent::Scripts(scripts) => {
            let code = scripts.get(&task.id).ok_or_else(|| format!("no recorded script for {}", task.id))?;
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
        format!("judge: {e}")
    })?;
    if let Agent::Recorder(kept) = agent {
        let run = Recorded { goal: result.goal.clone(), actions: recorded, score: result.score };
        lock(kept).insert(task.id.clone(), run);
    }
    Ok(())
}

/// The final screen as the model reads it (empty when it cannot be read).
fn screen_text(session: &mut Session) -> String {
    match session.observe(false) {
        Ok(obs) => crate::ui::screen_text::screen_text(
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
    traces: Option<&'a crate::trace::Traces>,
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
    keep: Option<&mut Vec<crate::sandbox::Action>>,
) -> Result<bool, String> {
    let vars: Vec<(String, rhai::Dynamic)> = params.iter().map(|(k, v)| (k.clone(), judge::to_dynamic(v))).collect();
    let script = Script { path: PathBuf::from(format!("{}.rhai", task.id)), code: code.to_string() };
    let options = ExecOptions {
        vars: &vars,
        trajectory: Some(written.dir),
        persona: None,
        fresh_world: false,
        retries: 0,
        failure_screenshots: None,
        verify_completion: false,
        traces: written.traces,
    };
    let reports = script::run_scripts(session, std::slice::from_ref(&script), &options, &mut |_| {})
        .map_err(|e| crate::error_text::full_message(&e))?;
    let report = reports.into_iter().next().ok_or("the oracle did not run")?;
    if let Some(keep) = keep {
        keep.clone_from(&report.result.actions);
        // complete() ends the script rather than acting: kept as its last action.
        if let Some(c) = &report.result.completion {
            keep.push(crate::sandbox::Action {
                tool: "complete".into(),
                args: vec![c.success.to_string(), format!("{:?}", rhai::Dynamic::from(c.reason.clone()))],
                result: "ok".into(),
                failure: None,
                started_ms: 0.0,
                duration_ms: 0.0,
                capture: crate::sandbox::Capture::default(),
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
) -> Result<bool, String> {
    let agent_options = AgentOptions {
        task: result.goal.clone(),
        max_steps: task.max_steps + llm.memory.as_ref().map_or(0, |(_, extra)| *extra),
        vision: llm.vision,
        save: llm.save,
        out_dir: options.out_dir.join("runs"),
        loop_limit: 3,
        device_spec: Some("sim".into()),
        error_threshold: llm.error_threshold,
        verify_completion: llm.verify_completion,
        strategy: llm.strategy,
        reflect_every: llm.reflect_every,
        // The suite measures the agent: a remembered run would replay instead,
        // unless replaying is what is measured.
        memory: llm.memory.as_ref().map(|(path, _)| path.clone()),
        script: None,
        embeddings: None,
        report: Default::default(),
        traces: options.traces.clone(),
    };
    let child = interrupt.child_token();
    let summary = llm
        .runtime
        .block_on(agent::run_task(session, llm.models, llm.persona, &agent_options, &child, &mut |_| {}))
        .map_err(|e| crate::error_text::full_message(&e))?;
    result.steps = summary.steps;
    result.llm_calls = summary.roles.values().map(|r| r.calls).sum();
    result.prompt_tokens = summary.tokens.prompt_tokens;
    result.completion_tokens = summary.tokens.completion_tokens;
    result.llm_ms = summary.llm_ms;
    result.run_dir = Some(summary.run_dir.clone());
    result.outcome = format!("{:?}", summary.outcome).to_lowercase();
    // Not one answer from the LLM: a wrong address, model or key, or a provider down.
    // Every other instance would end the same way, so the suite stops here.
    if summary.outcome == agent::Outcome::Error
        && summary.prompt_tokens_per_step.is_empty()
        && !interrupt.is_cancelled()
    {
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

    #[test]
    fn shards_split_the_plan_without_overlap() {
        let tasks = task::load(None).unwrap();
        let mut options = EvalOptions {
            seed: 1,
            instances: 2,
            repeat: 1,
            parallel: 1,
            shard: None,
            faults: vec![],
            variant: 0,
            out_dir: PathBuf::new(),
            traces: None,
        };
        let all = plan(&tasks, &options).len();
        options.shard = Some((0, 3));
        let a = plan(&tasks, &options).len();
        options.shard = Some((1, 3));
        let b = plan(&tasks, &options).len();
        options.shard = Some((2, 3));
        let c = plan(&tasks, &options).len();
        assert_eq!(a + b + c, all);
    }
}
