//! What the context lends the sensitive-action gate and the built-in watchers, and
//! nothing more. The gate gets the device and the screen as the tools see it (to
//! read it again when an action ran since), the snippet's clock (stopped while a
//! person answers) and its action record; the watchers get hands that act through
//! that gate (asking nobody), settle and read the screen, and record a firing. The
//! context's doors to them are here too: `judge` for every act, `gate_element` for
//! a field about to be typed into, `ask_person` for the tools that ask,
//! `with_watchers`. Not the judging (`guard/gate.rs`) or the watching
//! (`guard/watching.rs`).

use std::sync::Arc;
use std::time::Instant;

use super::ToolContext;
use super::screen_view::ScreenView;
use super::settling::settle;
use crate::acting::DeviceAct;
use crate::consent::Consent;
use crate::error::ToolError;
use crate::guard::gate::{Gatekeeper, Surroundings};
use crate::guard::watching::{WatcherHands, WatcherSet};
use crate::human::{Human, HumanRequest};
use crate::options::{Recording, ToolOptions};
use codeact_engine::sandbox::{Capture, FailureKind, Shared};
use codeact_platform::device::{Device, DeviceError, Observation};
use codeact_platform::ui::Element;

/// The parts of the context a judgement reads and asks through.
struct Lent<'a> {
    device: &'a mut dyn Device,
    screen: &'a mut ScreenView,
    shared: &'a Shared,
    deadline: &'a mut Instant,
}

impl Surroundings for Lent<'_> {
    fn screen_now(&mut self) -> Result<(), DeviceError> {
        if self.screen.needs_look() {
            self.screen.look(self.device)?;
        }
        Ok(())
    }

    fn screen(&self) -> Option<Arc<Observation>> {
        self.screen.live_arc()
    }

    fn clipboard(&mut self) -> Option<String> {
        crate::acting::DeviceReads(&mut *self.device).clipboard().ok().flatten()
    }

    fn ask(&mut self, human: &Human, request: &HumanRequest) -> Option<String> {
        let started = Instant::now();
        let answer = human(request);
        stop_the_clock(self.shared, self.deadline, self.device, started);
        answer
    }

    fn record_decision(
        &self,
        what: &str,
        outcome: Result<(), (FailureKind, String)>,
        started: Instant,
        effect: Option<String>,
    ) {
        let capture = Capture { effect, ..Capture::default() };
        self.shared.record("confirm", vec![format!("{what:?}")], outcome, started, capture);
    }
}

/// Moves the running call's deadline (and the snippet's) on by the time since
/// `started`: the time a person took to answer is not the snippet's.
fn stop_the_clock(shared: &Shared, deadline: &mut Instant, device: &mut dyn Device, started: Instant) {
    let by = started.elapsed();
    shared.extend_deadline(by);
    *deadline += by;
    device.set_deadline(Some(*deadline));
}

impl ToolContext {
    /// Runs `judging` with a [`Gatekeeper`] lent only what the gate needs: the rules, the
    /// consent, the element the call aimed at (none when a watcher acts) and the
    /// screen, the clipboard and the clock through [`Surroundings`].
    fn with_gatekeeper<T>(&mut self, judging: impl FnOnce(&mut Gatekeeper<'_>) -> T) -> T {
        let ToolContext { device, screen, call, consent, options, shared, deadline, .. } = self;
        let aimed = if consent.watcher_acting { None } else { call.effect_target.as_ref() };
        let mut lent = Lent { device: device.as_mut(), screen, shared, deadline };
        judging(&mut Gatekeeper { rules: &options.sensitive, consent, aimed, around: &mut lent })
    }

    /// The sensitive-action gate for an acting device call, on the screen as it is
    /// now (`act` asks it for every one).
    pub(crate) fn judge(&mut self, act: &DeviceAct<'_>) -> Result<(), ToolError> {
        self.with_gatekeeper(|judge| judge.judge(act))
    }

    /// The gate for `verb` on `element` (typing `typed` into it), before the call
    /// acts at all (a field is judged before it is emptied).
    pub(crate) fn gate_element(&mut self, verb: &str, element: &Element, typed: Option<&str>) -> Result<(), ToolError> {
        self.with_gatekeeper(|judge| judge.gate_element(verb, element, typed))
    }

    /// Asks the session's person, with the snippet's clock stopped meanwhile (a
    /// person takes longer than a time limit allows). `None`: nobody can answer.
    pub(crate) fn ask_person(&mut self, request: &HumanRequest) -> Option<String> {
        let human = self.consent.human.clone()?;
        let started = Instant::now();
        let answer = human(request);
        stop_the_clock(&self.shared, &mut self.deadline, self.device.as_mut(), started);
        answer
    }
}

/// The parts of the context the built-in watchers act and report through.
struct Hands<'a> {
    device: &'a mut dyn Device,
    screen: &'a mut ScreenView,
    consent: &'a mut Consent,
    options: &'a ToolOptions,
    shared: &'a Shared,
    deadline: &'a mut Instant,
}

impl WatcherHands for Hands<'_> {
    fn act(&mut self, act: DeviceAct<'_>) -> Result<Option<Arc<Observation>>, ToolError> {
        self.consent.watcher_acting = true;
        let judged = {
            let mut lent = Lent {
                device: &mut *self.device,
                screen: &mut *self.screen,
                shared: self.shared,
                deadline: &mut *self.deadline,
            };
            Gatekeeper { rules: &self.options.sensitive, consent: &mut *self.consent, aimed: None, around: &mut lent }
                .judge(&act)
        };
        self.consent.watcher_acting = false;
        judged?;
        act.perform(&mut *self.device)?;
        self.screen.dirty = true;
        self.screen.acted_unseen = true;
        self.screen.latest = None;
        settle(&mut *self.device, self.screen, &self.options.settle, self.shared, *self.deadline);
        if self.screen.latest.is_none() {
            self.screen.latest = Some(Arc::new(self.device.observe()?));
        }
        Ok(self.screen.latest.clone())
    }

    fn record(&mut self, watcher: &str, started: Instant, what: String) {
        let mut capture = Capture { effect: Some(what), ..Capture::default() };
        if self.options.record != Recording::None {
            capture.ui_xml = self.screen.latest.as_ref().map(|o| Arc::from(o.dump.as_str()));
        }
        self.shared.record("watcher", vec![codeact_engine::emit::rhai::string(watcher)], Ok(()), started, capture);
    }
}

impl ToolContext {
    /// Runs `watching` with the session's built-in watchers and hands lent only
    /// what they need: the device, the screen, the consent (a watcher's act is
    /// judged like any), the options and the clock.
    pub(crate) fn with_watchers<T>(
        &mut self,
        watching: impl FnOnce(&mut WatcherSet<'_>, &mut dyn WatcherHands) -> T,
    ) -> T {
        let ToolContext { device, screen, consent, options, shared, deadline, watch, .. } = self;
        let mut hands = Hands { device: device.as_mut(), screen, consent, options, shared, deadline };
        watching(&mut WatcherSet { state: watch, known: &options.watchers }, &mut hands)
    }
}
