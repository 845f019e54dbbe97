//! `codeact explore` as a library: point it at an app and it explores on its own —
//! reads the app's APK for the activities it declares, walks the app (the
//! systematic strategy: no model, a DroidBot-style walk over its widgets with a
//! visited-screen graph), measures coverage (activities reached ÷ declared,
//! screens, widgets, over time), catches crashes and ANRs with the shortest script
//! that reproduces each, and writes the tests it found as scripts `codeact exec`
//! runs, with `report.html` over all of it.
//!
//! Three strategies: `random.rs` (Monkey's baseline: random events, no memory),
//! `systematic.rs` (no model: every widget of every screen) and `llm/` (plan →
//! act → observe → reflect: a planner sets realistic tasks for the agent, with
//! memory across explorations; [`run_with_model`]).
//!
//! Parts: `options.rs` (what it is asked), `progress.rs` (what a walk says and
//! leaves), `bench/` (the strategies side by side over many apps), `budget.rs`
//! (actions or time), `persona.rs` (the user it plays),
//! `screen.rs` (what one screen offers), `graph.rs` (screens and the actions
//! between them), `visual.rs` (where to tap on a canvas), `coverage.rs`,
//! `findings.rs`, the strategies and `walking.rs` (what every walk does between its choices),
//! `export.rs` (the tests found), `record.rs` (the run folder), `report.rs`.
//! Not for driving the agent itself: the model-driven strategy hands each task to
//! `agent::run_task` like every other task.

pub mod bench;
pub mod budget;
pub mod coverage;
pub mod export;
pub mod findings;
pub mod graph;
pub mod llm;
mod options;
pub mod persona;
mod progress;
mod random;
mod record;
pub mod report;
pub mod screen;
mod systematic;
mod visual;
mod walking;

use std::path::PathBuf;

use serde::Serialize;

pub use budget::{BadBudget, Budget};
pub use coverage::Coverage;
pub use export::TestFound;
pub use findings::{Finding, FindingKind};
pub use options::{ExploreOptions, ModelSetup, Strategy};
pub use persona::{UserPersona, UserPersonaError};
pub use progress::{Progress, StopReason};
pub use record::RecordError;
pub use report::TaskView;

use progress::Explored;

use codeact_platform::device::{Device, DeviceError, Platform};
use codeact_record::trajectory::Event;
use codeact_runtime::config::Settings;
use codeact_runtime::session::{Session, SessionError};
use tokio_util::sync::CancellationToken;

/// Why an exploration could not run (what it found is never an error).
#[derive(Debug, thiserror::Error)]
pub enum ExploreError {
    #[error("{app:?} is not a package name (letters, digits, _ and dots, like com.example.app)")]
    BadPackage { app: String },
    #[error("{device}: {app} is not installed; check the name (`adb shell pm list packages` lists Android's)")]
    NotInstalled { device: String, app: String },
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Record(#[from] RecordError),
}

/// What an exploration found.
#[derive(Debug, Clone, Serialize)]
pub struct ExploreSummary {
    pub app: String,
    pub strategy: Strategy,
    pub dir: PathBuf,
    pub label: Option<String>,
    pub actions: usize,
    pub seconds: f64,
    pub stopped: StopReason,
    /// What the phone said when it stopped the walk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub coverage: Coverage,
    pub findings: Vec<Finding>,
    pub tests: Vec<TestFound>,
    /// The tasks the planner set and how each went (`--strategy llm`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<TaskView>,
}

/// The session, the app's declared activities and the run folder, ready to explore.
struct Prepared {
    session: Session,
    label: Option<String>,
    declared: Vec<String>,
    folder: record::RunFolder,
}

/// Checks the app, reads its APK (Android) and makes the run folder. The crash and
/// ANR watchers are turned off: the explorer must see those dialogs.
fn prepare(
    device: Box<dyn Device>,
    settings: &Settings,
    options: &ExploreOptions,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Prepared, ExploreError> {
    let mut settings = settings.clone();
    settings.tools.watchers.crash = false;
    settings.tools.watchers.anr = false;
    let device_name = device.name().to_string();
    let platform = device.platform();
    let mut session = Session::open_on(device, &settings)?;
    if !codeact_platform::apk::pull::is_package_name(&options.app) {
        return Err(ExploreError::BadPackage { app: options.app.clone() });
    }
    if !session.is_installed(&options.app)? {
        return Err(ExploreError::NotInstalled { device: device_name, app: options.app.clone() });
    }
    // The activities the app declares, from its APK (Android only).
    let mut label = None;
    let declared = if platform == Platform::Android {
        match session.app_apk(&options.app) {
            Ok(pulled) => {
                label = pulled.info.label.clone();
                pulled.info.activities.iter().filter(|a| a.enabled).map(|a| a.name.clone()).collect()
            }
            Err(e) => {
                progress(Progress::Note(&format!(
                    "the APK could not be read ({}); coverage counts screens only",
                    codeact_base::error_text::full_message(&e)
                )));
                Vec::new()
            }
        }
    } else {
        Vec::new()
    };
    let folder = record::RunFolder::create(&options.out_dir, &options.app, options.traces.as_deref())?;
    folder.event(&Event::ExploreStart {
        app: options.app.as_str().into(),
        strategy: options.strategy.name().into(),
        budget: options.budget.to_string().into(),
        declared: declared.len(),
        user: options.user.name.as_str().into(),
    });
    session.set_action_sink(Some(folder.action_sink()));
    Ok(Prepared { session, label, declared, folder })
}

/// What to explore, on which phone, under which settings.
pub struct ExploreRequest<'a> {
    pub device: Box<dyn Device>,
    pub settings: &'a Settings,
    pub options: &'a ExploreOptions,
}

/// Explores `request.options.app` on its device with the settings' limits, the
/// systematic or the random way (the model-driven one is [`run_with_model`]), in
/// the shape every mode has: a request,
/// a cancellation token (asked between actions; a cancelled exploration ends with
/// what it found written), a progress sink, a typed outcome.
pub fn run(
    request: ExploreRequest<'_>,
    cancel: &CancellationToken,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<ExploreSummary, ExploreError> {
    let ExploreRequest { device, settings, options } = request;
    let stop = || cancel.is_cancelled();
    let stop: &dyn Fn() -> bool = &stop;
    let Prepared { mut session, label, declared, mut folder } = prepare(device, settings, options, progress)?;
    if options.strategy == Strategy::Random {
        let explored = random::explore(&mut session, options, &mut folder, progress, stop, Coverage::new(declared));
        let no_lived_way = |_: usize| Vec::new();
        let until = check_deadline(explored.seconds);
        let mut check = |text: &str| check_test(&mut session, &folder, options, cancel, until, text);
        let ways = export::Ways { lived: &no_lived_way, check: &mut check };
        let (tests, index) =
            export::suite(&explored.graph, &options.app, options.strategy.name(), true, ways, |name, bytes| {
                folder.write(name, bytes).is_ok()
            });
        return finish(options, &mut folder, label, Explored { tests, ..explored }, &index);
    }
    let user = options.user.clone();
    let mut walk =
        systematic::Walk::new(&mut session, options, &user, &mut folder, progress, stop, Coverage::new(declared));
    walk.note_old_log();
    let stopped = walk.run();
    let (actions, seconds) = (walk.actions, walk.elapsed());
    if options.replay_findings && matches!(stopped, StopReason::Budget | StopReason::Exhausted) {
        walk.replay_findings();
    }
    let (graph, coverage, findings, clean, error) =
        (walk.graph, walk.coverage, walk.findings, walk.clean, walk.failure);
    let first_ways = walk.first_ways;
    let until = check_deadline(seconds);
    let lived = |state: usize| first_ways.get(&state).map(|way| systematic::lived_ways(way, state)).unwrap_or_default();
    let mut check = |text: &str| check_test(&mut session, &folder, options, cancel, until, text);
    let ways = export::Ways { lived: &lived, check: &mut check };
    let (tests, index) = export::suite(&graph, &options.app, options.strategy.name(), clean, ways, |name, bytes| {
        folder.write(name, bytes).is_ok()
    });
    let explored = Explored { graph, coverage, findings, tests, tasks: Vec::new(), actions, seconds, stopped, error };
    finish(options, &mut folder, label, explored, &index)
}

/// Until when the tests an exploration wrote are checked on the phone: half the
/// time the walk took, and a minute at least.
fn check_deadline(walk_seconds: f64) -> std::time::Instant {
    let secs = if walk_seconds.is_finite() { (walk_seconds / 2.0).clamp(60.0, 3600.0) } else { 60.0 };
    std::time::Instant::now() + std::time::Duration::from_secs_f64(secs)
}

/// Runs a test the exploration wrote on the phone, from its clean start, the way
/// `codeact exec` would: whether it passed; `None` when tests are not replayed
/// (`--no-replay`), the exploration was cancelled, or the time for checks is up.
fn check_test(
    session: &mut Session,
    folder: &record::RunFolder,
    options: &ExploreOptions,
    cancel: &CancellationToken,
    until: std::time::Instant,
    text: &str,
) -> Option<bool> {
    if !options.replay_findings || cancel.is_cancelled() || std::time::Instant::now() >= until {
        return None;
    }
    folder.event(&Event::Restart { step: folder.step(), reason: "to check that a test it wrote passes".into() });
    let ran = session.eval(text);
    Some(ran.error.is_none() && ran.completion.as_ref().is_some_and(|c| c.success))
}

/// Explores `request.options.app` with a model (`--strategy llm`): the planner,
/// the agent, the observer and the reflector of [`ModelSetup`]; `cancel` ends the
/// task in flight as interrupted and the exploration with what it found written.
/// Must run on a multi-threaded tokio runtime (the agent's requirement).
pub async fn run_with_model(
    request: ExploreRequest<'_>,
    setup: &ModelSetup<'_>,
    cancel: &CancellationToken,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<ExploreSummary, ExploreError> {
    let ExploreRequest { device, settings, options } = request;
    let Prepared { mut session, label, declared, mut folder } =
        tokio::task::block_in_place(|| prepare(device, settings, options, progress))?;
    let explored = llm::explore(
        &mut session,
        options,
        setup,
        &mut folder,
        label.as_deref(),
        Coverage::new(declared),
        progress,
        cancel,
    )
    .await;
    let index = export::index_text(
        &options.app,
        &explored.tests,
        "Each script is a task the planner set and the agent completed: it starts the app as the task did, \
         replays the agent's steps by selector, and checks what they left changed.",
    );
    tokio::task::block_in_place(|| finish(options, &mut folder, label, explored, &index))
}

/// Writes the index, `graph.json`, `summary.json` and `report.html`.
fn finish(
    options: &ExploreOptions,
    folder: &mut record::RunFolder,
    label: Option<String>,
    explored: Explored,
    index: &str,
) -> Result<ExploreSummary, ExploreError> {
    let Explored { graph, coverage, findings, tests, tasks, actions, seconds, stopped, error } = explored;
    folder.write("tests/index.md", index.as_bytes())?;
    let summary = ExploreSummary {
        app: options.app.clone(),
        strategy: options.strategy,
        dir: folder.dir().to_path_buf(),
        label,
        actions,
        seconds,
        stopped,
        error,
        coverage,
        findings,
        tests,
        tasks,
    };
    folder.write("graph.json", &serde_json::to_vec_pretty(&graph).unwrap_or_default())?;
    let sections = report::sections(&report::ReportInput {
        app: &options.app,
        strategy: options.strategy.name(),
        label: summary.label.as_deref(),
        coverage: &summary.coverage,
        graph: &graph,
        findings: &summary.findings,
        tests: &summary.tests,
        tasks: &summary.tasks,
        actions,
        seconds,
        stopped: stopped.words(),
    });
    // The summary as every run folder's: what the exploration found, and how it ended.
    let mut value = serde_json::to_value(&summary).unwrap_or_default();
    if let Some(fields) = value.as_object_mut() {
        let outcome = if summary.error.is_some() { "failed" } else { "ended" };
        fields.insert("outcome".into(), outcome.into());
        fields.insert("reason".into(), stopped.words().into());
        fields.insert("steps".into(), folder.step().into());
    }
    folder.finish(&value, sections)?;
    Ok(summary)
}
