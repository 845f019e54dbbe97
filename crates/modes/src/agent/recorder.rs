//! How a run is written as it goes: the run directory's events (each step framed by
//! `step_start` … `step_end` with its timings, normal and replayed steps alike), the
//! [`StepRecord`] of the step in hand, folded from those same events as they are
//! written, the files a step keeps, the step counter the action sink files actions
//! under, and `report.html`, rewritten after each step. Not what a step decides
//! (`step.rs`, `checks.rs`) and not the file format (`trajectory/`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use codeact_base::error_text::full_message;
use codeact_engine::sandbox::{ActionSink, RunResult};
use codeact_platform::device::Observation;
use codeact_record::trajectory::{
    self, Event, SharedTrajectory, StepOutcome, StepRecord, StepTiming, Trajectory, TrajectoryError,
};
use codeact_runtime::llm::Message;

/// A run directory being written.
pub(super) struct Recorder {
    trajectory: SharedTrajectory,
    /// `report.html`, fed by the trajectory's events and rewritten after each step.
    report: codeact_record::report::SharedReport,
    /// The step the action sink files actions under (steps taken so far).
    step_now: Arc<AtomicUsize>,
    /// Whether each step keeps the screenshot and UI dump it saw.
    keep_step_files: bool,
    /// The record of the step in hand, built from its events until it ends.
    building: Mutex<Option<StepRecord>>,
}

/// A run's id in traces (`gen_ai.conversation.id`): its directory's name.
fn run_id(dir: &std::path::Path) -> String {
    dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned())
}

impl Recorder {
    /// Creates the run directory `dir` (refusing one that holds a run) and hands its
    /// events to the report and to the trace exporter, when there is one.
    pub(super) fn create(
        dir: &std::path::Path,
        assets: codeact_record::report::Assets,
        keep_step_files: bool,
        traces: Option<&codeact_record::trace::Traces>,
    ) -> Result<Self, TrajectoryError> {
        let mut written = Trajectory::create(dir)?;
        let report = Arc::new(Mutex::new(codeact_record::report::RunReport::new(dir, assets)));
        written.add_observer(Box::new(report.clone()));
        if let Some(traces) = traces {
            written.add_observer(Box::new(traces.spans_for(&run_id(dir))));
        }
        Ok(Self {
            trajectory: Arc::new(Mutex::new(written)),
            report,
            step_now: Arc::new(AtomicUsize::new(0)),
            keep_step_files,
            building: Mutex::new(None),
        })
    }

    pub(super) fn dir(&self) -> std::path::PathBuf {
        trajectory::lock(&self.trajectory).dir().to_path_buf()
    }

    /// Writes `event`, and folds it into the record of the step in hand.
    pub(super) fn event(&self, event: &Event) {
        trajectory::lock(&self.trajectory).append(event);
        if let Some(record) = trajectory::lock(&self.building).as_mut() {
            record.take(event);
        }
    }

    /// Steps begun so far (the number of the step in hand).
    pub(super) fn steps_taken(&self) -> usize {
        self.step_now.load(Ordering::SeqCst)
    }

    /// Where the session's actions go: the events of the step in hand (with their
    /// screenshot and dump when `keep_captures`).
    pub(super) fn action_sink(&self, keep_captures: bool) -> ActionSink {
        let step = self.step_now.clone();
        trajectory::action_sink(self.trajectory.clone(), Arc::new(move || step.load(Ordering::SeqCst)), keep_captures)
    }

    /// Begins the next step: its number, its `step_start`, and its record.
    pub(super) fn begin_step(&self) -> usize {
        let number = self.step_now.fetch_add(1, Ordering::SeqCst) + 1;
        *trajectory::lock(&self.building) = Some(StepRecord::new(number));
        self.event(&Event::StepStart { step: number });
        number
    }

    /// The observation's event, and its files when the run keeps them per step; the
    /// step's record notes the app and activity it saw.
    pub(super) fn keep_observation(&self, step: usize, seen: &Observation, took: Duration) {
        if let Some(record) = trajectory::lock(&self.building).as_mut() {
            record.seen = Some((seen.phone.package.clone(), seen.phone.activity.clone()));
        }
        let mut t = trajectory::lock(&self.trajectory);
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

    /// Ends step `number`, begun at `started`, with the result of its snippet when
    /// one ran (a reply with no code, or code that did not parse, is in its events
    /// already): where its time went (waiting for the model `llm`, observing
    /// `observed`, the actions' own durations) and its `step_end`. Every step ends
    /// here, asked or replayed, and hands back its record.
    pub(super) fn end_step(
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
        let device = observed + Duration::from_secs_f64(action_ms / 1000.0);
        let wall = started.elapsed();
        let timing = StepTiming {
            wall_ms: wall.as_secs_f64() * 1000.0,
            llm_ms: llm.as_secs_f64() * 1000.0,
            device_ms: device.as_secs_f64() * 1000.0,
            overhead_ms: wall.saturating_sub(llm + device).as_secs_f64() * 1000.0,
        };
        self.event(&Event::StepEnd {
            step: number,
            wall_ms: timing.wall_ms,
            llm_ms: timing.llm_ms,
            device_ms: timing.device_ms,
            overhead_ms: timing.overhead_ms,
            more_actions,
        });
        let mut record = trajectory::lock(&self.building).take().unwrap_or_else(|| StepRecord::new(number));
        if let Some(result) = ran {
            record.outcome = StepOutcome::Ran(result);
        }
        record
    }

    /// The request about to go to a model: its messages for the trace exporter
    /// and its `llm_request`, together (the exporter pairs them).
    pub(super) fn request(&self, messages: &[Message], event: &Event) {
        let mut t = trajectory::lock(&self.trajectory);
        t.prompt(messages);
        t.append(event);
    }

    /// Rewrites `report.html` with the steps so far, so a killed run still has one.
    /// A failure here does not stop the run: the last write, at the end, decides
    /// what the summary says.
    pub(super) fn update_report(&mut self) {
        let _ = trajectory::lock(&self.report).write();
    }

    /// Writes the replay scripts, `run_end` and `summary.json`, then the final
    /// report: the run directory is complete.
    pub(super) fn finish(
        &mut self,
        scripts: [(&str, String); 2],
        summary: &serde_json::Value,
    ) -> Result<Result<std::path::PathBuf, codeact_record::report::ReportError>, TrajectoryError> {
        let mut t = trajectory::lock(&self.trajectory);
        for (name, text) in &scripts {
            t.write_file(name, text.as_bytes());
        }
        t.append(&Event::RunEnd(std::borrow::Cow::Borrowed(summary)));
        t.finish(summary)?;
        drop(t);
        Ok(trajectory::lock(&self.report).write())
    }
}
