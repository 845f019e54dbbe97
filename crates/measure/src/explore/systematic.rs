//! The systematic explorer: no model, a DroidBot-style walk. On each screen it
//! tries the actions not yet tried there (fields first, then taps top to bottom,
//! long presses, scrolls, Back last), records which screen each led to, and when a
//! screen has nothing left it starts the app clean and follows the shortest known
//! path to the nearest screen that has. Crashes and ANRs are caught as they show
//! (the dialog, and the device log for the exception), each with its shortest
//! reproduction. It is the baseline every model-driven number is compared with.

use std::collections::VecDeque;
use std::time::Instant;

use super::coverage::Coverage;
use super::findings::{self, Finding, FindingKind};
use super::graph::Graph;
use super::options::ExploreOptions;
use super::persona::UserPersona;
use super::progress::{Progress, StopReason};
use super::record::RunFolder;
use super::screen::{self, Candidate, Kind};
use super::walking;
use codeact_record::trajectory::Event;
use codeact_runtime::session::Session;

/// A step of a planned way back to a screen: the screen it starts on, and the action.
struct Planned {
    from: usize,
    action: Candidate,
}

/// What the walk does next on a screen.
enum Next {
    Act(Candidate),
    /// The app was started clean to follow a planned way: look again.
    Restarted,
    /// Everything reachable was tried.
    Done,
}

/// How many times the walk may fail to reach one screen again before giving it up.
const MAX_REACH_ATTEMPTS: usize = 2;

pub(super) struct Walk<'a> {
    pub session: &'a mut Session,
    pub options: &'a ExploreOptions,
    pub user: &'a UserPersona,
    pub folder: &'a mut RunFolder,
    pub progress: &'a mut dyn FnMut(Progress<'_>),
    pub stop: &'a dyn Fn() -> bool,
    pub graph: Graph,
    pub coverage: Coverage,
    pub findings: Vec<Finding>,
    pub actions: usize,
    started: Instant,
    /// The actions since the last clean start.
    episode: Vec<Candidate>,
    /// The same, each with the screen it was taken on; and for each screen, the
    /// way that first reached it. A screen that shows only after something was
    /// done on the way (an item in a cart) is reached again by that way when the
    /// graph's shortest path, which skips actions that stay on their screen, fails.
    way: Vec<(usize, Candidate)>,
    pub first_ways: std::collections::HashMap<usize, Vec<(usize, Candidate)>>,
    /// For each finding (by index), the episode that led to it, when it differs
    /// from the graph's shortest way: the reproduction to fall back on.
    episodes: std::collections::HashMap<usize, Vec<String>>,
    /// The screen an action was taken on and the action, until its outcome is seen.
    pending: Option<(usize, Candidate)>,
    plan: VecDeque<Planned>,
    /// Failed tries to reach each screen again; the screen a plan is heading for.
    reach_attempts: std::collections::HashMap<usize, usize>,
    heading_for: Option<usize>,
    log: findings::LogWatch,
    /// Back was pressed once to return to the app.
    left_once: bool,
    /// Restarts forget the app's data (not with `--keep-data`, nor where the
    /// platform cannot: iOS).
    pub clean: bool,
    /// Why the phone stopped the walk, when it did.
    pub failure: Option<String>,
}

impl<'a> Walk<'a> {
    pub(super) fn new(
        session: &'a mut Session,
        options: &'a ExploreOptions,
        user: &'a UserPersona,
        folder: &'a mut RunFolder,
        progress: &'a mut dyn FnMut(Progress<'_>),
        stop: &'a dyn Fn() -> bool,
        coverage: Coverage,
    ) -> Self {
        Self {
            session,
            options,
            user,
            folder,
            progress,
            stop,
            graph: Graph::default(),
            coverage,
            findings: Vec::new(),
            actions: 0,
            started: Instant::now(),
            episode: Vec::new(),
            way: Vec::new(),
            first_ways: Default::default(),
            episodes: Default::default(),
            pending: None,
            plan: VecDeque::new(),
            reach_attempts: Default::default(),
            heading_for: None,
            log: findings::LogWatch::default(),
            left_once: false,
            clean: !options.keep_data,
            failure: None,
        }
    }

    pub(super) fn elapsed(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Runs one action's code on the live screen; counts it and logs it.
    fn act(&mut self, screen_name: &str, code: &str, label: &str) -> bool {
        walking::act(self.session, self.folder, self.progress, &mut self.actions, (screen_name, code, label))
    }

    /// Starts the app clean (its data forgotten, unless `--keep-data`); where its
    /// data cannot be forgotten (iOS), stopped and started from then on.
    fn restart(&mut self, reason: &str) {
        self.folder.event(&Event::Restart { step: self.folder.step(), reason: reason.into() });
        let started = self.act("-", &screen::start_line(&self.options.app, self.clean), "start the app");
        if !started && self.clean {
            self.clean = false;
            (self.progress)(Progress::Note(
                "the app's data cannot be cleared here: each restart keeps it, and the paths found start from it",
            ));
            self.act("-", &screen::start_line(&self.options.app, false), "start the app");
        }
        self.episode.clear();
        self.way.clear();
        self.pending = None;
        self.left_once = false;
    }

    /// Remembers what the log held before the walk, so old crashes are not news.
    pub(super) fn note_old_log(&mut self) {
        self.log.note_old(self.session, &self.options.app);
    }

    /// The steps from a clean start to `state`, then `action`: the graph's shortest
    /// path when it has one, else what this episode did.
    fn steps_to(&self, state: usize, action: &Candidate) -> Vec<String> {
        let mut steps: Vec<String> = match self.graph.start.and_then(|s| self.graph.path(s, state)) {
            Some(path) => path.iter().map(|e| self.graph.edges[*e].code.clone()).collect(),
            None => self.episode.iter().take(self.episode.len().saturating_sub(1)).map(|c| c.code.clone()).collect(),
        };
        steps.push(action.code.clone());
        steps
    }

    /// Records a finding (once per kind, screen and action) with its reproduction.
    fn found(&mut self, kind: FindingKind, title: String, exception: Option<String>) {
        let Some((state, action)) = self.pending.clone() else { return };
        let activity = self.graph.states.get(state).map(|s| s.activity.clone()).unwrap_or_default();
        let (at, steps) = ((self.actions, self.elapsed()), self.steps_to(state, &action));
        let mut finding =
            Finding::new((kind, title, exception), (activity, action.code), at, steps, self.findings.len() + 1);
        if self.findings.iter().any(|f| f.same_as(&finding)) {
            return;
        }
        let lived: Vec<String> = self.episode.iter().map(|c| c.code.clone()).collect();
        if lived != finding.steps {
            self.episodes.insert(self.findings.len(), lived);
        }
        self.folder.keep_finding(&mut finding, &self.options.app, self.clean);
        (self.progress)(Progress::Finding(&finding));
        self.findings.push(finding);
    }

    /// Looks for a crash or ANR after the last action; true when one was handled
    /// (and the app started again).
    fn caught_failure(&mut self, obs: &codeact_platform::device::Observation) -> bool {
        let acted = self.pending.as_ref().is_some_and(|(_, a)| a.kind != Kind::Back);
        let Some((kind, title, detail)) = self.log.failure_after(self.session, obs, &self.options.app, acted) else {
            return false;
        };
        self.found(kind, title, detail);
        // Close the dialog (the app is gone or hung), then start clean.
        self.act("-", findings::CLOSE_DIALOG, "close the failure dialog");
        self.restart("after a failure");
        true
    }

    /// The walk, until the budget is spent, everything reachable was tried, or a stop.
    /// A phone that stops answering ends the walk with `DeviceFailed` (the error in
    /// `failure`): what was found until then is kept.
    pub(super) fn run(&mut self) -> StopReason {
        self.restart("start");
        loop {
            let obs = match walking::look(self.session, self.options, self.stop, self.actions, self.started) {
                Ok(obs) => obs,
                Err((stopped, failure)) => {
                    self.failure = failure;
                    return stopped;
                }
            };
            let seconds = self.elapsed();
            if self.caught_failure(&obs) {
                self.coverage.sample(self.actions, seconds);
                continue;
            }
            if obs.phone.package != self.options.app {
                // Left the app (a link, a share sheet, Back past its first screen).
                self.pending = None;
                self.plan.clear();
                if self.left_once {
                    self.restart("left the app");
                } else {
                    self.left_once = true;
                    self.act("-", "back()", "press Back to return to the app");
                }
                continue;
            }
            self.left_once = false;
            let key = screen::screen_key(&obs);
            let activity = screen::activity_of(&obs);
            let shot = if screen::has_canvas(&obs, &self.options.app) { self.session.screenshot().ok() } else { None };
            let offered = screen::candidates(&obs, &self.options.app, self.user, shot.as_deref());
            let (id, new) = self.graph.visit(key, &activity, offered, self.actions);
            if self.graph.start.is_none() {
                self.graph.start = Some(id);
            }
            if let Some((from, action)) = self.pending.take() {
                self.graph.add_edge(from, &action, id);
            }
            if self.heading_for == Some(id) {
                // Reached again: only failures count against a screen.
                self.reach_attempts.remove(&id);
                self.heading_for = None;
            }
            let before = self.coverage.reached.len();
            self.coverage.reach(&activity, self.actions);
            if new {
                self.first_ways.insert(id, self.way.clone());
                self.coverage.screens += 1;
                self.graph.states[id].anchor = screen::anchor(&obs, &self.options.app);
                self.on_new_screen(id);
            }
            if self.coverage.reached.len() > before {
                let (reached, declared) = (self.coverage.reached_declared(), self.coverage.declared.len());
                let step = self.folder.step();
                self.folder.event(&Event::Activity { step, activity: activity.as_str().into(), reached, declared });
                (self.progress)(Progress::Activity { activity: &activity, reached, declared });
            }
            self.coverage.sample(self.actions, seconds);
            let action = match self.next_action(id) {
                Next::Act(action) => action,
                Next::Restarted => continue,
                Next::Done => return StopReason::Exhausted,
            };
            let name = self.graph.states[id].name.clone();
            self.graph.mark_tried(id, action.key);
            self.coverage.exercised(action.widget);
            self.pending = Some((id, action.clone()));
            self.episode.push(action.clone());
            // A way to take again holds what did something: an action that failed
            // (its element gone) would fail a replay too.
            if self.act(&name, &action.code, &action.label) {
                self.way.push((id, action.clone()));
            }
        }
    }

    /// What to do on state `id`: the planned way's next step, else an untried action
    /// here, else start the app clean and plan the shortest way to the nearest
    /// screen with actions left. `Done` when nothing reachable is left.
    fn next_action(&mut self, id: usize) -> Next {
        if let Some(step) = self.plan.pop_front() {
            if step.from == id {
                return Next::Act(step.action);
            }
            // The way diverged: plan again from here.
            self.plan.clear();
        }
        if let Some(action) = self.graph.next_untried(id) {
            return Next::Act(action);
        }
        loop {
            let Some((target, path)) = self.graph.nearest_unfinished() else { return Next::Done };
            let attempts = self.reach_attempts.entry(target).or_insert(0);
            *attempts += 1;
            if *attempts > MAX_REACH_ATTEMPTS {
                self.graph.abandon(target);
                continue;
            }
            self.plan = match self.first_ways.get(&target) {
                // The shortest path failed once: the way that first got there.
                Some(way) if *attempts > 1 => {
                    way.iter().map(|(from, action)| Planned { from: *from, action: action.clone() }).collect()
                }
                _ => path.iter().map(|e| self.planned(*e)).collect(),
            };
            self.heading_for = Some(target);
            // Just started clean on the first screen: the way starts here.
            if self.episode.is_empty()
                && self.graph.start == Some(id)
                && let Some(step) = self.plan.pop_front()
            {
                return Next::Act(step.action);
            }
            self.restart("to reach a screen with actions left");
            return Next::Restarted;
        }
    }

    /// Edge `e` as a step to take again.
    fn planned(&self, e: usize) -> Planned {
        let edge = &self.graph.edges[e];
        let action = self.graph.states[edge.from].candidates.iter().find(|c| c.code == edge.code).cloned().unwrap_or(
            Candidate { key: 0, kind: edge.kind, code: edge.code.clone(), widget: 0, label: edge.label.clone() },
        );
        Planned { from: edge.from, action }
    }

    /// A screen seen for the first time: its screenshot, an event, a progress line.
    fn on_new_screen(&mut self, id: usize) {
        walking::new_screen(self.session, self.folder, self.progress, self.options, &mut self.graph, id);
    }
}

impl Walk<'_> {
    /// Runs each finding's steps again from a clean start and says whether the
    /// failure came back. These actions are counted apart from the budget's.
    pub(super) fn replay_findings(&mut self) {
        for i in 0..self.findings.len() {
            if (self.stop)() {
                break;
            }
            self.folder.event(&Event::Restart { step: self.folder.step(), reason: "to replay a finding".into() });
            let mut again = findings::happens_again(self.session, &self.options.app, self.clean, &self.findings[i]);
            // The shortest way skips what was done on a screen before leaving it:
            // the actions that actually led there, when they do it again.
            if !again && let Some(lived) = self.episodes.get(&i) {
                let mut as_lived = self.findings[i].clone();
                as_lived.steps = lived.clone();
                self.folder.event(&Event::Restart { step: self.folder.step(), reason: "to replay a finding".into() });
                if findings::happens_again(self.session, &self.options.app, self.clean, &as_lived) {
                    again = true;
                    let script = findings::reproduction_script(&self.options.app, &as_lived, self.clean);
                    if self.folder.write(&as_lived.script, script.as_bytes()).is_ok() {
                        self.findings[i] = as_lived;
                    }
                }
            }
            self.findings[i].reproduced = Some(again);
        }
    }
}

/// The way the walk lived to screen `to` (each step with the screen it was taken
/// on) as test steps: first without its visits that came straight back (a tap to
/// another screen, then Back to the same one), then whole.
pub(super) fn lived_ways(way: &[(usize, Candidate)], to: usize) -> Vec<Vec<super::export::WayStep>> {
    let screen_after = |i: usize| way.get(i + 1).map_or(to, |(from, _)| *from);
    let mut pruned = Vec::new();
    let mut i = 0;
    while i < way.len() {
        let (from, action) = &way[i];
        let straight_back = way
            .get(i + 1)
            .is_some_and(|(there, back)| back.kind == Kind::Back && there != from && screen_after(i + 1) == *from);
        if straight_back {
            i += 2;
            continue;
        }
        pruned.push((action.code.clone(), action.label.clone()));
        i += 1;
    }
    let whole: Vec<super::export::WayStep> = way.iter().map(|(_, c)| (c.code.clone(), c.label.clone())).collect();
    if pruned == whole { vec![whole] } else { vec![pruned, whole] }
}
