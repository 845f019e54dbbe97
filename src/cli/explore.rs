//! `codeact explore`: explore an app on its own, then print its coverage and
//! findings; exit 1 when it found a crash or an ANR.

use std::path::PathBuf;
use std::process::ExitCode;

use codeact::config::{Flags, Settings};
use codeact::explore::{self, Budget, ExploreOptions, ExploreRequest, Progress, Strategy, UserPersona};
use codeact::tools::SensitivePolicy;

use super::args::{DeviceArgs, LlmArgs, MemoryArgs, RoleArgs, TraceArgs, Vision, finish_traces};

/// Explore an app without a task: every screen and widget it can reach, its
/// coverage against the activities its APK declares, the crashes and ANRs it meets
/// (each with the shortest script that does it again), and the tests it found.
///
///   codeact explore --app com.example.notes --device sim
///   codeact explore --app com.example.notes -d emulator-5554 --budget 20m
///   codeact explore --app com.android.settings -d sim --persona newcomer --budget 500
///   codeact explore --app com.example.notes -d sim --strategy random --budget 500 --seed 7
///   codeact explore --app com.example.notes -d sim --strategy llm --budget 60 --model gpt-4o-mini
///
/// --strategy llm plans, acts, observes and reflects: before each task the app
/// starts clean; a planner (the user persona, the activities reached and not, the
/// tasks done and what each changed, what widgets are known to do, the reviewer's
/// notes) sets one task; the agent does it (`codeact run`'s loop, --task-steps
/// steps at most, its own run folder under tasks/; --actor tree splits a task
/// into sub-goals); what each action changed is
/// read from the phone; every --reflect-every tasks a reviewer critiques and its
/// note steers the planner. Widget knowledge, completed tasks and the notes go
/// into the memory database (--memory), and the next exploration of the app
/// starts from them. Each completed task becomes a test in tests/.
///
/// Everything goes into a run folder (--out, default runs/): report.html, tests/
/// (one script per activity reached — with llm, per task completed —;
/// `codeact exec tests/*.rhai` runs them), findings/ (one reproduction per
/// problem), tasks/ (llm: each task's own run folder and report), events.jsonl,
/// graph.json and summary.json. Each restart of the app forgets its data (`pm clear`) so that the
/// paths found replay from a fresh install; --keep-data keeps it.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct ExploreArgs {
    /// The app's package (`codeact apk info` and `pm list packages` name them).
    #[arg(long, value_name = "PACKAGE")]
    app: String,
    /// How much: a number of actions (300) or a time (90s, 20m, 1h).
    #[arg(long, default_value = "300", value_parser = parse_budget)]
    budget: Budget,
    /// systematic: no model, every widget of every screen with back-tracking.
    /// random: Monkey's baseline — random taps, swipes, long presses, Back, text
    /// and keys at random points, no memory (--seed, --throttle). llm: a planner
    /// sets tasks as the user would, the agent does them, a reviewer critiques
    /// (needs a model: --model, --base-url, or [llm] in codeact.toml).
    #[arg(long, value_enum, default_value = "systematic")]
    strategy: StrategyArg,
    /// random: the seed of its events (the same seed, the same events).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// random: milliseconds between events, as Monkey's --throttle (0 to 10000).
    #[arg(long, default_value_t = 0, value_name = "MS", value_parser = clap::value_parser!(u64).range(0..=10_000))]
    throttle: u64,
    /// llm: the agent's steps per task at most.
    #[arg(long, default_value_t = 10, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    task_steps: u32,
    /// llm: how the agent does each task: react (observe, write a snippet, run it,
    /// until complete()) or tree (the task is a node that writes code or splits
    /// into sub-goals, as `codeact run --strategy tree`).
    #[arg(long, value_enum, default_value = "react")]
    actor: ActorArg,
    /// llm: how the agent acts in each task: code (Rhai snippets) or json
    /// (function calls), as `codeact run --actions`.
    #[arg(long, value_enum, default_value = "code", value_name = "FORMAT")]
    actions: codeact::agent::ActionFormat,
    /// llm with --actor tree: a node this deep may not split its goal any more.
    #[arg(long, default_value_t = 3, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=8))]
    tree_depth: u32,
    /// llm: the reviewer critiques after every N tasks (0: never).
    #[arg(long, default_value_t = 3, value_name = "N")]
    reflect_every: usize,
    /// llm: show the agent a screenshot each step: auto (when the default
    /// persona asks for them), on, or off.
    #[arg(long, value_enum, default_value = "auto")]
    vision: Vision,
    #[command(flatten)]
    llm: LlmArgs,
    #[command(flatten)]
    roles: RoleArgs,
    #[command(flatten)]
    memory: MemoryArgs,
    /// The user it plays: a built-in one (tester, newcomer) or a TOML file (name,
    /// goals, traits, and [data]: what to type into which field).
    #[arg(long, value_name = "NAME|FILE")]
    persona: Option<String>,
    /// Where the run folder goes.
    #[arg(long, default_value = "runs", value_name = "DIR")]
    out: PathBuf,
    /// Keep the app's data when it is restarted (default: forget it each time).
    #[arg(long)]
    keep_data: bool,
    /// No screenshots of new screens (faster on a slow phone).
    #[arg(long)]
    no_screenshots: bool,
    /// Do not replay each finding's steps afterwards to check it happens again, nor run each test
    /// written to choose the way it takes (then a test takes the way the walk went).
    #[arg(long)]
    no_replay: bool,
    /// Actions on something sensitive (delete, send, pay… and codeact.toml's
    /// [sensitive] rules): allow (the default here: an explorer tries what a tester
    /// tries, on a test build whose data it clears anyway), ask, or refuse.
    #[arg(long, value_enum, value_name = "ask|refuse|allow")]
    sensitive: Option<SensitivePolicy>,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    /// codeact.toml to read (default: $CODEACT_CONFIG, else ./codeact.toml).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    #[command(flatten)]
    device: DeviceArgs,
    #[command(flatten)]
    traces: TraceArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum StrategyArg {
    Systematic,
    Random,
    Llm,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ActorArg {
    React,
    Tree,
}

fn parse_budget(text: &str) -> Result<Budget, String> {
    text.parse().map_err(|e: explore::BadBudget| e.to_string())
}

/// `1 action`, `3 actions`.
fn counted(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// Text from the app, the model or a file, as one line.
fn clean(text: &str) -> String {
    codeact::terminal::one_line(text)
}

impl ExploreArgs {
    pub fn explore(self) -> anyhow::Result<ExitCode> {
        let user = match &self.persona {
            Some(p) => UserPersona::load(p)?,
            None => UserPersona::default_user(),
        };
        let flags = Flags {
            device: self.device.device.clone(),
            device_timeout_s: self.device.how.timeout,
            observe: self.device.how.observe,
            appium_caps: self.device.how.caps.clone(),
            sensitive: self.sensitive,
            default_sensitive: Some(SensitivePolicy::Allow),
            ..Flags::default()
        };
        let settings = Settings::load(self.config.as_deref(), &flags)?;
        // The model is checked before the phone is touched.
        let models = match self.strategy {
            StrategyArg::Llm => Some(self.roles.models(&settings.llm, &self.llm)?),
            StrategyArg::Systematic | StrategyArg::Random => None,
        };
        let device = settings.open_device()?;
        let traces = self.traces.start()?;
        let options = ExploreOptions {
            app: self.app.clone(),
            budget: self.budget,
            strategy: match self.strategy {
                StrategyArg::Systematic => Strategy::Systematic,
                StrategyArg::Random => Strategy::Random,
                StrategyArg::Llm => Strategy::Llm,
            },
            user,
            out_dir: self.out.clone(),
            keep_data: self.keep_data,
            screenshots: !self.no_screenshots,
            replay_findings: !self.no_replay,
            traces: traces.clone(),
            seed: self.seed,
            throttle: std::time::Duration::from_millis(self.throttle),
        };
        let runtime = super::interrupt::runtime()?;
        let interrupt = super::interrupt::cancel_on_signal(&runtime, "the exploration's records");
        let mut progress = |p: Progress<'_>| match p {
            Progress::Activity { activity, reached, declared } if declared > 0 => {
                codeact::errln!("activity {reached}/{declared}: {}", clean(activity));
            }
            Progress::Activity { activity, reached, .. } => codeact::errln!("activity {reached}: {}", clean(activity)),
            Progress::Finding(f) => {
                codeact::errln!("FOUND {}: {} (after {})", f.kind.word(), clean(&f.title), clean(&f.action))
            }
            Progress::Note(note) => codeact::errln!("note: {}", clean(note)),
            Progress::Planned { task, goal } => codeact::errln!("task {task}: {}", clean(goal)),
            Progress::Task { task, success, steps, reason, .. } => codeact::errln!(
                "task {task} {} after {steps} step{}: {}",
                if success { "done" } else { "failed" },
                if steps == 1 { "" } else { "s" },
                clean(reason)
            ),
            Progress::Reflected(note) => codeact::errln!("reviewer: {}", clean(note)),
            Progress::Action { .. } | Progress::Screen { .. } => {}
        };
        let request = ExploreRequest { device, settings: &settings, options: &options };
        let explored = match &models {
            None => explore::run(request, &interrupt.token, &mut progress),
            Some(models) => {
                let persona = settings.agent_persona()?;
                let setup = explore::ModelSetup {
                    models,
                    persona: &persona,
                    memory: self.memory.path(),
                    embeddings: self.memory.embeddings.clone(),
                    task_steps: self.task_steps as usize,
                    actor: match self.actor {
                        ActorArg::React => codeact::agent::Strategy::React,
                        ActorArg::Tree => codeact::agent::Strategy::Tree,
                    },
                    tree_depth: self.tree_depth as usize,
                    actions: self.actions,
                    reflect_every: self.reflect_every,
                    vision: self.vision.for_persona(&persona),
                    device_spec: settings.device.clone(),
                };
                runtime.block_on(explore::run_with_model(request, &setup, &interrupt.token, &mut progress))
            }
        };
        finish_traces(traces.as_deref());
        let summary = explored?;
        if self.json {
            codeact::outln!("{}", serde_json::to_string_pretty(&summary)?);
        } else {
            let c = &summary.coverage;
            let activities = match c.ratio() {
                Some(r) => format!("{}/{} activities ({:.0}%)", c.reached_declared(), c.declared.len(), 100.0 * r),
                None if c.reached.is_empty() => "no activities (the platform names none)".to_string(),
                None => format!("{} activities (the APK's list is not known)", c.reached.len()),
            };
            codeact::outln!(
                "explored {} with {} in {:.1} s ({}): {activities}, {}, {}",
                clean(&summary.app),
                counted(summary.actions, "action"),
                summary.seconds,
                summary.stopped.words(),
                counted(c.screens, "screen"),
                counted(c.widgets, "widget")
            );
            let missed = c.missed();
            if !missed.is_empty() {
                codeact::outln!("not reached: {}", clean(&missed.join(", ")));
            }
            for f in &summary.findings {
                let again = match f.reproduced {
                    Some(true) => ", reproduced",
                    Some(false) => ", not reproduced",
                    None => "",
                };
                codeact::outln!(
                    "{}: {} → {}{again}",
                    f.kind.word(),
                    clean(&f.title),
                    codeact::terminal::path(&summary.dir.join(&f.script))
                );
            }
            if !summary.tasks.is_empty() {
                let done = summary.tasks.iter().filter(|t| t.success).count();
                codeact::outln!("{}, {done} done", counted(summary.tasks.len(), "task"));
            }
            codeact::outln!(
                "{} in {}",
                counted(summary.tests.len(), "test"),
                codeact::terminal::path(&summary.dir.join("tests"))
            );
            codeact::outln!("report: {}", codeact::terminal::path(&summary.dir.join("report.html")));
        }
        if let Some(code) = interrupt.exit_code() {
            return Ok(ExitCode::from(code));
        }
        if let Some(error) = &summary.error {
            codeact::errln!(
                "codeact: the exploration stopped early: {}; what it found until then is in {}",
                clean(error),
                codeact::terminal::path(&summary.dir)
            );
            return Ok(ExitCode::from(super::exit::EXIT_ERROR));
        }
        Ok(if summary.findings.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(super::exit::EXIT_FAILED) })
    }
}
