//! `codeact exec` as one library call, in the shape every mode has: a request
//! ([`ExecRequest`]: the scripts, how to run them, on how many phones, and which
//! records to keep), a cancellation token, a progress sink (the listener, which
//! hears each worker's events as they happen), and a typed outcome
//! ([`ExecOutcome`]: the reports, and where the suite's records went — the index
//! page over the scripts' reports, the JUnit file, a Maestro flow per script).
//! The records are written here, so every front door gets them; the binary only
//! prints. Not who runs which script (`workers.rs`) or one attempt (`attempt.rs`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use super::error::ScriptError;
use super::vocab::{ExecOptions, Listener, Report, Running, Script};
use super::workers::{SessionOpener, run_workers};
use codeact_flows::maestro::export::FlowWritten;
use codeact_record::trajectory::junit;

/// What to run and which records to keep.
pub struct ExecRequest<'a> {
    pub scripts: &'a [Script],
    pub options: ExecOptions<'a>,
    /// Phones at once (one session each; at most one per script).
    pub workers: usize,
    /// Write a JUnit report here (a test case per script, retries as flaky runs).
    pub junit: Option<&'a Path>,
    /// Write each script's actions as a Maestro flow (`flow.yaml` in its run
    /// folder; needs `options.trajectory`).
    pub export_flows: bool,
}

/// What a suite did and where its records are.
#[derive(Debug)]
pub struct ExecOutcome {
    /// One per script that ran, in the suite's order (those an interrupt left
    /// unrun are missing).
    pub reports: Vec<Report>,
    /// The report to open: the one script's own, or the index over several.
    pub report_page: Option<PathBuf>,
    pub junit: Option<PathBuf>,
    pub flows: Vec<FlowWritten>,
    /// The suite's wall time.
    pub seconds: f64,
}

/// Runs the request's scripts on `request.workers` phones (each opened by `open`
/// in its own thread) until they are done or `cancel` is cancelled (no further
/// script starts; those in hand stop), `progress` hearing every event; then
/// writes the records the request asks for.
pub fn run_suite(
    request: &ExecRequest,
    open: &SessionOpener,
    cancel: &CancellationToken,
    progress: &Listener,
) -> Result<ExecOutcome, ScriptError> {
    let started = Instant::now();
    let running = Running { options: &request.options, cancel: Some(cancel), listener: Some(progress) };
    let reports = match request.scripts {
        [] => Vec::new(),
        scripts => run_workers(scripts, &running, request.workers, open)?,
    };
    let seconds = started.elapsed().as_secs_f64();
    let mut outcome = ExecOutcome { reports, report_page: None, junit: None, flows: Vec::new(), seconds };
    if let Some(root) = request.options.trajectory {
        if request.export_flows {
            outcome.flows = outcome.reports.iter().filter_map(export_flow).collect();
        }
        outcome.report_page = report_page(root, &outcome.reports, seconds)?;
    }
    if let Some(path) = request.junit {
        let cases: Vec<junit::Case> = outcome.reports.iter().map(Report::junit_case).collect();
        codeact_base::files::write_replacing(path, junit::render("codeact exec", &cases).as_bytes())
            .map_err(|source| ScriptError::Junit { path: path.to_path_buf(), source })?;
        outcome.junit = Some(path.to_path_buf());
    }
    Ok(outcome)
}

/// A script's run as a Maestro flow in its run folder; a flow's own name stays
/// its name (exported again, it is unchanged).
fn export_flow(report: &Report) -> Option<FlowWritten> {
    let dir = report.trajectory.clone()?;
    let named = codeact_flows::maestro::is_flow(&report.script.path)
        .then(|| codeact_flows::maestro::convert_file(&report.script.path).ok().and_then(|c| c.name))
        .flatten();
    Some(codeact_flows::maestro::export::write_flow_of(&dir, &named.unwrap_or_else(|| report.script.name())))
}

/// The report to open: one script's own page, or an index at `root` with the
/// totals, filters and every script, each linked to its page.
fn report_page(root: &Path, reports: &[Report], seconds: f64) -> Result<Option<PathBuf>, ScriptError> {
    let page = match reports {
        [one] => one.trajectory.as_ref().map(|dir| dir.join("report.html")),
        _ => {
            let rows: Vec<codeact_record::report::SuiteRow> = reports.iter().map(|r| suite_row(root, r)).collect();
            Some(codeact_record::report::write_suite_index(root, "codeact exec", &rows, seconds)?)
        }
    };
    Ok(page.filter(|p| p.is_file()))
}

fn suite_row(root: &Path, r: &Report) -> codeact_record::report::SuiteRow {
    codeact_record::report::SuiteRow {
        name: r.script.path.display().to_string(),
        link: r.trajectory.as_deref().and_then(|d| d.strip_prefix(root).ok()).map(|d| d.join("report.html")),
        verdict: r.verdict.word().to_string(),
        tags: r.script.tags.clone(),
        actions: r.result.actions.len() + r.result.more_actions,
        ms: r.result.duration_ms,
        message: r
            .result
            .error
            .as_ref()
            .map(|e| e.message.clone())
            .or_else(|| r.result.completion.as_ref().filter(|c| !c.success).map(|c| c.reason.clone())),
        attempt: r.attempt,
    }
}
