//! The exploration benchmark (`codeact eval --explore`): each strategy explores
//! each app of the plan at each action budget, on a fresh phone with the plan's
//! crashes planted, and each exploration becomes one row — activities reached of
//! those declared, distinct screens, widgets acted on, planted crashes found and
//! when (seconds and actions into the run). Parts: `plan.rs` (which apps, which
//! crashes), `table.rs` (the Markdown and the JSON). Not an explorer: each job runs
//! through the function the caller gives (`explore::run`, or `run_with_model`).

mod plan;
mod row;
mod table;

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio_util::sync::CancellationToken;

pub use plan::{BenchApp, BenchPlan, PlanError};
pub use row::{BenchRow, CrashFound};
pub use table::{BenchTable, Totals};

use super::options::Strategy;
use super::{ExploreError, ExploreSummary};
use codeact_platform::device::{Device, DeviceError};

/// One exploration to run.
#[derive(Debug, Clone)]
pub struct BenchJob {
    /// The app's index in the plan.
    pub app: usize,
    pub strategy: Strategy,
    pub budget: usize,
}

/// Every strategy on every app at every budget, cheapest first.
pub fn jobs(plan: &BenchPlan, strategies: &[Strategy], budgets: &[usize]) -> Vec<BenchJob> {
    let mut out = Vec::new();
    for &budget in budgets {
        for app in 0..plan.apps.len() {
            for &strategy in strategies {
                out.push(BenchJob { app, strategy, budget });
            }
        }
    }
    out
}

impl BenchRow {
    fn new(app: &BenchApp, job: &BenchJob) -> Self {
        Self {
            app: app.package.clone(),
            strategy: job.strategy.name().to_string(),
            budget: job.budget,
            actions: 0,
            seconds: 0.0,
            activities: 0,
            declared: 0,
            screens: 0,
            widgets: 0,
            planted: app.crashes.len(),
            crashes: Vec::new(),
            error: None,
            dir: None,
        }
    }

    /// The numbers of `summary`; a finding counts as the planted crash whose
    /// widget its exception names (the virtual phone's "ID was tapped").
    fn of(app: &BenchApp, job: &BenchJob, summary: &ExploreSummary) -> Self {
        let c = &summary.coverage;
        let mut crashes: Vec<CrashFound> = Vec::new();
        for widget in &app.crashes {
            let said = format!(": {widget} was tapped");
            let first = summary
                .findings
                .iter()
                .filter(|f| f.exception.as_deref().is_some_and(|e| e.contains(&said)))
                .min_by(|a, b| a.at_seconds.total_cmp(&b.at_seconds));
            if let Some(f) = first {
                crashes.push(CrashFound { widget: widget.clone(), at_seconds: f.at_seconds, at_action: f.at_action });
            }
        }
        Self {
            actions: summary.actions,
            seconds: summary.seconds,
            activities: c.reached_declared(),
            declared: c.declared.len(),
            screens: c.screens,
            widgets: c.widgets,
            crashes,
            error: summary.error.clone(),
            dir: Some(summary.dir.clone()),
            ..Self::new(app, job)
        }
    }
}

/// Opens a fresh phone for one exploration.
pub type OpenDevice<'a> = dyn Fn() -> Result<Box<dyn Device>, DeviceError> + Sync + 'a;
/// Runs one exploration on a phone (the crashes already planted).
pub type Explore<'a> =
    dyn Fn(&BenchJob, &BenchApp, Box<dyn Device>) -> Result<ExploreSummary, ExploreError> + Sync + 'a;

/// Runs `jobs` on `workers` threads, each on a fresh phone with the app's crashes
/// planted; `on_row` sees each row as it is done. Rows come back in job order; an
/// exploration that fails is a row with its error, not the end of the benchmark.
pub fn run(
    plan: &BenchPlan,
    jobs: &[BenchJob],
    workers: usize,
    open: &OpenDevice,
    explore: &Explore,
    cancel: &CancellationToken,
    on_row: &(dyn Fn(&BenchRow) + Sync),
) -> Vec<BenchRow> {
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, BenchRow)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..workers.clamp(1, jobs.len().max(1)) {
            scope.spawn(|| {
                loop {
                    if cancel.is_cancelled() {
                        return;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(job) = jobs.get(i) else { return };
                    let Some(app) = plan.apps.get(job.app) else { continue };
                    let row = match planted_phone(open, app) {
                        Ok(device) => match explore(job, app, device) {
                            Ok(summary) => BenchRow::of(app, job, &summary),
                            Err(e) => failed(app, job, &e),
                        },
                        Err(e) => failed(app, job, &e),
                    };
                    on_row(&row);
                    done.lock().unwrap_or_else(|e| e.into_inner()).push((i, row));
                }
            });
        }
    });
    let mut rows = std::mem::take(&mut *done.lock().unwrap_or_else(|e| e.into_inner()));
    rows.sort_by_key(|(i, _)| *i);
    rows.into_iter().map(|(_, r)| r).collect()
}

/// A fresh phone with `app`'s crashes planted.
fn planted_phone(open: &OpenDevice, app: &BenchApp) -> Result<Box<dyn Device>, DeviceError> {
    let mut device = open()?;
    // The plan's names are checked to be plain words (`plan.rs`): nothing to quote.
    // A phone reused between jobs (--device) keeps no trigger of the last one.
    let mut lines = vec!["simctl fault clear".to_string()];
    lines.extend(app.crashes.iter().map(|w| format!("simctl fault crash-on {} {w}", app.package)));
    for line in lines {
        let out = device.shell(&line)?;
        if out.code != Some(0) {
            let said = format!("{}{}", out.stdout_text(), String::from_utf8_lossy(&out.stderr));
            // The benchmark plants its crashes through the virtual phone's simctl.
            return Err(DeviceError::Command {
                device: device.name().to_string(),
                op: line,
                output: codeact_base::clip::clip(said.trim(), 300).into_owned(),
            });
        }
    }
    Ok(device)
}

fn failed(app: &BenchApp, job: &BenchJob, error: &dyn std::error::Error) -> BenchRow {
    BenchRow { error: Some(codeact_base::error_text::full_message(error)), ..BenchRow::new(app, job) }
}
