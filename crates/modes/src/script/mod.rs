//! `codeact exec` as a library: scripts read and checked, each run in a fresh
//! session state on one of one or more devices with the caller's variables, each
//! with its own trajectory when asked, each judged as a test ([`Verdict`]), every
//! print and action told to a listener as it happens. The CLI prints the events
//! and writes JUnit from the reports; nothing here prints.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rhai::Dynamic;

mod attempt;
mod evidence;
mod exec_request;
pub mod heal;
mod patch;
pub mod steps;
mod subflows;
pub mod suite;
mod workers;
pub use exec_request::{ExecOutcome, ExecRequest, run_suite};
pub use subflows::{SubflowError, collect as modules_imported_by};
pub use suite::suite_folder;
pub use workers::{SessionOpener, run_scripts};

use codeact_engine::sandbox::{
    EngineThreadError, ErrorKind, LimitError, Limits, RunError, RunResult, Sandbox, SandboxError,
};
use codeact_record::trajectory::TrajectoryError;
use codeact_record::trajectory::junit::{Case, Verdict};

#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot run the Maestro flow {} (`codeact convert` shows what codeact makes of it)", .path.display())]
    Flow {
        path: PathBuf,
        #[source]
        source: crate::maestro::FlowError,
    },
    #[error("--var {0:?} is not KEY=VALUE")]
    VarNotKeyValue(String),
    #[error(
        "--var {var:?}: {key:?} is not a variable name: use ASCII letters, digits and _ (not starting with a digit), and no keyword such as `let` or `fn`"
    )]
    VarName { var: String, key: String },
    #[error("{} holds no .rhai script to run{}", .dir.display(), if *.modules > 0 { " (only modules other scripts there import)" } else { "" })]
    NoScripts { dir: PathBuf, modules: usize },
    #[error("no script has the tags asked for ({asked}); the scripts' tags: {tags}")]
    NoneTagged { asked: String, tags: String },
    #[error("two scripts are named {stem:?}: give each its own name so --trajectory {} can hold both", .dir.display())]
    SameName { stem: String, dir: PathBuf },
    #[error(transparent)]
    Trajectory(#[from] TrajectoryError),
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    #[error(transparent)]
    Worker(#[from] EngineThreadError),
    #[error(transparent)]
    Isolation(#[from] codeact_engine::isolation::IsolationError),
    #[error(transparent)]
    Limits(#[from] LimitError),
    #[error("cannot open a phone for worker {worker}")]
    Open {
        worker: usize,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error("cannot put the virtual phone back to its first state (pass --keep-state to run on as it is)")]
    WorldReset(#[source] codeact_platform::device::DeviceError),
    #[error("cannot write the JUnit report {}", .path.display())]
    Junit {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Report(#[from] codeact_record::report::ReportError),
}

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

/// Reads every script first, so a typo in the last name fails before anything runs.
/// A Maestro flow (`.yaml`, `.yml`) is read as the script it translates into.
pub fn read_scripts(paths: &[PathBuf]) -> Result<Vec<Script>, ScriptError> {
    paths
        .iter()
        .map(|path| {
            if crate::maestro::is_flow(path) {
                let flow = crate::maestro::convert_file(path)
                    .map_err(|source| ScriptError::Flow { path: path.clone(), source })?;
                return Ok(Script {
                    path: path.clone(),
                    code: flow.script,
                    tags: flow.tags,
                    folder: None,
                    root: None,
                    screenshot_files: flow.screenshots,
                });
            }
            match codeact_base::files::read_text(path, codeact_base::files::TEXT_BYTES) {
                Ok(code) => Ok(Script {
                    path: path.clone(),
                    tags: suite::tags_of(&code),
                    code,
                    folder: None,
                    root: None,
                    screenshot_files: Vec::new(),
                }),
                Err(source) => Err(ScriptError::Read { path: path.clone(), source }),
            }
        })
        .collect()
}

/// `--var KEY=VALUE` items as typed variables (numbers and true/false are typed).
pub fn parse_vars(vars: &[String]) -> Result<Vec<(String, Dynamic)>, ScriptError> {
    vars.iter()
        .map(|var| {
            let (key, value) = var.split_once('=').ok_or_else(|| ScriptError::VarNotKeyValue(var.clone()))?;
            if !codeact_engine::sandbox::is_variable_name(key) {
                return Err(ScriptError::VarName { var: var.clone(), key: key.to_string() });
            }
            Ok((key.to_string(), typed_value(value)))
        })
        .collect()
}

/// A `--var KEY=VALUE` value typed as a script expects: whole numbers, decimals and
/// true/false are typed, anything else is a string.
fn typed_value(value: &str) -> Dynamic {
    match value {
        "true" => Dynamic::from(true),
        "false" => Dynamic::from(false),
        v => v
            .parse::<i64>()
            .map(Dynamic::from)
            .ok()
            .or_else(|| v.parse::<f64>().ok().filter(|f| f.is_finite()).map(Dynamic::from))
            .unwrap_or_else(|| Dynamic::from(v.to_string())),
    }
}

/// Checks each script without running it (no device): that it parses, and that
/// every function it calls exists — a tool of `persona` (every tool without one),
/// one of the engine's, or one the script defines. The first error, per script.
pub fn check(
    scripts: &[Script],
    limits: &Limits,
    persona: Option<&codeact_runtime::persona::Persona>,
) -> Result<Vec<Option<RunError>>, ScriptError> {
    let tools: Vec<&str> =
        codeact_runtime::tools::names().into_iter().filter(|t| persona.is_none_or(|p| p.allows(t))).collect();
    let mut builder = Sandbox::builder(limits.clone())?;
    for tool in codeact_runtime::tools::names() {
        builder.protect(tool);
    }
    let sandbox = builder.start(String::new())?;
    let known = sandbox.known_functions(&tools);
    let first_error = |script: &Script| {
        let compiled = match sandbox.compile(&script.code) {
            Ok(compiled) => compiled,
            Err(e) => return Some(e),
        };
        let known = match &known {
            Ok(known) => known,
            Err(e) => return Some(e.clone()),
        };
        let calls = sandbox.unknown_calls(&compiled, known);
        let call = calls.first()?;
        let message = match codeact_engine::sandbox::near(&call.name, tools.iter().copied()) {
            Some(near) => format!("Function not found: {}; did you mean {near}()?", call.name),
            None => format!("Function not found: {}; the functions this session has: {}", call.name, tools.join(", ")),
        };
        Some(RunError::at(message, ErrorKind::Script, call.position, &script.code))
    };
    Ok(scripts.iter().map(first_error).collect())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_are_typed_and_named_properly() {
        let vars = parse_vars(&["name=张三".into(), "count=3".into(), "on=true".into()]).unwrap();
        assert_eq!(vars[0].1.clone().into_string().ok().as_deref(), Some("张三"));
        assert_eq!(vars[1].1.as_int(), Ok(3));
        assert_eq!(vars[2].1.as_bool(), Ok(true));
        for bad in ["2x=1", "变量=2", "let=1", "fn=1", "_=1", "a-b=1", "a b=1", "=1", "x;y=1"] {
            assert!(matches!(parse_vars(&[bad.into()]), Err(ScriptError::VarName { .. })), "{bad}");
        }
        assert!(parse_vars(&["_count=1".into(), "x2=1".into()]).is_ok());
        assert!(matches!(parse_vars(&["novalue".into()]), Err(ScriptError::VarNotKeyValue(_))));
    }
}
