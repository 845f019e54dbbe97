//! The one way a mode writes its run as it goes: [`StepRecorder`]. Agent steps,
//! MCP calls, `exec` scripts and exploration actions alike are steps framed by
//! `step_start` … `step_end` (with their timings) in one typed `events.jsonl`;
//! the [`StepRecord`] of the step in hand is folded from those same events as they
//! are written; the action sink files a session's actions under the step in hand;
//! the report (`report.html`) and the trace exporter follow the events as
//! observers; `run_end` and `summary.json` close the folder. Not what a step
//! decides (the modes) and not the file format (`trajectory/`): this sits above
//! the trajectory, the report and the traces it joins.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use codeact_base::error_text::full_message;
use codeact_engine::sandbox::{ActionSink, RunResult};
use codeact_platform::device::Observation;
use codeact_runtime::llm::Message;

use crate::report::{Assets, ReportError, RunReport, SharedReport};
use crate::trace::Traces;
use crate::trajectory::{
    Event, SharedTrajectory, StepOutcome, StepRecord, StepTiming, Trajectory, TrajectoryError, action_sink, lock,
    round_ms,
};

/// How a run folder is followed besides `events.jsonl`.
#[derive(Clone, Copy, Default)]
pub struct Followers<'a> {
    /// `report.html`, rewritten after each step, with its screenshots kept this way
    /// (`None`: no report).
    pub report: Option<Assets>,
    /// Spans to this exporter, the run's id (`gen_ai.conversation.id`) its folder's name.
    pub traces: Option<&'a Traces>,
    /// Whether each step keeps the screenshot and UI dump it observed.
    pub keep_step_files: bool,
}

/// A run directory being written, step by step.
pub struct StepRecorder {
    trajectory: SharedTrajectory,
    report: Option<SharedReport>,
    /// The step the action sink files actions under (steps begun so far).
    step_now: Arc<AtomicUsize>,
    keep_step_files: bool,
    /// The record of the step in hand, built from its events until it ends.
    building: Mutex<Option<StepRecord>>,
    /// Set once `run_end` and `summary.json` are written.
    finished: bool,
}

/// A run's id in traces: its directory's name.
fn run_id(dir: &Path) -> String {
    dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned())
}

impl StepRecorder {
    /// Creates the run directory `dir` (refusing one that holds a run) and hands
    /// its events to the report and the trace exporter `followers` name.
    pub fn create(dir: &Path, followers: Followers<'_>) -> Result<Self, TrajectoryError> {
        let mut written = Trajectory::create(dir)?;
        let report = followers.report.map(|assets| Arc::new(Mutex::new(RunReport::new(dir, assets))));
        if let Some(report) = &report {
            written.add_observer(Box::new(report.clone()));
        }
        if let Some(traces) = followers.traces {
            written.add_observer(Box::new(traces.spans_for(&run_id(dir))));
        }
        Ok(Self {
            trajectory: Arc::new(Mutex::new(written)),
            report,
            step_now: Arc::new(AtomicUsize::new(0)),
            keep_step_files: followers.keep_step_files,
            building: Mutex::new(None),
            finished: false,
        })
    }

    pub fn dir(&self) -> PathBuf {
        lock(&self.trajectory).dir().to_path_buf()
    }

    /// Writes `event`, and folds it into the record of the step in hand.
    pub fn event(&self, event: &Event) {
        lock(&self.trajectory).append(event);
        if let Some(record) = lock(&self.building).as_mut() {
            record.take(event);
        }
    }

    /// Steps begun so far (the number of the step in hand).
    pub fn steps_taken(&self) -> usize {
        self.step_now.load(Ordering::SeqCst)
    }

    /// Where a session's actions go: the events of the step in hand (with their
    /// screenshot and dump when `keep_captures`).
    pub fn action_sink(&self, keep_captures: bool) -> ActionSink {
        let step = self.step_now.clone();
        action_sink(self.trajectory.clone(), Arc::new(move || step.load(Ordering::SeqCst)), keep_captures)
    }

    /// Files the actions from now on under step 1 without framing a step: a
    /// script's run (`codeact exec`) is one step, framed by its `start` and `end`.
    pub fn whole_run_is_one_step(&self) {
        self.step_now.store(1, Ordering::SeqCst);
    }

    /// Begins the next step: its number, its `step_start`, and its record.
    pub fn begin_step(&self) -> usize {
        let number = self.step_now.fetch_add(1, Ordering::SeqCst) + 1;
        *lock(&self.building) = Some(StepRecord::new(number));
        self.event(&Event::StepStart { step: number });
        number
    }

    /// The observation's event, and its files when the run keeps them per step; the
    /// step's record notes the app and activity it saw.
    pub fn keep_observation(&self, step: usize, seen: &Observation, took: Duration) {
        if let Some(record) = lock(&self.building).as_mut() {
            record.seen = Some((seen.phone.package.clone(), seen.phone.activity.clone()));
        }
        let mut t = lock(&self.trajectory);
        let (mut ui, mut screenshot) = (None, None);
        if self.keep_step_files {
            let name = format!("ui/{step:04}.xml");
            t.write_file(&name, seen.dump.as_bytes());
            ui = Some(name);
            if let Some(png) = &seen.screenshot {
                let name = format!("screenshots/{step:04}.png");
                t.write_file(&name, png);
                screenshot = Some(name);
            }
        }
        t.append(&Event::Observation {
            step,
            ms: took.as_secs_f64() * 1000.0,
            via: Some(seen.via),
            fallback: seen.fallback.as_deref().map(Into::into),
            ui,
            screenshot,
            screenshot_error: seen.screenshot_error.as_deref().map(|e| full_message(e)),
        });
    }

    /// What a snippet of step `step` left: its output, its error, its completion
    /// (for modes whose code is not written by a model: MCP calls, exploration).
    pub fn ran(&self, step: usize, result: &RunResult) {
        self.event(&Event::Output {
            step,
            output: result.output.as_str().into(),
            value: result.value.as_deref().map(Into::into),
        });
        if let Some(error) = &result.error {
            self.event(&Event::Error { step, error: std::borrow::Cow::Borrowed(error) });
        }
        if let Some(c) = &result.completion {
            self.event(&Event::Completion { step, success: c.success, reason: c.reason.as_str().into() });
        }
    }

    /// Ends step `number`, begun at `started`, with the result of its snippet when
    /// one ran (a reply with no code, or code that did not parse, is in its events
    /// already): where its time went (waiting for a model `llm`, observing
    /// `observed`, the actions' own durations) and its `step_end`. Every step of
    /// every mode ends here, and hands back its record.
    pub fn end_step(
        &self,
        number: usize,
        started: Instant,
        llm: Duration,
        observed: Duration,
        ran: Option<RunResult>,
    ) -> StepRecord {
        let (action_ms, more_actions): (f64, usize) = match &ran {
            Some(r) => (r.actions.iter().map(|a| a.duration_ms).sum(), r.more_actions),
            None => (0.0, 0),
        };
        let device = observed + Duration::from_secs_f64(action_ms.max(0.0) / 1000.0);
        let wall = started.elapsed();
        let ms = |d: Duration| round_ms(d.as_secs_f64() * 1000.0);
        let timing = StepTiming {
            wall_ms: ms(wall),
            llm_ms: ms(llm),
            device_ms: ms(device),
            overhead_ms: ms(wall.saturating_sub(llm + device)),
        };
        self.event(&Event::StepEnd {
            step: number,
            wall_ms: timing.wall_ms,
            llm_ms: timing.llm_ms,
            device_ms: timing.device_ms,
            overhead_ms: timing.overhead_ms,
            more_actions,
        });
        let mut record = lock(&self.building).take().unwrap_or_else(|| StepRecord::new(number));
        if let Some(result) = ran {
            record.outcome = StepOutcome::Ran(result);
        }
        record
    }

    /// The request about to go to a model: its messages for the trace exporter
    /// and its `llm_request`, together (the exporter pairs them).
    pub fn request(&self, messages: &[Message], event: &Event) {
        let mut t = lock(&self.trajectory);
        t.prompt(messages);
        t.append(event);
    }

    /// A file of the run, written whole (a script so far, a picture a call returned).
    pub fn write_file(&self, name: &str, bytes: &[u8]) {
        lock(&self.trajectory).write_file(name, bytes);
    }

    /// Sections a mode adds to its report page between the header and the steps
    /// (HTML it escaped itself: an exploration's findings and coverage).
    pub fn report_sections(&self, html: String) {
        if let Some(report) = &self.report {
            lock(report).set_sections(html);
        }
    }

    /// Rewrites `report.html` with the steps so far, so a killed run still has one.
    /// A failure here does not stop the run: the last write, at the end, decides
    /// what the summary says.
    pub fn update_report(&self) {
        if let Some(report) = &self.report {
            let _ = lock(report).write();
        }
    }

    /// Writes `files` (replay scripts), `run_end` and `summary.json`, then the
    /// final report: the run directory is complete. The report's own result is
    /// inside (`None`: the run keeps none).
    pub fn finish(
        &mut self,
        files: &[(&str, String)],
        summary: &serde_json::Value,
    ) -> Result<Option<Result<PathBuf, ReportError>>, TrajectoryError> {
        self.finished = true;
        let mut t = lock(&self.trajectory);
        for (name, text) in files {
            t.write_file(name, text.as_bytes());
        }
        t.append(&Event::RunEnd(std::borrow::Cow::Borrowed(summary)));
        t.finish(summary)?;
        drop(t);
        Ok(self.report.as_ref().map(|report| lock(report).write()))
    }

    /// Whether `finish` was called.
    pub fn is_finished(&self) -> bool {
        self.finished
    }
}
