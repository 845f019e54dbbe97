//! The random explorer: the baseline every exploration paper measures against,
//! Android's Monkey — random events at a fixed rate (`throttle`), no model and no
//! memory of what it did: taps, long presses and swipes at random points, Back,
//! text typed into whatever has focus, a key, now and then the app started again.
//! An event that takes it out of the app starts the app again (Monkey keeps to its
//! package the same way). It looks at the screen after each event only to measure
//! (activities, screens, widgets hit) and to catch crashes and ANRs, each kept with
//! the events since the last clean start as its reproduction. Seeded: the same seed
//! gives the same events. Not the systematic walk (`systematic.rs`).

use std::time::Instant;

use super::coverage::Coverage;
use super::findings::{self, Finding, FindingKind, LogWatch};
use super::graph::Graph;
use super::options::ExploreOptions;
use super::progress::{Explored, Progress, StopReason};
use super::record::RunFolder;
use super::screen::{self, Candidate, Kind};
use super::walking;
use codeact_base::rng::Rng;
use codeact_platform::device::Observation;
use codeact_platform::ui::StableHasher;
use codeact_record::trajectory::Event;
use codeact_runtime::session::Session;
use codeact_tools::call::ToolCall;

/// What it types into a focused field: words of the kinds forms ask for.
const WORDS: &[&str] = &["hello", "42", "2023-10-20", "09:30", "ada@example.com", "Alice", "12.50", "x"];
const KEYS: &[&str] = &["enter", "tab", "delete"];

struct Monkey<'a> {
    session: &'a mut Session,
    options: &'a ExploreOptions,
    folder: &'a mut RunFolder,
    progress: &'a mut dyn FnMut(Progress<'_>),
    stop: &'a dyn Fn() -> bool,
    rng: Rng,
    graph: Graph,
    coverage: Coverage,
    findings: Vec<Finding>,
    actions: usize,
    started: Instant,
    /// The events since the last clean start: a finding's reproduction.
    episode: Vec<String>,
    /// The screen the last event was sent on, and the event.
    pending: Option<(usize, Candidate)>,
    log: LogWatch,
    failure: Option<String>,
    /// Restarts forget the app's data (not with `--keep-data`, nor where the
    /// platform cannot: iOS, found out at the first clean start).
    clean: bool,
}

/// Explores `options.app` with random events until the budget is spent or a stop.
pub(super) fn explore(
    session: &mut Session,
    options: &ExploreOptions,
    folder: &mut RunFolder,
    progress: &mut dyn FnMut(Progress<'_>),
    stop: &dyn Fn() -> bool,
    coverage: Coverage,
) -> Explored {
    let mut monkey = Monkey {
        session,
        options,
        folder,
        progress,
        stop,
        rng: Rng::new(options.seed),
        graph: Graph::default(),
        coverage,
        findings: Vec::new(),
        actions: 0,
        started: Instant::now(),
        episode: Vec::new(),
        pending: None,
        log: LogWatch::default(),
        failure: None,
        clean: !options.keep_data,
    };
    monkey.log.note_old(monkey.session, &options.app);
    let stopped = monkey.run();
    let seconds = monkey.started.elapsed().as_secs_f64();
    if options.replay_findings && stopped == StopReason::Budget {
        for i in 0..monkey.findings.len() {
            if (monkey.stop)() {
                break;
            }
            let step = monkey.folder.step();
            monkey.folder.event(&Event::Restart { step, reason: "to replay a finding".into() });
            let again = findings::happens_again(monkey.session, &options.app, monkey.clean, &monkey.findings[i]);
            monkey.findings[i].reproduced = Some(again);
        }
    }
    Explored {
        graph: monkey.graph,
        coverage: monkey.coverage,
        findings: monkey.findings,
        tests: Vec::new(),
        tasks: Vec::new(),
        actions: monkey.actions,
        seconds,
        stopped,
        error: monkey.failure,
    }
}

impl Monkey<'_> {
    fn act(&mut self, screen_name: &str, code: &str, label: &str) -> bool {
        walking::act(self.session, self.folder, self.progress, &mut self.actions, (screen_name, code, label))
    }

    /// Starts the app: clean (its data forgotten) at the start and after a failure,
    /// as it is, when an event left it.
    fn start_app(&mut self, clean: bool, reason: &str) {
        self.folder.event(&Event::Restart { step: self.folder.step(), reason: reason.into() });
        let clean = clean && self.clean;
        let line = screen::start_line(&self.options.app, clean);
        if !self.act("-", &line, "start the app") && clean {
            // Where data cannot be cleared (iOS): stopped and started, from now on.
            self.clean = false;
            (self.progress)(Progress::Note("the app's data cannot be cleared here: each restart keeps it"));
            self.act("-", &screen::start_line(&self.options.app, false), "start the app");
        }
        if clean {
            self.episode.clear();
        } else {
            self.episode.push(line);
        }
        self.pending = None;
    }

    fn run(&mut self) -> StopReason {
        self.start_app(true, "start");
        loop {
            let obs = match walking::look(self.session, self.options, self.stop, self.actions, self.started) {
                Ok(obs) => obs,
                Err((stopped, failure)) => {
                    self.failure = failure;
                    return stopped;
                }
            };
            let seconds = self.started.elapsed().as_secs_f64();
            let acted = self.pending.as_ref().is_some_and(|(_, a)| a.kind != Kind::Back);
            if let Some((kind, title, detail)) = self.log.failure_after(self.session, &obs, &self.options.app, acted) {
                self.found(kind, title, detail, seconds);
                self.act("-", findings::CLOSE_DIALOG, "close the failure dialog");
                self.start_app(true, "after a failure");
                continue;
            }
            if obs.phone.package != self.options.app {
                self.start_app(false, "an event left the app");
                continue;
            }
            let id = self.see(&obs);
            self.coverage.sample(self.actions, seconds);
            let event = self.next_event(&obs);
            self.coverage.exercised(event.widget);
            let name = self.graph.states[id].name.clone();
            self.pending = Some((id, event.clone()));
            self.episode.push(event.code.clone());
            self.act(&name, &event.code, &event.label);
            if !self.options.throttle.is_zero() {
                std::thread::sleep(self.options.throttle);
            }
        }
    }

    /// Counts the screen in front: its state in the graph (new ones with an event,
    /// their screenshot and an anchor for the tests), the activity reached.
    fn see(&mut self, obs: &Observation) -> usize {
        let activity = screen::activity_of(obs);
        let (id, new) = self.graph.visit(screen::screen_key(obs), &activity, Vec::new(), self.actions);
        if self.graph.start.is_none() {
            self.graph.start = Some(id);
        }
        if let Some((from, event)) = self.pending.take() {
            self.graph.add_edge(from, &event, id);
        }
        let before = self.coverage.reached_declared();
        self.coverage.reach(&activity, self.actions);
        if new {
            self.coverage.screens += 1;
            self.graph.states[id].anchor = screen::anchor(obs, &self.options.app);
            walking::new_screen(self.session, self.folder, self.progress, self.options, &mut self.graph, id);
        }
        let reached = self.coverage.reached_declared();
        if reached > before {
            let declared = self.coverage.declared.len();
            let step = self.folder.step();
            self.folder.event(&Event::Activity { step, activity: activity.as_str().into(), reached, declared });
            (self.progress)(Progress::Activity { activity: &activity, reached, declared });
        }
        id
    }

    /// A point anywhere between the status and navigation bars, as fractions.
    fn point(&mut self) -> (f64, f64) {
        let x = self.rng.between(0, 999) as f64 / 1000.0;
        let y = self.rng.between(50, 949) as f64 / 1000.0;
        (x, y)
    }

    /// The next random event: Monkey's mix, more or less (taps most, then swipes,
    /// Back, typing, keys, long presses, and the app started again now and then).
    fn next_event(&mut self, obs: &Observation) -> Candidate {
        let roll = self.rng.between(0, 99);
        let focused = obs.ui.elements.iter().find(|e| e.visible && e.focused && e.actions.set_text);
        let (kind, code, widget, label) = match roll {
            0..=49 | 95.. => {
                let (x, y) = self.point();
                (Kind::Tap, ToolCall::tap_fraction(x, y).expr(), widget_at(obs, x, y), format!("tap at {x:.3}, {y:.3}"))
            }
            50..=52 => {
                let (x, y) = self.point();
                let code = ToolCall::long_press_fraction(x, y, 600).expr();
                (Kind::LongPress, code, widget_at(obs, x, y), format!("long-press at {x:.3}, {y:.3}"))
            }
            53..=67 => {
                let ((x1, y1), (x2, y2)) = (self.point(), self.point());
                let code = ToolCall::swipe_fractions((x1, y1), (x2, y2), 200).expr();
                (Kind::Scroll, code, widget_at(obs, x1, y1), "swipe".to_string())
            }
            68..=77 => (Kind::Back, ToolCall::back().expr(), 0, "press Back".to_string()),
            78..=87 => match focused {
                Some(field) => {
                    let word = self.rng.pick(WORDS).copied().unwrap_or("x");
                    let code = ToolCall::input_text(word).expr();
                    (Kind::Type, code, field.signature, format!("type {word:?}"))
                }
                None => {
                    let (x, y) = self.point();
                    let code = ToolCall::tap_fraction(x, y).expr();
                    (Kind::Tap, code, widget_at(obs, x, y), format!("tap at {x:.3}, {y:.3}"))
                }
            },
            88..=92 => {
                let key = self.rng.pick(KEYS).copied().unwrap_or("enter");
                (Kind::Tap, ToolCall::press_key(key).expr(), 0, format!("press {key}"))
            }
            _ => {
                let line = ToolCall::start_app(&self.options.app).expr();
                (Kind::Back, line, 0, "start the app again".to_string())
            }
        };
        let mut h = StableHasher::default();
        h.field(code.as_bytes());
        Candidate { key: h.finish(), kind, code, widget, label }
    }

    /// Records a failure once per kind, screen and event, with the events since the
    /// last clean start as its reproduction.
    fn found(&mut self, kind: FindingKind, title: String, exception: Option<String>, seconds: f64) {
        let Some((state, event)) = self.pending.clone() else { return };
        let activity = self.graph.states.get(state).map(|s| s.activity.clone()).unwrap_or_default();
        let at = (self.actions, seconds);
        let mut finding = Finding::new(
            (kind, title, exception),
            (activity, event.code),
            at,
            self.episode.clone(),
            self.findings.len() + 1,
        );
        // Random points hit one widget at many coordinates: one failure, once.
        let same = |f: &Finding| {
            f.kind == finding.kind
                && f.activity == finding.activity
                && f.title == finding.title
                && f.exception == finding.exception
        };
        if self.findings.iter().any(same) {
            return;
        }
        self.folder.keep_finding(&mut finding, &self.options.app, self.clean);
        (self.progress)(Progress::Finding(&finding));
        self.findings.push(finding);
    }
}

/// The signature of the smallest element of the app under a point (fractions of
/// the screen) that reacts to touch; 0 when the point hits nothing that does.
fn widget_at(obs: &Observation, fx: f64, fy: f64) -> u64 {
    let (w, h) = (f64::from(obs.ui.screen.0), f64::from(obs.ui.screen.1));
    let (x, y) = ((fx * w) as i32, (fy * h) as i32);
    obs.ui
        .elements
        .iter()
        .filter(|e| e.visible && (e.actions.touch || e.actions.long_touch))
        .filter(|e| e.bounds.left <= x && x < e.bounds.right && e.bounds.top <= y && y < e.bounds.bottom)
        .min_by_key(|e| i64::from(e.bounds.width()) * i64::from(e.bounds.height()))
        .map_or(0, |e| e.signature)
}
