//! `codeact eval` as a library call: plan a suite, run it on N phones, and write its
//! folder — `results.jsonl` (each instance as it ends, so a killed suite keeps what
//! it finished), `results.json` and `junit.xml` (the whole), `report.html` (a row
//! per instance linking its run's report) and `runs/`. Returns the results. Not the
//! flags or the printing (the CLI), nor one instance (`instance.rs`).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use super::agents::Agent;
use super::job::{EvalOptions, plan};
use super::results::{InstanceResult, Results, ResultsError, SCHEMA, summarize};
use super::runner::{EvalError, SessionFactory, check_out_dir, run_suite};
use super::task::TaskSpec;

/// A suite to run.
pub struct SuiteRequest<'a> {
    pub tasks: &'a [TaskSpec],
    pub options: EvalOptions,
    pub agent: Agent<'a>,
    /// How `results.json` names the agent: `oracle` or `llm`, its model, persona and
    /// strategy (none for the oracle), and the blocker watchers that were on.
    pub described: Described,
}

/// What `results.json` says of who ran the suite.
#[derive(Debug, Clone, Default)]
pub struct Described {
    pub agent: String,
    pub model: Option<String>,
    pub persona: Option<String>,
    pub strategy: Option<String>,
    /// How the LLM agent acts (`code` or `json`); none for the oracle.
    pub action_format: Option<String>,
    pub watchers: String,
}

/// What a suite reports as it goes (from any worker thread).
#[derive(Debug)]
pub enum SuiteProgress<'a> {
    /// The plan: templates, instances, and the phones they run on.
    Planned { templates: usize, instances: usize, phones: usize },
    /// Instance `done` of `total` finished.
    Finished { result: &'a InstanceResult, done: usize, total: usize },
}

/// A suite that ran (perhaps cut short by Ctrl-C).
#[derive(Debug)]
pub struct SuiteRun {
    pub results: Results,
    /// The instances planned (fewer ran when the suite was interrupted).
    pub planned: usize,
    /// `report.html` in the suite's folder.
    pub report: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    #[error(transparent)]
    Eval(#[from] EvalError),
    #[error(transparent)]
    Results(#[from] ResultsError),
    #[error(transparent)]
    Report(#[from] codeact_record::report::ReportError),
}

/// `report.html` in the suite's folder: a row per instance, linking its run's report.
fn write_index(out_dir: &Path, results: &Results) -> Result<PathBuf, codeact_record::report::ReportError> {
    let all = &results.summary.all;
    let title = format!(
        "codeact eval ({}): {} instances, mean score {:.3}, {} solved",
        results.agent, all.instances, all.mean_score, all.solved
    );
    let rows: Vec<(Option<PathBuf>, Vec<String>)> = results
        .results
        .iter()
        .map(|r| {
            let link = r
                .run_dir
                .as_deref()
                .and_then(|d| d.strip_prefix(out_dir).ok())
                .map(|d| d.join("report.html"))
                .filter(|page| out_dir.join(page).is_file());
            let cells = vec![
                r.label(),
                format!("{:.2}", r.score),
                r.outcome.clone(),
                r.steps.to_string(),
                r.llm_calls.to_string(),
                format!("{:.1}", r.wall_ms / 1000.0),
                r.goal.clone(),
            ];
            (link, cells)
        })
        .collect();
    let head = ["instance", "score", "outcome", "steps", "LLM calls", "time s", "goal"];
    codeact_record::report::write_index(out_dir, &title, &head, &rows)
}

/// Runs `request`'s suite into its folder (refused when the folder holds an eval
/// already); `open_session` makes each worker's session on a fresh virtual phone.
pub fn run(
    request: SuiteRequest,
    open_session: &SessionFactory,
    interrupt: &CancellationToken,
    progress: &(dyn Fn(SuiteProgress) + Sync),
) -> Result<SuiteRun, SuiteError> {
    let SuiteRequest { tasks, options, agent, described } = request;
    let out_dir = options.out_dir.clone();
    check_out_dir(&out_dir)?;
    std::fs::create_dir_all(&out_dir).map_err(|source| EvalError::Write { path: out_dir.clone(), source })?;
    let jobs = plan(tasks, &options);
    let planned = jobs.len();
    progress(SuiteProgress::Planned {
        templates: tasks.len(),
        instances: planned,
        phones: options.parallel.min(planned.max(1)),
    });
    // Each instance is appended as it ends: a killed run keeps what it finished.
    let log_path = out_dir.join("results.jsonl");
    // Created new: a link planted at that name (even a dangling one) is refused, never
    // written through.
    let log = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&log_path)
        .map_err(|source| EvalError::Write { path: log_path, source })?;
    let finished = Mutex::new((0usize, log));
    let on_result = |result: &InstanceResult| {
        let mut finished = finished.lock().unwrap_or_else(|e| e.into_inner());
        finished.0 += 1;
        if let Ok(line) = serde_json::to_string(result) {
            let _ = writeln!(finished.1, "{line}");
        }
        progress(SuiteProgress::Finished { result, done: finished.0, total: planned });
    };
    let started = Instant::now();
    let results = run_suite(tasks, &jobs, &options, &agent, open_session, interrupt, &on_result)?;
    let results = Results {
        schema: SCHEMA,
        codeact: env!("CARGO_PKG_VERSION").to_string(),
        agent: described.agent,
        model: described.model,
        persona: described.persona,
        seed: options.seed,
        instances: options.instances,
        repeat: options.repeat,
        shard: options.shard.map(|s| s.to_string()),
        faults: options.faults.clone(),
        watchers: described.watchers,
        strategy: described.strategy,
        action_format: described.action_format,
        parallel: options.parallel,
        wall_ms: started.elapsed().as_secs_f64() * 1000.0,
        summary: summarize(&results),
        results,
    };
    results.write(&out_dir)?;
    let report = write_index(&out_dir, &results)?;
    Ok(SuiteRun { results, planned, report })
}
