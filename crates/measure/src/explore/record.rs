//! An exploration's folder, written as it goes by the record crate's
//! [`StepRecorder`] like every mode's run: one typed `events.jsonl` where each
//! action is a step (`step_start`, its words as a `note`, its `code`, the device
//! actions it made, its output and error, `step_end`) and new screens, activities,
//! restarts, findings and tasks are events of their own (appended at once, so a
//! killed run loses at most the action in flight); the screenshots of new screens;
//! and at the end `run_end`, the summary, the graph, the findings, the tests and
//! the report (the run report page, its exploration sections first). Not how the
//! app is explored (`systematic.rs`, `llm/`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use codeact_engine::sandbox::{ActionSink, RunResult};
use codeact_record::recorder::{Followers, StepRecorder};
use codeact_record::report::{Assets, ReportError};
use codeact_record::trace::Traces;
use codeact_record::trajectory::{Event, StepOutcome, TrajectoryError};
use codeact_runtime::session::Session;

/// Why the folder or one of its files could not be written.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("cannot write {path}")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Run(#[from] TrajectoryError),
    #[error(transparent)]
    Report(#[from] ReportError),
}

/// An exploration's run folder.
pub struct RunFolder {
    dir: PathBuf,
    recorder: StepRecorder,
}

fn fail(path: &Path) -> impl FnOnce(std::io::Error) -> RecordError + '_ {
    move |source| RecordError::Write { path: path.display().to_string(), source }
}

impl RunFolder {
    /// A new folder under `out` named for the time and the app, its events
    /// followed by the report and, when given, the trace exporter.
    pub fn create(out: &Path, app: &str, traces: Option<&Traces>) -> Result<Self, RecordError> {
        let dir = codeact_record::trajectory::new_run_dir(out, &format!("explore {app}"));
        // Screenshots linked where they are: the page is rewritten at no cost.
        let followers = Followers { report: Some(Assets::Linked), traces, keep_step_files: false };
        let recorder = StepRecorder::create(&dir, followers)?;
        Ok(Self { dir, recorder })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Appends one event now, at the step in hand. A failed write is said by
    /// `finish`: exploring goes on.
    pub fn event(&self, event: &Event<'_>) {
        self.recorder.event(event);
    }

    /// The step in hand (0 before the first action).
    pub fn step(&self) -> usize {
        self.recorder.steps_taken()
    }

    /// Where the session's device actions go: under the step in hand, no captures.
    pub fn action_sink(&self) -> ActionSink {
        self.recorder.action_sink(false)
    }

    /// One action of the exploration as a step: its words, its code run in
    /// `session`, what it did.
    pub fn act(&self, session: &mut Session, code: &str, label: &str) -> RunResult {
        let started = Instant::now();
        let step = self.recorder.begin_step();
        self.recorder.event(&Event::Note { step, text: label.into() });
        self.recorder.event(&Event::Code { step, code: code.into() });
        let result = session.eval(code);
        self.recorder.ran(step, &result);
        // The record holds the result it was handed: taken back, not copied.
        match self.recorder.end_step(step, started, Duration::ZERO, Duration::ZERO, Some(result)).outcome {
            StepOutcome::Ran(result) => result,
            _ => RunResult::default(),
        }
    }

    /// Writes `finding`'s reproduction (`finding.script`, emptied when it cannot
    /// be written) and its event.
    pub fn keep_finding(&mut self, finding: &mut super::findings::Finding, app: &str, clean: bool) {
        let script = super::findings::reproduction_script(app, finding, clean);
        if let Err(e) = self.write(&finding.script, script.as_bytes()) {
            finding.script = String::new();
            tracing::warn!("{e}");
        }
        self.event(&Event::Finding {
            step: self.step(),
            kind: finding.kind.word().into(),
            title: finding.title.as_str().into(),
            script: finding.script.as_str().into(),
        });
    }

    /// Writes `name` (a path below the folder; its folders are made).
    pub fn write(&self, name: &str, bytes: &[u8]) -> Result<(), RecordError> {
        let path = self.dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(fail(parent))?;
        }
        codeact_base::files::write_replacing(&path, bytes).map_err(fail(&path))
    }

    /// Closes the folder: `run_end` and `summary.json` from `summary`, and the
    /// report page with the exploration's `sections` (HTML it escaped) before the steps.
    pub fn finish(&mut self, summary: &serde_json::Value, sections: String) -> Result<(), RecordError> {
        self.recorder.report_sections(sections);
        match self.recorder.finish(&[], summary)? {
            Some(Err(e)) => Err(e.into()),
            _ => Ok(()),
        }
    }
}
