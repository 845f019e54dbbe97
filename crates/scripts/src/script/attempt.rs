//! One attempt at one script: a fresh session state (and phone), the script's
//! trajectory and trace, its prints and actions handed to the listener as they
//! happen, the verdict, and a screenshot of the screen it failed on. Not here:
//! which script runs next, retries, or workers (`workers.rs`).

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::error::ScriptError;
use super::evidence::{self, Keep};
use super::subflows;
use super::vocab::{ExecEvent, Report, Running, Script};
use codeact_engine::sandbox::{ActionSink, ErrorKind, RunError, RunResult};
use codeact_record::recorder::{Followers, StepRecorder};
use codeact_record::trajectory::junit::Verdict;
use codeact_record::trajectory::{self, Event, ObservedOnly, TrajectoryError};
use codeact_runtime::session::Session;

/// Why `--verify-completion` fails a script that completed unchecked.
const UNCHECKED: &str = "complete(true) came right after acting, with nothing checking what the actions did: \
     add assert_visible(...) or wait_for(...) after the last action, or run without --verify-completion";

/// Why `--verify-completion` fails a script that ended unchecked without completing.
const NEVER_CHECKED: &str = "the script acted and ended with nothing checking what its last actions did: \
     add assert_visible(...) or wait_for(...) after the last action, or run without --verify-completion";

/// One attempt at one script: a fresh session state (and phone), its trajectory,
/// and a screenshot of the screen it failed on.
pub(super) fn run_one(
    session: &mut Session,
    script: &Script,
    running: &Running,
    device: &str,
    attempt: usize,
    several: bool,
    worker: usize,
) -> Result<Report, ScriptError> {
    let options = running.options;
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
    // Without a run folder, the script's name is its trace's conversation id; the
    // time makes it one run's (a run folder's name is its id).
    let trace_id = || format!("{name}-{}", jiff::Timestamp::now().strftime("%Y%m%d-%H%M%S"));
    let start = Event::Start { script: script.path.display().to_string().into(), device: device.into() };
    let mut sinks: Vec<ActionSink> = Vec::new();
    let written = match &dir {
        Some(dir) => {
            // The report is written once the script is over: it shows the script
            // and what a failure kept beside it.
            let followers = Followers { report: None, traces: options.traces, keep_step_files: false };
            let recorder = StepRecorder::create(dir, followers)?;
            recorder.write_file("script.rhai", script.code.as_bytes());
            recorder.event(&start);
            recorder.whole_run_is_one_step();
            sinks.push(recorder.action_sink(true));
            Some(recorder)
        }
        None => None,
    };
    // Without a trajectory the trace is built from the same events, kept nowhere.
    let observed = match (&written, options.traces) {
        (None, Some(traces)) => {
            let mut observed = ObservedOnly::new(Box::new(traces.spans_for(&trace_id())));
            observed.append(&start);
            let observed = Arc::new(Mutex::new(observed));
            sinks.push(trajectory::observed_action_sink(observed.clone(), 1));
            Some(observed)
        }
        _ => None,
    };
    // The listener hears each print and action the moment it happens.
    if let Some(listener) = running.listener {
        listener(worker, &ExecEvent::Started { script, attempt });
        let (heard, shared) = (listener.clone(), Arc::new(script.clone()));
        sinks.push(Box::new(move |action| heard(worker, &ExecEvent::Acted { script: &shared, action })));
        let (heard, shared) = (listener.clone(), Arc::new(script.clone()));
        session
            .set_print_sink(Some(Box::new(move |text| heard(worker, &ExecEvent::Printed { script: &shared, text }))))?;
    }
    // A flow's takeScreenshot writes its file, as Maestro does.
    if !script.screenshot_files.is_empty() {
        let files = script.screenshot_files.clone();
        sinks.push(Box::new(move |action| save_flow_screenshot(action, &files)));
    }
    session.set_action_sink(match sinks.len() {
        0 => None,
        1 => sinks.pop(),
        _ => Some(Box::new(move |action| sinks.iter_mut().for_each(|sink| sink(action)))),
    });
    let recording = if options.record_screen { evidence::start_recording(session) } else { None };
    let mut result = match load_modules(session, script) {
        Ok(()) => session.eval(&script.code),
        Err(error) => RunResult { error: Some(error), ..RunResult::default() },
    };
    // A flow's failure is told at its YAML line, not the translation's.
    if let Some(error) = result.error.as_mut().filter(|_| codeact_flows::maestro::is_flow(&script.path)) {
        codeact_flows::maestro::relocate(error, &script.code);
    }
    if running.listener.is_some() {
        session.set_print_sink(None)?;
    }
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
            kind: ErrorKind::Tool { tool: "complete".into(), failure: codeact_engine::sandbox::FailureKind::Assertion },
        });
    }
    session.set_action_sink(None);
    // The next script (or whoever uses the session next) imports only its own.
    let _ = session.set_modules(Vec::new());
    let verdict = Verdict::of(&result);
    let keep = match (&written, &dir, options.failure_screenshots) {
        (Some(t), Some(dir), _) => Keep::Trajectory { t, dir },
        (None, _, Some(dir)) => Keep::Beside { dir, stem: &folder },
        _ => Keep::Nowhere,
    };
    let kept = evidence::after_attempt(session, verdict == Verdict::Passed, recording, keep);
    if let Some(observed) = observed {
        trajectory::lock(&observed).append(&end_event(&result));
    }
    let trajectory = match written {
        Some(mut t) => Some(finish_trajectory(&mut t, script, device, options.persona, &result, &verdict)?),
        None => None,
    };
    Ok(Report {
        script: script.clone(),
        result,
        verdict,
        trajectory,
        attempt,
        failure_screenshot: kept.screenshot,
        device_log: kept.device_log,
        recording: kept.recording,
    })
}

/// Gives the session the modules the script imports, or says why it cannot.
fn load_modules(session: &mut Session, script: &Script) -> Result<(), RunError> {
    let modules = subflows::collect(&script.path, script.root.as_deref(), &script.code)
        .map_err(|e| RunError::plain(codeact_base::error_text::full_message(&e), ErrorKind::Script))?;
    if modules.is_empty() {
        return Ok(());
    }
    session.set_modules(modules).map_err(|e| match e {
        codeact_engine::isolation::IsolationError::Refused(why) => RunError::plain(why, ErrorKind::Script),
        other => RunError::plain(codeact_base::error_text::full_message(&other), ErrorKind::Crashed),
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

/// The script's `end` event, `run_end` and `summary.json`, then its report.
fn finish_trajectory(
    t: &mut StepRecorder,
    script: &Script,
    device: &str,
    persona: Option<&str>,
    result: &RunResult,
    verdict: &Verdict,
) -> Result<PathBuf, TrajectoryError> {
    t.event(&end_event(result));
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
    let dir = t.dir();
    t.finish(&[], &summary)?;
    // The run folder's own screenshots, linked: a long script's report costs no
    // re-encoding after it ends.
    codeact_record::report::write_run_report(&dir, codeact_record::report::Assets::Linked)
        .map_err(|e| TrajectoryError::Write { path: e.path, source: e.source })?;
    Ok(dir)
}

/// Writes the picture of a flow's `takeScreenshot` to the file it names (below the
/// working folder, its folders made); a picture that cannot be written is said on
/// stderr and the flow goes on, as Maestro's does.
fn save_flow_screenshot(action: &codeact_engine::sandbox::Action, files: &[(String, String)]) {
    if action.tool != "screenshot" {
        return;
    }
    let (Some(name), Some(png)) = (&action.capture.name, &action.capture.screenshot) else { return };
    let Some((_, file)) = files.iter().find(|(n, _)| n == name) else { return };
    let path = std::path::Path::new(file);
    // Below the working folder, through no link that was there before (a link
    // could lead anywhere); the folders it names are made.
    let linked = path
        .ancestors()
        .skip(1)
        .filter(|a| !a.as_os_str().is_empty())
        .any(|a| std::fs::symlink_metadata(a).is_ok_and(|m| m.file_type().is_symlink()));
    let written = match linked {
        true => Err(std::io::Error::other("a folder on its path is a link; codeact writes through none")),
        false => path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| codeact_base::files::write_replacing(path, png)),
    };
    if let Err(e) = written {
        codeact_base::errln!("takeScreenshot: cannot write {}: {e}", codeact_base::terminal::path(path));
    }
}
