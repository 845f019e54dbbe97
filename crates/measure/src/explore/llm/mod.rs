//! `codeact explore --strategy llm`: plan → act → observe → reflect. Before each
//! task the app is started clean; the planner (`planner.rs`) picks the next task
//! from the user it plays, the activities reached and not, the tasks done and
//! what each changed, the widget knowledge and the reflector's notes; the agent
//! does it (`actor.rs`: `agent::run_task` with its watchers, gates, step budget,
//! its own run folder); the observer (`observer.rs`) states what each action changed and
//! which activities it reached; every N tasks the reflector (`reflector.rs`)
//! critiques, and its note steers the planner. Memory (`knowledge.rs`) keeps what
//! was learned for the next exploration. A completed task becomes a test; a crash
//! or ANR on the way becomes a finding with its reproduction (`failures.rs`).
//!
//! Not the systematic walk (`systematic.rs`), nor the agent's loop itself.

mod actor;
mod failures;
mod knowledge;
mod observer;
mod planner;
mod reflector;

use std::sync::Arc;
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use super::coverage::Coverage;
use super::export::TestFound;
use super::findings::{self, Finding, LogWatch};
use super::graph::Graph;
use super::options::ExploreOptions;
use super::progress::{Explored, Progress, StopReason};
use super::record::RunFolder;
use super::report::TaskView;
use super::screen::{self, Candidate, Kind};
use codeact_agent::{self as agent, Outcome, Role};
use codeact_record::trajectory::Event;
use codeact_record::trajectory::StepRecord;
use codeact_runtime::session::Session;
use planner::{DoneTask, Plan};

pub use super::options::ModelSetup;
pub use knowledge::Knowledge;
pub use observer::{TaskObservation, observe};

/// A planner that proposes a task already done this many times in a row has
/// nothing new: the exploration ends.
const MAX_REPEATS: usize = 2;

struct Cycle<'a, 'p> {
    session: &'a mut Session,
    options: &'a ExploreOptions,
    setup: &'a ModelSetup<'a>,
    folder: &'a mut RunFolder,
    progress: &'p mut dyn FnMut(Progress<'_>),
    /// Cancelled on Ctrl-C: a task in flight ends as interrupted, no other starts.
    cancel: &'a CancellationToken,
    label: Option<&'a str>,
    knowledge: Knowledge,
    log: LogWatch,
    done: Vec<DoneTask>,
    tasks: Vec<TaskView>,
    tests: Vec<TestFound>,
    findings: Vec<Finding>,
    /// This run's reflector notes, newest first.
    notes: Vec<String>,
    graph: Graph,
    coverage: Coverage,
    actions: usize,
    started: Instant,
    clean: bool,
}

/// Runs the cycle until the budget is spent, the planner has nothing left, or a stop.
#[allow(clippy::too_many_arguments)]
pub(super) async fn explore(
    session: &mut Session,
    options: &ExploreOptions,
    setup: &ModelSetup<'_>,
    folder: &mut RunFolder,
    label: Option<&str>,
    coverage: Coverage,
    progress: &mut dyn FnMut(Progress<'_>),
    cancel: &CancellationToken,
) -> Explored {
    let knowledge = match Knowledge::open(setup.memory.as_deref()) {
        Ok(k) => k,
        Err(e) => {
            progress(Progress::Note(&format!(
                "the memory database could not be opened ({}); nothing is read back or kept",
                codeact_base::error_text::full_message(&e)
            )));
            Knowledge::none()
        }
    };
    let mut cycle = Cycle {
        session,
        options,
        setup,
        folder,
        progress,
        cancel,
        label,
        knowledge,
        log: LogWatch::default(),
        done: Vec::new(),
        tasks: Vec::new(),
        tests: Vec::new(),
        findings: Vec::new(),
        notes: Vec::new(),
        graph: Graph::default(),
        coverage,
        actions: 0,
        started: Instant::now(),
        clean: !options.keep_data,
    };
    cycle.log.note_old(cycle.session, &options.app);
    let (stopped, error) = cycle.run().await;
    if options.replay_findings && matches!(stopped, StopReason::Budget | StopReason::NothingLeft) {
        for i in 0..cycle.findings.len() {
            if cancel.is_cancelled() {
                break;
            }
            let again = findings::happens_again(cycle.session, &options.app, cycle.clean, &cycle.findings[i]);
            cycle.findings[i].reproduced = Some(again);
        }
    }
    Explored {
        seconds: cycle.started.elapsed().as_secs_f64(),
        graph: cycle.graph,
        coverage: cycle.coverage,
        findings: cycle.findings,
        tests: cycle.tests,
        tasks: cycle.tasks,
        actions: cycle.actions,
        stopped,
        error,
    }
}

impl Cycle<'_, '_> {
    fn app(&self) -> &str {
        &self.options.app
    }

    /// Starts the app clean (or, where data cannot be cleared, stopped and started);
    /// the screen it shows, or why the phone did not answer.
    fn restart(&mut self) -> Result<Arc<codeact_platform::device::Observation>, String> {
        self.folder.event(&Event::Restart { step: self.folder.step(), reason: "before a task".into() });
        let mut result = self.folder.act(self.session, &screen::start_line(self.app(), self.clean), "start the app");
        if result.error.is_some() && self.clean {
            self.clean = false;
            (self.progress)(Progress::Note(
                "the app's data cannot be cleared here: each task starts from what the last one left",
            ));
            result = self.folder.act(self.session, &screen::start_line(self.app(), false), "start the app");
        }
        self.actions += result.actions.len().max(1);
        self.session.observe(false).map_err(|e| codeact_base::error_text::full_message(&e))
    }

    /// A screen seen: counted, in the graph, its activity reached. Returns its state.
    fn saw(&mut self, obs: &codeact_platform::device::Observation) -> usize {
        let activity = screen::activity_of(obs);
        let offered = screen::candidates(obs, self.app(), &self.options.user, None);
        let (id, new) = self.graph.visit(screen::screen_key(obs), &activity, offered, self.actions);
        if new {
            self.coverage.screens += 1;
            self.graph.states[id].anchor = screen::anchor(obs, self.app());
            if self.options.screenshots
                && let Ok(png) = self.session.screenshot()
            {
                let file = format!("screens/{}.png", self.graph.states[id].name);
                if self.folder.write(&file, &png).is_ok() {
                    self.graph.states[id].screenshot = Some(file);
                }
            }
            let name = self.graph.states[id].name.clone();
            let shot = self.graph.states[id].screenshot.clone();
            self.folder.event(&Event::NewScreen {
                step: self.folder.step(),
                screen: name.as_str().into(),
                activity: activity.as_str().into(),
                screenshot: shot,
            });
        }
        if obs.phone.package == self.options.app {
            self.reach(&activity);
        }
        id
    }

    fn reach(&mut self, activity: &str) {
        let before = self.coverage.reached.len();
        self.coverage.reach(activity, self.actions);
        if self.coverage.reached.len() > before {
            let (reached, declared) = (self.coverage.reached_declared(), self.coverage.declared.len());
            self.folder.event(&Event::Activity {
                step: self.folder.step(),
                activity: activity.into(),
                reached,
                declared,
            });
            (self.progress)(Progress::Activity { activity, reached, declared });
        }
    }

    async fn run(&mut self) -> (StopReason, Option<String>) {
        let mut repeats = 0;
        let mut told_repeat: Option<String> = None;
        loop {
            if self.cancel.is_cancelled() {
                return (StopReason::Interrupted, None);
            }
            if self.options.budget.spent(self.actions, self.started.elapsed()) {
                return (StopReason::Budget, None);
            }
            let first = match self.restart() {
                Ok(obs) => obs,
                Err(e) => return (StopReason::DeviceFailed, Some(e)),
            };
            let start_state = self.saw(&first);
            self.coverage.sample(self.actions, self.started.elapsed().as_secs_f64());
            let mut screen = first.screen_text();
            if let Some(goal) = &told_repeat {
                screen.push_str(&format!("\n\n(\"{goal}\" was done already: choose a different task.)"));
            }
            let goal = match self.plan(&screen).await {
                Ok(Plan::Task(goal)) => goal,
                Ok(Plan::Done(why)) => {
                    let note = if why.is_empty() { "the planner has nothing left to try".into() } else { why };
                    (self.progress)(Progress::Note(&format!("the planner is done: {note}")));
                    return (StopReason::NothingLeft, None);
                }
                Err(e) => return (StopReason::ModelFailed, Some(e)),
            };
            if self.done.iter().any(|t| t.goal.eq_ignore_ascii_case(&goal)) {
                repeats += 1;
                if repeats >= MAX_REPEATS {
                    (self.progress)(Progress::Note(&format!(
                        "the planner proposed \"{goal}\" again: it has nothing new"
                    )));
                    return (StopReason::NothingLeft, None);
                }
                told_repeat = Some(goal);
                continue;
            }
            (repeats, told_repeat) = (0, None);
            let n = self.done.len() + 1;
            self.folder.event(&Event::Planned { step: self.folder.step(), task: n, goal: goal.as_str().into() });
            (self.progress)(Progress::Planned { task: n, goal: &goal });
            let (summary, records) = match self.act(&goal).await {
                Ok(done) => done,
                Err(e) => return (StopReason::RecordFailed, Some(e)),
            };
            let seen = observe(&records);
            self.actions += seen.actions;
            let outcome = self.learn(n, &goal, &summary, &records, &seen, start_state);
            if let Some(stopped) = outcome {
                return stopped;
            }
            if self.setup.reflect_every > 0 && n.is_multiple_of(self.setup.reflect_every) {
                self.reflect().await;
            }
        }
    }

    /// Asks the planner for the next task.
    async fn plan(&mut self, screen: &str) -> Result<Plan, String> {
        let app = self.app().to_string();
        let widgets = self.knowledge.widgets(&app);
        let earlier = self.knowledge.tasks_done(&app);
        let mut notes = self.notes.clone();
        notes.extend(self.knowledge.notes(&app).into_iter().filter(|n| !self.notes.contains(n)));
        notes.truncate(3);
        let view = planner::PlannerView {
            app: &app,
            label: self.label,
            user: &self.options.user,
            coverage: &self.coverage,
            done: &self.done,
            earlier: &earlier,
            widgets: &widgets,
            notes: &notes,
            screen,
        };
        let messages = planner::messages(&view);
        // A reply that names no task is asked for once more.
        for _ in 0..2 {
            let reply = self.ask(Role::Planner, &messages).await?;
            if let Some(plan) = planner::parse(&reply) {
                return Ok(plan);
            }
        }
        Err("the planner's replies named no task (it must answer `TASK: …` or `DONE: …`)".into())
    }

    async fn ask(&self, role: Role, messages: &[codeact_runtime::llm::Message]) -> Result<String, String> {
        let client = self.setup.models.client(role);
        tokio::select! {
            reply = client.complete(messages) => reply
                .map(|r| r.text)
                .map_err(|e| format!("the {} model: {}", role.as_str(), codeact_base::error_text::full_message(&e))),
            () = self.cancel.cancelled() => Err("interrupted".into()),
        }
    }

    /// The agent does `goal` (see `actor.rs`).
    async fn act(&mut self, goal: &str) -> Result<(agent::RunSummary, Vec<StepRecord>), String> {
        let memory = self.setup.memory.clone().filter(|_| self.knowledge.is_on());
        let done =
            actor::do_task(self.session, self.setup, self.cancel, &self.folder.dir().join("tasks"), memory, goal).await;
        // The task's run folder took the session's actions; the exploration's takes them back.
        self.session.set_action_sink(Some(self.folder.action_sink()));
        done
    }

    /// What the task did: coverage, the graph, findings, its test, the records.
    /// `Some` when the exploration must stop.
    fn learn(
        &mut self,
        n: usize,
        goal: &str,
        summary: &agent::RunSummary,
        records: &[StepRecord],
        seen: &TaskObservation,
        start_state: usize,
    ) -> Option<(StopReason, Option<String>)> {
        for (package, activity) in &seen.activities {
            if package == &self.options.app {
                let activity = screen::qualify(package, activity);
                self.reach(&activity);
            }
        }
        for element in &seen.elements {
            let mut h = codeact_platform::ui::StableHasher::default();
            h.field(self.options.app.as_bytes()).field(element.as_bytes());
            self.coverage.exercised(h.finish());
        }
        let success = summary.outcome == Outcome::Success;
        let run = summary
            .run_dir
            .strip_prefix(self.folder.dir())
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| summary.run_dir.display().to_string());
        self.folder.event(&Event::Task {
            step: self.folder.step(),
            task: n,
            goal: goal.into(),
            success,
            steps: summary.steps,
            run: run.as_str().into(),
            effects: seen.lines.as_slice().into(),
        });
        (self.progress)(Progress::Task { task: n, goal, success, steps: summary.steps, reason: &summary.reason });
        // The agent's own ending says when exploring cannot go on.
        let stop = match &summary.ending {
            agent::Ending::Interrupted { .. } => Some((StopReason::Interrupted, None)),
            agent::Ending::DeviceLost(message) => Some((StopReason::DeviceFailed, Some(message.clone()))),
            agent::Ending::LlmFailed { message, .. } => {
                Some((StopReason::ModelFailed, Some(format!("the actor model: {message}"))))
            }
            _ => None,
        };
        // Where the task left the phone: a screen, and maybe a failure.
        match self.session.observe(false) {
            Ok(end) => {
                let end_state = self.saw(&end);
                let edge =
                    Candidate { key: 0, kind: Kind::Tap, code: String::new(), label: goal.to_string(), widget: 0 };
                self.graph.add_edge(start_state, &edge, end_state);
                self.caught_failures(&end, goal, records, seen);
            }
            Err(e) if stop.is_none() => {
                return Some((StopReason::DeviceFailed, Some(codeact_base::error_text::full_message(&e))));
            }
            Err(_) => {}
        }
        let mut note = codeact_base::terminal::clean(&summary.reason).into_owned();
        if success {
            match self.write_test(n, goal, &summary.run_dir, records.len()) {
                Some(file) => note = format!("{note} (test {file})"),
                None => note = format!("{note} (no test: its script could not be read)"),
            }
        }
        self.tasks.push(TaskView { goal: goal.to_string(), success, steps: summary.steps, run: Some(run), note });
        self.done.push(DoneTask { goal: goal.to_string(), success, effects: seen.told() });
        self.coverage.sample(self.actions, self.started.elapsed().as_secs_f64());
        stop
    }

    /// A completed task as a test: its selector script after a clean start.
    fn write_test(&mut self, n: usize, goal: &str, run_dir: &std::path::Path, steps: usize) -> Option<String> {
        let script = std::fs::read_to_string(run_dir.join("script.selectors.rhai")).ok()?;
        let (file, text) = super::export::task_test(n, self.app(), goal, self.clean, &script);
        self.folder.write(&file, text.as_bytes()).ok()?;
        self.tests.push(TestFound { file: file.clone(), goal: goal.to_string(), steps });
        Some(file)
    }

    /// The reflector's note on the tasks so far, kept for the planner and memory.
    async fn reflect(&mut self) {
        let messages = reflector::messages(self.app(), &self.done, &self.coverage);
        let note = match self.ask(Role::Reflector, &messages).await {
            Ok(reply) => reflector::note(&reply),
            Err(e) => {
                (self.progress)(Progress::Note(&format!("no reflection: {e}")));
                None
            }
        };
        let Some(note) = note else { return };
        self.folder.event(&Event::Reflection { step: self.folder.step(), text: note.as_str().into() });
        (self.progress)(Progress::Reflected(&note));
        if let Err(e) = self.knowledge.keep_note(&self.options.app, &note) {
            (self.progress)(Progress::Note(&format!(
                "the note was not kept in memory: {}",
                codeact_base::error_text::full_message(&e)
            )));
        }
        self.notes.insert(0, note);
    }
}
