//! `codeact exec` as a library: scripts read and checked, each run in a fresh
//! session state on one device with the caller's variables, each with its own
//! trajectory when asked, each judged as a test ([`Verdict`]). The CLI prints the
//! reports and writes JUnit from them; nothing here prints.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rhai::Dynamic;

pub mod heal;
mod patch;
pub mod steps;
mod subflows;
pub use subflows::{SubflowError, collect as modules_imported_by};

use crate::sandbox::{ErrorKind, LimitError, Limits, RunError, RunResult, Sandbox, SandboxError, WorkerError};
use crate::session::Session;
use crate::trajectory::junit::{Case, Verdict};
use std::borrow::Cow;

use crate::trajectory::{self, Event, ObservedOnly, Trajectory, TrajectoryError};

#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("--var {0:?} is not KEY=VALUE")]
    VarNotKeyValue(String),
    #[error(
        "--var {var:?}: {key:?} is not a variable name: use ASCII letters, digits and _ (not starting with a digit), and no keyword such as `let` or `fn`"
    )]
    VarName { var: String, key: String },
    #[error("two scripts are named {stem:?}: give each its own name so --trajectory {} can hold both", .dir.display())]
    SameName { stem: String, dir: PathBuf },
    #[error(transparent)]
    Trajectory(#[from] TrajectoryError),
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    #[error(transparent)]
    Worker(#[from] WorkerError),
    #[error(transparent)]
    Isolation(#[from] crate::isolation::IsolationError),
    #[error(transparent)]
    Limits(#[from] LimitError),
    #[error("cannot put the virtual phone back to its first state (pass --keep-state to run on as it is)")]
    WorldReset(#[source] crate::device::DeviceError),
}

/// A script to run: where it came from and its code.
#[derive(Debug, Clone)]
pub struct Script {
    pub path: PathBuf,
    pub code: String,
}

impl Script {
    /// The file's stem: the test's name, and its trajectory folder with several scripts.
    pub fn name(&self) -> String {
        self.path.file_stem().map_or_else(|| "script".to_string(), |s| s.to_string_lossy().into_owned())
    }

    /// The name as a folder or file name of its own (`...rhai` has the stem `..`,
    /// which must never become a path).
    pub fn folder_name(&self) -> String {
        crate::files::safe_component(&self.name(), "script")
    }
}

/// Reads every script first, so a typo in the last name fails before anything runs.
pub fn read_scripts(paths: &[PathBuf]) -> Result<Vec<Script>, ScriptError> {
    paths
        .iter()
        .map(|path| match crate::files::read_text(path, crate::files::TEXT_BYTES) {
            Ok(code) => Ok(Script { path: path.clone(), code }),
            Err(source) => Err(ScriptError::Read { path: path.clone(), source }),
        })
        .collect()
}

/// `--var KEY=VALUE` items as typed variables (numbers and true/false are typed).
pub fn parse_vars(vars: &[String]) -> Result<Vec<(String, Dynamic)>, ScriptError> {
    vars.iter()
        .map(|var| {
            let (key, value) = var.split_once('=').ok_or_else(|| ScriptError::VarNotKeyValue(var.clone()))?;
            if !is_variable_name(key) {
                return Err(ScriptError::VarName { var: var.clone(), key: key.to_string() });
            }
            Ok((key.to_string(), typed_value(value)))
        })
        .collect()
}

/// A name Rhai takes for a variable: ASCII letters, digits and `_`, not starting
/// with a digit, at least one letter, and not a keyword (the parser is asked).
fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.chars().any(|c| c.is_ascii_alphabetic())
        && rhai::Engine::new_raw().compile(format!("let {name} = ();")).is_ok()
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
    persona: Option<&crate::persona::Persona>,
) -> Result<Vec<Option<RunError>>, ScriptError> {
    let tools: Vec<&str> = crate::tools::names().into_iter().filter(|t| persona.is_none_or(|p| p.allows(t))).collect();
    let mut builder = Sandbox::builder(limits.clone())?;
    for tool in crate::tools::names() {
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
        let message = match crate::sandbox::near(&call.name, tools.iter().copied()) {
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
}

impl Report {
    /// The report as a JUnit test case: what it printed, then its action log.
    pub fn junit_case(&self) -> Case {
        let mut log = self.result.output.clone();
        let (listed, more) = self.result.listed_actions(crate::sandbox::LISTED_ACTIONS);
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
        if let Some(png) = &self.failure_screenshot {
            properties.push(("failure_screenshot".to_string(), png.display().to_string()));
            // The attachment syntax GitLab and Jenkins read from a test's output.
            log.push_str(&format!("[[ATTACHMENT|{}]]\n", png.display()));
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
    /// Where a screenshot of the screen a script failed on goes (`NAME-failure.png`),
    /// when it has no trajectory folder of its own.
    pub failure_screenshots: Option<&'a Path>,
    /// A `complete(true, ..)` right after acting, with nothing checking what the
    /// actions did, fails the script (a test that never looks passes anything).
    pub verify_completion: bool,
    /// Export each script as a trace (`--otlp`), with or without a trajectory.
    pub traces: Option<&'a crate::trace::Traces>,
    /// Once cancelled, no further script (or retry) starts; the caller cancels the
    /// one that runs through the session's [`CancelHandle`](crate::sandbox::CancelHandle).
    pub interrupt: Option<&'a tokio_util::sync::CancellationToken>,
}

/// Why `--verify-completion` fails a script that completed unchecked.
const UNCHECKED: &str = "complete(true) came right after acting, with nothing checking what the actions did: \
     add assert_visible(...) or wait_for(...) after the last action, or run without --verify-completion";

/// Why `--verify-completion` fails a script that ended unchecked without completing.
const NEVER_CHECKED: &str = "the script acted and ended with nothing checking what its last actions did: \
     add assert_visible(...) or wait_for(...) after the last action, or run without --verify-completion";

/// Runs each script in turn on `session`, forgetting the last one's variables,
/// functions and memory first; `on_report` sees each report as soon as it is ready.
pub fn run_scripts(
    session: &mut Session,
    scripts: &[Script],
    options: &ExecOptions,
    on_report: &mut dyn FnMut(&Report),
) -> Result<Vec<Report>, ScriptError> {
    if let Some(dir) = options.trajectory
        && scripts.len() > 1
    {
        let mut names = std::collections::HashSet::new();
        for script in scripts {
            if !names.insert(script.folder_name()) {
                return Err(ScriptError::SameName { stem: script.folder_name(), dir: dir.to_path_buf() });
            }
        }
    }
    let device = session.device_name();
    let mut reports = Vec::new();
    let interrupted = || options.interrupt.is_some_and(|i| i.is_cancelled());
    for script in scripts {
        if interrupted() {
            break;
        }
        let mut attempt = 1;
        let report = loop {
            let report = run_one(session, script, options, &device, attempt, scripts.len() > 1)?;
            // Code that does not parse fails the same way every time.
            let unparsed = report.result.error.as_ref().is_some_and(|e| e.kind == ErrorKind::Syntax);
            if report.verdict == Verdict::Passed || attempt > options.retries || unparsed || interrupted() {
                break report;
            }
            on_report(&report);
            attempt += 1;
        };
        on_report(&report);
        reports.push(report);
    }
    Ok(reports)
}

/// One attempt at one script: a fresh session state (and phone), its trajectory,
/// and a screenshot of the screen it failed on.
fn run_one(
    session: &mut Session,
    script: &Script,
    options: &ExecOptions,
    device: &str,
    attempt: usize,
    several: bool,
) -> Result<Report, ScriptError> {
    session.reset()?;
    if options.fresh_world {
        session.reset_virtual_phone().map_err(ScriptError::WorldReset)?;
    }
    for (key, value) in options.vars {
        session.set_var(key, value.clone())?;
    }
    let name = if attempt == 1 { script.name() } else { format!("{}-attempt{attempt}", script.name()) };
    let folder = match attempt {
        1 => script.folder_name(),
        _ => format!("{}-attempt{attempt}", script.folder_name()),
    };
    let dir = options.trajectory.map(|d| match (several, attempt) {
        (false, 1) => d.to_path_buf(),
        (false, _) => d.join(&folder),
        (true, _) => d.join(&folder),
    });
    // The script's name is its trace's conversation id; the time makes it one run's.
    let trace_id = || format!("{name}-{}", jiff::Timestamp::now().strftime("%Y%m%d-%H%M%S"));
    let start = Event::Start { script: script.path.display().to_string().into(), device: device.into() };
    let written = match &dir {
        Some(dir) => {
            let mut t = Trajectory::create(dir)?;
            if let Some(traces) = options.traces {
                t.add_observer(Box::new(traces.spans_for(&trace_id())));
            }
            t.write_file("script.rhai", script.code.as_bytes());
            t.append(&start);
            let t = Arc::new(Mutex::new(t));
            session.set_action_sink(Some(trajectory::action_sink(t.clone(), Arc::new(|| 1), true)));
            Some(t)
        }
        None => None,
    };
    // Without a trajectory the trace is built from the same events, kept nowhere.
    let observed = match (&written, options.traces) {
        (None, Some(traces)) => {
            let mut observed = ObservedOnly::new(Box::new(traces.spans_for(&trace_id())));
            observed.append(&start);
            let observed = Arc::new(Mutex::new(observed));
            session.set_action_sink(Some(trajectory::observed_action_sink(observed.clone(), 1)));
            Some(observed)
        }
        _ => None,
    };
    let mut result = match load_modules(session, script) {
        Ok(()) => session.eval(&script.code),
        Err(error) => RunResult { error: Some(error), ..RunResult::default() },
    };
    // With --verify-completion a script passes only when something checked what its
    // last actions did: a successful completion or the script's end, unchecked, fails.
    let unchecked = match &result.completion {
        Some(c) if c.success => Some(UNCHECKED),
        Some(_) => None,
        None => Some(NEVER_CHECKED),
    };
    let unchecked = unchecked.filter(|_| options.verify_completion && result.error.is_none());
    if let Some(why) = unchecked.filter(|_| session.outcome_unchecked()) {
        result.error = Some(RunError {
            message: why.to_string(),
            line: None,
            column: None,
            source_line: None,
            kind: ErrorKind::Tool { tool: "complete".into(), failure: crate::sandbox::FailureKind::Assertion },
        });
    }
    session.set_action_sink(None);
    // The next script (or whoever uses the session next) imports only its own.
    let _ = session.set_modules(Vec::new());
    let verdict = Verdict::of(&result);
    let failure_screenshot = match (&verdict, &written, options.failure_screenshots) {
        (Verdict::Passed, _, _) => None,
        (_, Some(t), _) => session.screenshot().ok().and_then(|png| {
            trajectory::lock(t).write_file("failure.png", &png);
            dir.as_ref().map(|d| d.join("failure.png"))
        }),
        (_, None, Some(dir)) => session.screenshot().ok().and_then(|png| {
            let path = dir.join(format!("{folder}-failure.png"));
            crate::files::write_replacing(&path, &png).ok().map(|()| path)
        }),
        _ => None,
    };
    if let Some(observed) = observed {
        trajectory::lock(&observed).append(&end_event(&result));
    }
    let trajectory = match written {
        Some(t) => Some(finish_trajectory(&t, script, device, options.persona, &result, &verdict)?),
        None => None,
    };
    Ok(Report { script: script.clone(), result, verdict, trajectory, attempt, failure_screenshot })
}

/// Gives the session the modules the script imports, or says why it cannot.
fn load_modules(session: &mut Session, script: &Script) -> Result<(), RunError> {
    let modules = subflows::collect(&script.path, &script.code)
        .map_err(|e| RunError::plain(crate::error_text::full_message(&e), ErrorKind::Script))?;
    if modules.is_empty() {
        return Ok(());
    }
    session.set_modules(modules).map_err(|e| match e {
        crate::isolation::IsolationError::Refused(why) => RunError::plain(why, ErrorKind::Script),
        other => RunError::plain(crate::error_text::full_message(&other), ErrorKind::Crashed),
    })
}

/// The event that closes a script's run.
fn end_event(result: &RunResult) -> Event<'_> {
    Event::End {
        output: result.output.as_str().into(),
        error: result.error.as_ref().map(Cow::Borrowed),
        completion: result.completion.as_ref().map(Cow::Borrowed),
        more_actions: result.more_actions,
    }
}

/// The script's `end` event and `summary.json`.
fn finish_trajectory(
    t: &trajectory::SharedTrajectory,
    script: &Script,
    device: &str,
    persona: Option<&str>,
    result: &RunResult,
    verdict: &Verdict,
) -> Result<PathBuf, TrajectoryError> {
    let mut t = trajectory::lock(t);
    t.append(&end_event(result));
    let summary = serde_json::json!({
        "script": script.path.display().to_string(),
        "device": device,
        "persona": persona,
        "outcome": verdict.word().to_lowercase(),
        "error": result.error.as_ref().map(|e| e.to_string()),
        "completion": result.completion,
        "actions": result.actions.len(),
        "duration_ms": result.duration_ms,
    });
    let dir = t.finish(&summary)?;
    drop(t);
    crate::report::write_run_report(&dir, crate::report::Assets::Embedded)
        .map_err(|e| TrajectoryError::Write { path: e.path, source: e.source })?;
    Ok(dir)
}

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
