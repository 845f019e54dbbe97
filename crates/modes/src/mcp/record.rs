//! How one MCP client's calls are written as they come: a run directory whose
//! `events.jsonl` has an `mcp_call` event per call, and the code-running calls
//! (`run_script`, a gesture tool) framed as steps like an agent's (`step_start`,
//! `code`, each action with its captures, the output, the error, `step_end`), so the
//! run reads back, reports and exports like any other; and `session.rhai`, the
//! replayable script of the session so far, rewritten after each step. Not what a
//! call does (`client.rs`).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use codeact_engine::sandbox::{ActionSink, RunResult};
use codeact_record::trajectory::{
    self, Event, SharedTrajectory, StepOutcome, StepRecord, StepTiming, Trajectory, TrajectoryError, export,
};

/// The session's replayable script in the run directory.
pub const SESSION_SCRIPT: &str = "session.rhai";

/// A client's run directory being written.
pub(super) struct Record {
    trajectory: SharedTrajectory,
    /// The step the action sink files actions under.
    step_now: Arc<AtomicUsize>,
    steps: Vec<StepRecord>,
    header: String,
}

impl Record {
    /// Creates `dir` (refusing one that holds a run).
    pub(super) fn create(dir: &Path, client: &str, device: &str) -> Result<Self, TrajectoryError> {
        let mut t = Trajectory::create(dir)?;
        t.append(&Event::Start { script: format!("codeact mcp: {client}").into(), device: device.into() });
        let header = format!(
            "codeact mcp session of {client}, {}.\nReplay it: codeact exec {SESSION_SCRIPT} --device DEVICE",
            jiff::Timestamp::now().strftime("%Y-%m-%d %H:%M:%S UTC")
        );
        Ok(Self {
            trajectory: Arc::new(Mutex::new(t)),
            step_now: Arc::new(AtomicUsize::new(0)),
            steps: Vec::new(),
            header,
        })
    }

    pub(super) fn dir(&self) -> PathBuf {
        trajectory::lock(&self.trajectory).dir().to_path_buf()
    }

    /// Files each action a session reports under the step in hand.
    pub(super) fn action_sink(&self) -> ActionSink {
        let now = self.step_now.clone();
        trajectory::action_sink(self.trajectory.clone(), Arc::new(move || now.load(Ordering::Relaxed)), true)
    }

    /// A step begins: `code` is about to run.
    pub(super) fn begin_step(&mut self, code: &str) -> usize {
        let step = self.steps.len() + 1;
        self.step_now.store(step, Ordering::Relaxed);
        let mut t = trajectory::lock(&self.trajectory);
        t.append(&Event::StepStart { step });
        t.append(&Event::Code { step, code: code.into() });
        let mut record = StepRecord::new(step);
        record.code = Some(code.to_string());
        self.steps.push(record);
        step
    }

    /// The step ended with `result`: its events, and the session's script again.
    pub(super) fn end_step(&mut self, step: usize, result: &RunResult, wall_ms: f64) {
        {
            let mut t = trajectory::lock(&self.trajectory);
            t.append(&Event::Output {
                step,
                output: result.output.as_str().into(),
                value: result.value.as_deref().map(Into::into),
            });
            if let Some(error) = &result.error {
                t.append(&Event::Error { step, error: std::borrow::Cow::Borrowed(error) });
            }
            if let Some(c) = &result.completion {
                t.append(&Event::Completion { step, success: c.success, reason: c.reason.as_str().into() });
            }
            t.append(&Event::StepEnd {
                step,
                wall_ms,
                llm_ms: 0.0,
                device_ms: 0.0,
                overhead_ms: 0.0,
                more_actions: result.more_actions,
            });
        }
        if let Some(record) = self.steps.iter_mut().find(|s| s.number == step) {
            record.outcome = StepOutcome::Ran(result.clone());
            record.timing = StepTiming { wall_ms, ..StepTiming::default() };
        }
        let script = self.script();
        trajectory::lock(&self.trajectory).write_file(SESSION_SCRIPT, script.as_bytes());
    }

    /// One call answered.
    pub(super) fn call(&self, tool: &str, step: Option<usize>, ms: f64, error: Option<&str>) {
        let ms = (ms * 100.0).round() / 100.0;
        let event = Event::McpCall { tool: tool.into(), step, ms, error: error.map(Into::into) };
        trajectory::lock(&self.trajectory).append(&event);
    }

    /// A file of the run (a screenshot a call returned).
    pub(super) fn keep_file(&self, name: &str, bytes: &[u8]) {
        trajectory::lock(&self.trajectory).write_file(name, bytes);
    }

    /// The session as a script that replays it: the snippets that ran, in order
    /// (index taps as the selectors of what they hit); one that failed ends it,
    /// commented out.
    pub(super) fn script(&self) -> String {
        // Only steps that ran to the end without an error replay; a failed one is
        // kept as a comment, so the replay does what the session did.
        let (done, failed): (Vec<&StepRecord>, Vec<&StepRecord>) =
            self.steps.iter().partition(|s| s.ran().is_some_and(|r| r.error.is_none()));
        let done: Vec<StepRecord> = done.into_iter().cloned().collect();
        let mut script = export::selector_script(&self.header, &done, None);
        for step in failed {
            let why = step.ran().and_then(|r| r.error.as_ref()).map(|e| e.to_string()).unwrap_or_default();
            let said = format!("Call {} failed and is left out: {}", step.number, one_line(&why));
            script.push_str(&format!("\n{}\n", codeact_engine::emit::rhai::comment(&said)));
            script.push_str(&codeact_engine::emit::rhai::commented_out(step.code.as_deref().unwrap_or(""), ""));
        }
        script
    }
}

fn one_line(text: &str) -> String {
    text.split(['\n', '\r']).map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}
