//! How a served session's calls are written as they come — an MCP client's
//! (`codeact mcp`), a WebDriver session's (`codeact serve --webdriver`) or the
//! studio's acts (`codeact studio`) — by the
//! record crate's [`StepRecorder`] like every mode's run: a run directory opened
//! by a `session_start` event, a call event per call (`mcp_call`,
//! `webdriver_call`, `studio_act`), the calls that run code as steps (`step_start`, `code`, each
//! action with its captures, the output, the error, `step_end`), the report
//! rewritten after each step, and `run_end` with `summary.json` when the client
//! goes; and `session.rhai`, the replayable script of the session so far,
//! rewritten after each step. Not what a call does (each server's own files).

use std::path::{Path, PathBuf};
use std::time::Instant;

use codeact_engine::sandbox::{ActionSink, RunResult};
use codeact_record::recorder::{Followers, StepRecorder};
use codeact_record::report::Assets;
use codeact_record::trace::Traces;
use codeact_record::trajectory::{Event, StepRecord, TrajectoryError, export};

/// The most bytes of a call's name and error in the record.
const MOST_CALL_NAME: usize = 300;
const MOST_CALL_ERROR: usize = 4096;

/// The session's replayable script in the run directory.
pub const SESSION_SCRIPT: &str = "session.rhai";

/// Which server a session came through: it names the run and its calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    Mcp,
    Webdriver,
    Studio,
}

impl Door {
    /// The mode `summary.json` names, and the command that serves it.
    fn mode(self) -> (&'static str, &'static str) {
        match self {
            Door::Mcp => ("mcp", "codeact mcp"),
            Door::Webdriver => ("webdriver", "codeact serve --webdriver"),
            Door::Studio => ("studio", "codeact studio"),
        }
    }
}

/// A client's run directory being written.
pub struct Record {
    door: Door,
    recorder: StepRecorder,
    /// The steps so far (the session's script is made from them).
    steps: Vec<StepRecord>,
    header: String,
    client: String,
    device: String,
    started: Instant,
    calls: usize,
    failed_calls: usize,
}

impl Record {
    /// Creates `dir` (refusing one that holds a run).
    pub fn create(
        door: Door,
        dir: &Path,
        client: &str,
        device: &str,
        traces: Option<&Traces>,
    ) -> Result<Self, TrajectoryError> {
        // The run folder's own screenshots, linked: a long session's report is
        // rewritten after each call at no cost.
        let followers = Followers { report: Some(Assets::Linked), traces, keep_step_files: false };
        let recorder = StepRecorder::create(dir, followers)?;
        let door_name = (door != Door::Mcp).then(|| door.mode().0.into());
        recorder.event(&Event::SessionStart { client: client.into(), device: device.into(), door: door_name });
        let header = format!(
            "{} session of {client}, {}.\nReplay it: codeact exec {SESSION_SCRIPT} --device DEVICE",
            door.mode().1,
            jiff::Timestamp::now().strftime("%Y-%m-%d %H:%M:%S UTC")
        );
        Ok(Self {
            door,
            recorder,
            steps: Vec::new(),
            header,
            client: client.to_string(),
            device: device.to_string(),
            started: Instant::now(),
            calls: 0,
            failed_calls: 0,
        })
    }

    pub fn dir(&self) -> PathBuf {
        self.recorder.dir()
    }

    /// Files each action a session reports under the step in hand.
    pub fn action_sink(&self) -> ActionSink {
        self.recorder.action_sink(true)
    }

    /// A step begins: `code` is about to run.
    pub fn begin_step(&mut self, code: &str) -> (usize, Instant) {
        let step = self.recorder.begin_step();
        self.recorder.event(&Event::Code { step, code: code.into() });
        (step, Instant::now())
    }

    /// The step ended with `result`: its events, the report, and the session's
    /// script again.
    pub fn end_step(&mut self, (step, started): (usize, Instant), result: &RunResult) {
        self.recorder.ran(step, result);
        let record =
            self.recorder.end_step(step, started, Default::default(), Default::default(), Some(result.clone()));
        self.steps.push(record);
        self.recorder.update_report();
        let script = self.script();
        self.recorder.write_file(SESSION_SCRIPT, script.as_bytes());
    }

    /// One call answered.
    pub fn call(&mut self, tool: &str, step: Option<usize>, ms: f64, error: Option<&str>) {
        let ms = (ms * 100.0).round() / 100.0;
        self.calls += 1;
        self.failed_calls += usize::from(error.is_some());
        // A call's name and error may quote a client's words: each kept clipped.
        let tool = codeact_base::clip::clip(tool, MOST_CALL_NAME);
        let error = error.map(|e| codeact_base::clip::clip(e, MOST_CALL_ERROR));
        self.recorder.event(&match self.door {
            Door::Mcp => Event::McpCall { tool, step, ms, error },
            Door::Webdriver => Event::WebdriverCall { command: tool, step, ms, error },
            Door::Studio => Event::StudioAct { act: tool, step, ms, error },
        });
    }

    /// A file of the run (a screenshot a call returned).
    pub fn keep_file(&self, name: &str, bytes: &[u8]) {
        self.recorder.write_file(name, bytes);
    }

    /// The session as a script that replays it: the snippets that ran, in order
    /// (index taps as the selectors of what they hit); one that failed ends it,
    /// commented out.
    pub fn script(&self) -> String {
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

/// The client went (it closed, or the server evicted it): `run_end`, the summary
/// and the final report close its run directory.
impl Drop for Record {
    fn drop(&mut self) {
        if self.recorder.is_finished() {
            return;
        }
        let summary = serde_json::json!({
            "mode": self.door.mode().0,
            "client": self.client,
            "device": self.device,
            "outcome": "ended",
            "reason": format!("{} calls, {} answered with an error", self.calls, self.failed_calls),
            "steps": self.steps.len(),
            "duration_ms": self.started.elapsed().as_secs_f64() * 1000.0,
            "replay": format!("codeact exec {SESSION_SCRIPT} --device DEVICE"),
        });
        if let Err(e) = self.recorder.finish(&[], &summary) {
            tracing::warn!("{}", codeact_base::error_text::full_message(&e));
        }
    }
}

fn one_line(text: &str) -> String {
    text.split(['\n', '\r']).map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}
