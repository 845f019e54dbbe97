//! The words a suite's run is said in: a script, how one attempt at it went (its
//! report, and as a JUnit case), what the scripts run with, what a running suite
//! tells its listener, and the run as the workers see it. Only these shapes; who
//! runs what is `workers.rs`, one attempt `attempt.rs`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use codeact_engine::sandbox::RunResult;
use codeact_record::trajectory::junit::{Case, Verdict};
use rhai::Dynamic;
use tokio_util::sync::CancellationToken;

/// A script to run: where it came from and its code.
#[derive(Debug, Clone)]
pub struct Script {
    pub path: PathBuf,
    pub code: String,
    /// What its header comment tags it with (`// tags: smoke, settings`), lower-cased.
    pub tags: Vec<String>,
    /// Its trajectory folder's name when its stem is not enough (two scripts of a
    /// suite named alike).
    pub folder: Option<String>,
    /// The folder its imports may reach (`import "../lib/x"`): the suite's; `None`
    /// is the script's own folder.
    pub root: Option<PathBuf>,
    /// A flow's `takeScreenshot` files: the `screenshot` call's name, and the file
    /// (below the working folder) the picture is written to, as Maestro writes it.
    pub screenshot_files: Vec<(String, String)>,
}

impl Script {
    /// The file's stem: the test's name, and its trajectory folder with several scripts.
    pub fn name(&self) -> String {
        self.path.file_stem().map_or_else(|| "script".to_string(), |s| s.to_string_lossy().into_owned())
    }

    /// The name as a folder or file name of its own (`...rhai` has the stem `..`,
    /// which must never become a path).
    pub fn folder_name(&self) -> String {
        match &self.folder {
            Some(folder) => folder.clone(),
            None => codeact_base::files::safe_component(&self.name(), "script"),
        }
    }
}

/// How one script went.
#[derive(Debug, Clone)]
pub struct Report {
    pub script: Script,
    pub result: RunResult,
    pub verdict: Verdict,
    /// Where its trajectory was written.
    pub trajectory: Option<PathBuf>,
    /// Which attempt this was (1 unless `--retries` ran it again).
    pub attempt: usize,
    /// The screen it failed on, saved.
    pub failure_screenshot: Option<PathBuf>,
    /// The device's log up to the failure (Android's logcat), saved.
    pub device_log: Option<PathBuf>,
    /// The screen recording of the attempt that did not pass (a real Android phone).
    pub recording: Option<PathBuf>,
}

impl Report {
    /// A script an interrupt stopped before it ran a line: an error of kind
    /// `cancelled`, so JUnit and the summary say "interrupted".
    pub fn not_started(script: Script, why: &str) -> Self {
        let error = codeact_engine::sandbox::RunError::plain(why, codeact_engine::sandbox::ErrorKind::Cancelled);
        let result = RunResult { error: Some(error), ..RunResult::default() };
        Report {
            verdict: Verdict::of(&result),
            script,
            result,
            trajectory: None,
            attempt: 1,
            failure_screenshot: None,
            device_log: None,
            recording: None,
        }
    }

    /// The report as a JUnit test case: what it printed, then its action log.
    pub fn junit_case(&self) -> Case {
        let mut log = self.result.output.clone();
        let (listed, more) = self.result.listed_actions(codeact_engine::sandbox::LISTED_ACTIONS);
        for a in listed {
            log.push_str(&format!("{:.1} ms {}\n", a.duration_ms, a.summary_before(self.result.error.as_ref())));
        }
        if let Some(more) = more {
            log.push_str(&format!("{more}\n"));
        }
        let mut properties = vec![("attempts".to_string(), self.attempt.to_string())];
        // The page with every action and screenshot, when the run was recorded.
        if let Some(page) = self.trajectory.as_ref().map(|d| d.join("report.html")).filter(|p| p.is_file()) {
            properties.push(("report".to_string(), page.display().to_string()));
            log.push_str(&format!("report: {}\n", page.display()));
        }
        // The attachment syntax GitLab and Jenkins read from a test's output.
        for (name, file) in [
            ("failure_screenshot", &self.failure_screenshot),
            ("device_log", &self.device_log),
            ("screen_recording", &self.recording),
        ] {
            if let Some(file) = file {
                properties.push((name.to_string(), file.display().to_string()));
                log.push_str(&format!("[[ATTACHMENT|{}]]\n", file.display()));
            }
        }
        Case {
            name: self.script.name(),
            classname: self.script.path.display().to_string(),
            seconds: self.result.duration_ms / 1000.0,
            verdict: self.verdict.clone(),
            output: log,
            properties,
        }
    }
}

/// Where scripts run and what they get.
pub struct ExecOptions<'a> {
    pub vars: &'a [(String, Dynamic)],
    /// Write each script's trajectory here (a folder per script when there are
    /// several).
    pub trajectory: Option<&'a Path>,
    /// The persona's name, for the summaries.
    pub persona: Option<&'a str>,
    /// Put the virtual phone back to its first state before each script (`simctl
    /// reset`), so scripts do not depend on each other's leftovers.
    pub fresh_world: bool,
    /// Run a script that did not pass again, up to this many more times.
    pub retries: usize,
    /// Where the screen a script failed on (`NAME-failure.png`), the device log
    /// (`NAME-logcat.txt`) and the recording (`NAME-screenrecord.mp4`) go, when it
    /// has no trajectory folder of its own.
    pub failure_screenshots: Option<&'a Path>,
    /// A `complete(true, ..)` right after acting, with nothing checking what the
    /// actions did, fails the script (a test that never looks passes anything).
    pub verify_completion: bool,
    /// Export each script as a trace (`--otlp`), with or without a trajectory.
    pub traces: Option<&'a codeact_record::trace::Traces>,
    /// Record the screen of each attempt (`screenrecord`, a real Android phone),
    /// kept when it did not pass.
    pub record_screen: bool,
}

/// What a running suite says as it goes.
pub enum ExecEvent<'a> {
    /// An attempt at a script begins.
    Started { script: &'a Script, attempt: usize },
    /// The script printed a line.
    Printed { script: &'a Script, text: &'a str },
    /// The script acted (or a watcher did for it).
    Acted { script: &'a Script, action: &'a codeact_engine::sandbox::Action },
    /// An attempt ended; `last` unless the script runs again (`--retries`).
    Finished { report: &'a Report, last: bool },
}

/// Hears a suite's events, from any worker's thread.
pub type Listener = Arc<dyn Fn(usize, &ExecEvent) + Send + Sync>;

/// A suite's run as the workers see it: what to do, what stops it, who hears.
pub(super) struct Running<'a> {
    pub(super) options: &'a ExecOptions<'a>,
    /// Once cancelled, no further script (or retry) starts; the one that runs is
    /// stopped through its session.
    pub(super) cancel: Option<&'a CancellationToken>,
    /// Hears what happens as it happens, with the worker's number (from 0).
    pub(super) listener: Option<&'a Listener>,
}
