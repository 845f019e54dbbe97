//! Who runs which script: one session takes the scripts in turn, or several
//! (one thread and one phone each) take the next script left until none is; a
//! script that did not pass runs again up to `--retries` times on the same worker.
//! Reports come back in the suite's order. Not here: one attempt (`attempt.rs`).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::attempt::run_one;
use super::error::ScriptError;
use super::vocab::{ExecEvent, ExecOptions, Report, Running, Script};
use codeact_engine::sandbox::ErrorKind;
use codeact_record::trajectory::junit::Verdict;
use codeact_runtime::session::{OpenError, Session};

/// Opens worker N's session (its own phone).
pub type SessionOpener<'a> = dyn Fn(usize) -> Result<Session, OpenError> + Sync + 'a;

/// Runs each script in turn on `session`, forgetting the last one's variables,
/// functions and memory first; `on_report` sees each report (a retried attempt's
/// too) as soon as it is ready.
pub fn run_scripts(
    session: &mut Session,
    scripts: &[Script],
    options: &ExecOptions,
    on_report: &mut dyn FnMut(&Report),
) -> Result<Vec<Report>, ScriptError> {
    check_names(scripts, options)?;
    let next = AtomicUsize::new(0);
    let mut reports = Vec::new();
    let running = Running { options, cancel: None, listener: None };
    take_scripts(session, scripts, &running, &next, 0, &mut |_, report, last| {
        on_report(&report);
        if last {
            reports.push(report);
        }
    })?;
    Ok(reports)
}

/// Runs `scripts` on `workers` sessions at once, each opened by `open` in its own
/// thread; the listener hears every event as it happens. Returns the reports in
/// the order of `scripts` (those an interrupt left unrun are missing).
pub(super) fn run_workers(
    scripts: &[Script],
    running: &Running,
    workers: usize,
    open: &SessionOpener,
) -> Result<Vec<Report>, ScriptError> {
    check_names(scripts, running.options)?;
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, Report)>> = Mutex::new(Vec::new());
    let fatal: Mutex<Option<ScriptError>> = Mutex::new(None);
    let workers = workers.clamp(1, scripts.len().max(1));
    std::thread::scope(|scope| {
        for worker in 0..workers {
            let (next, done, fatal) = (&next, &done, &fatal);
            scope.spawn(move || {
                let opened = open(worker);
                // Interrupted while its phone opened: the script it was to run is
                // in hand, and ends as interrupted (the records name it).
                if running.cancel.is_some_and(|i| i.is_cancelled()) {
                    if let Some((i, report)) = claim_unstarted(scripts, next, running, worker) {
                        lock(done).push((i, report));
                    }
                    return;
                }
                let mut session = match opened {
                    Ok(session) => session,
                    Err(source) => {
                        lock(fatal).get_or_insert(ScriptError::Open { worker: worker + 1, source: Box::new(source) });
                        return;
                    }
                };
                if let Some(cancel) = running.cancel {
                    session.stop_on(cancel.clone());
                }
                let ran = take_scripts(&mut session, scripts, running, next, worker, &mut |i, report, last| {
                    if last {
                        lock(done).push((i, report));
                    }
                });
                if let Err(e) = ran {
                    lock(fatal).get_or_insert(e);
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

/// With a trajectory, each script of several gets a folder named after it.
fn check_names(scripts: &[Script], options: &ExecOptions) -> Result<(), ScriptError> {
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
    Ok(())
}

/// The next script nobody has taken, as a report of a run an interrupt stopped
/// before it started (the worker's phone was still opening).
fn claim_unstarted(
    scripts: &[Script],
    next: &AtomicUsize,
    running: &Running,
    worker: usize,
) -> Option<(usize, Report)> {
    let i = next.fetch_add(1, Ordering::SeqCst);
    let script = scripts.get(i)?;
    let report = Report::not_started(script.clone(), "interrupted before it started (its phone was opening)");
    if let Some(listener) = running.listener {
        listener(worker, &ExecEvent::Finished { report: &report, last: true });
    }
    Some((i, report))
}

/// Takes the next script nobody has taken until none is left (or an interrupt
/// came), retrying one that did not pass; `on_report(index, report, last)` gets
/// every attempt, `last` for the one that stands.
fn take_scripts(
    session: &mut Session,
    scripts: &[Script],
    running: &Running,
    next: &AtomicUsize,
    worker: usize,
    on_report: &mut dyn FnMut(usize, Report, bool),
) -> Result<(), ScriptError> {
    let device = session.device_name();
    let interrupted = || running.cancel.is_some_and(|i| i.is_cancelled());
    loop {
        if interrupted() {
            return Ok(());
        }
        let i = next.fetch_add(1, Ordering::SeqCst);
        let Some(script) = scripts.get(i) else { return Ok(()) };
        let mut attempt = 1;
        loop {
            let report = run_one(session, script, running, &device, attempt, scripts.len() > 1, worker)?;
            // Code that does not parse fails the same way every time.
            let unparsed = report.result.error.as_ref().is_some_and(|e| e.kind == ErrorKind::Syntax);
            let last =
                report.verdict == Verdict::Passed || attempt > running.options.retries || unparsed || interrupted();
            if let Some(listener) = running.listener {
                listener(worker, &ExecEvent::Finished { report: &report, last });
            }
            on_report(i, report, last);
            if last {
                break;
            }
            attempt += 1;
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
