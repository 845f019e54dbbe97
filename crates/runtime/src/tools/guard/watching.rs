//! Watchers as the tools run them: the built-in ones that clear blockers (a dialog,
//! a permission request, the keyboard in the way) between actions and before a
//! lookup gives up, and the script's own (`watch(sel, fn)`), whose function the
//! worker runs first. What a blocker is and which button clears it is
//! `watchers.rs`'s; the state is `watcher_state.rs`'s.

use std::sync::Arc;
use std::time::Instant;

use rhai::Dynamic;

use super::watchers::find_blocker;
use crate::tools::context::acting::DeviceAct;
use crate::tools::context::{Fired, ToolContext};
use crate::tools::error::ToolError;
use crate::tools::locating::closest::described as described_el;
use crate::tools::options::Recording;
use codeact_engine::sandbox::Capture;
use codeact_platform::device::Observation;

impl ToolContext {
    /// Whether watchers may fire on the next tool call (not on one made from a
    /// script watcher's own function).
    pub(crate) fn allow_watchers(&mut self, on: bool) {
        self.watch.on = on;
    }

    /// After a tool call: watchers may fire again, and the script watcher that
    /// fired on the call (its name and the element it matched), if one did.
    pub(crate) fn take_fired_watch(&mut self) -> Option<(String, Dynamic)> {
        self.watch.on = true;
        self.watch.pending.take()
    }

    /// The keyboard watcher: hides the keyboard that covers `what`, recorded as a
    /// firing of its own.
    pub(crate) fn hide_keyboard_for(&mut self, what: &str) -> Result<(), ToolError> {
        let started = Instant::now();
        self.watcher_act(DeviceAct::Key("back"))?;
        self.record_watcher("keyboard", started, format!("hid the keyboard covering {what}"));
        Ok(())
    }

    /// A watcher's own action: judged by the sensitive-action gate like every act
    /// (asking nobody), then done, settled and read (it is not the call's action,
    /// so it has no effect of its own and captures nothing for the call).
    fn watcher_act(&mut self, act: DeviceAct<'_>) -> Result<(), ToolError> {
        self.consent.watcher_acting = true;
        let judged = self.judge(&act);
        self.consent.watcher_acting = false;
        judged?;
        act.perform(self.runtime_device())?;
        self.screen.dirty = true;
        self.screen.acted_unseen = true;
        self.screen.latest = None;
        self.settle();
        if self.screen.latest.is_none() {
            self.screen.latest = Some(Arc::new(self.runtime_device().observe()?));
        }
        Ok(())
    }

    /// Whether the built-in watchers act ahead of every action and look (the agent),
    /// not only when an action is blocked (scripts).
    pub(crate) fn watchers_ahead(&self) -> bool {
        self.options.watch_mode == super::watchers::WatchMode::Ahead
    }

    /// Whether a dialog a built-in watcher knows is in the way of acting on `e`:
    /// one is on `obs`, and `e` is not part of it (a script that targets the dialog
    /// answers it itself).
    pub(crate) fn blocked(&self, obs: &Observation, e: &codeact_platform::ui::Element) -> bool {
        self.watch.on && find_blocker(obs, &self.options.watchers).is_some_and(|b| !b.holds(&obs.ui, obs.screen, e))
    }

    /// The watchers' turn before an action or a look: every watcher's ahead of it
    /// (the agent), the script's own alone when they act only on a blocked action.
    pub(crate) fn watchers_before(&mut self, obs: Arc<Observation>) -> Result<Vec<Fired>, ToolError> {
        if self.watchers_ahead() {
            return self.run_watchers(obs);
        }
        if self.watch.on {
            self.fire_script_watcher(&obs)?;
        }
        Ok(Vec::new())
    }

    /// Whether a built-in watcher would act on (or report) something on `obs`.
    pub(crate) fn has_blocker(&self, obs: &Observation) -> bool {
        self.watch.on && find_blocker(obs, &self.options.watchers).is_some()
    }

    /// Every watcher's turn on `obs`: the script's own first (they say what this
    /// script wants; one that matches ends the call), then the built-in ones.
    /// Returns what the built-in ones did. An observation already found clear is
    /// not scanned again (a selector action looks, then acts on what it looked at).
    pub(crate) fn run_watchers(&mut self, obs: Arc<Observation>) -> Result<Vec<Fired>, ToolError> {
        if !self.watch.on || self.watch.unblocked.as_ref().is_some_and(|u| Arc::ptr_eq(u, &obs)) {
            return Ok(Vec::new());
        }
        self.fire_script_watcher(&obs)?;
        self.clear_blockers(obs)
    }

    /// Clears the blockers the session's watchers know on `obs` (at most three in a
    /// row), each firing recorded as a `watcher` action. Returns what fired (when
    /// any did, the screen has been read again).
    pub(crate) fn clear_blockers(&mut self, obs: Arc<Observation>) -> Result<Vec<Fired>, ToolError> {
        let mut obs = obs;
        let mut fired = Vec::new();
        if !self.watch.on {
            return Ok(fired);
        }
        for _ in 0..3 {
            let found =
                find_blocker(&obs, &self.options.watchers).filter(|b| self.watch.stuck_blocker.as_ref() != Some(b));
            let Some(blocker) = found else {
                self.watch.unblocked = Some(obs);
                break;
            };
            let started = Instant::now();
            let Some((label, (x, y))) = blocker.button.clone() else {
                // Left for the script or the model: said once per screen.
                let print = obs.ui.fingerprint();
                if self.watch.reported_blocker != Some(print) {
                    self.watch.reported_blocker = Some(print);
                    let text = format!("left {:?} for you to answer", blocker.title);
                    self.record_watcher(blocker.watcher, started, text);
                }
                break;
            };
            match self.watcher_act(DeviceAct::Tap((x, y))) {
                Ok(()) => {}
                Err(ToolError::Refused { rule, .. }) => {
                    let text =
                        format!("left {:?}: pressing {label:?} matches the sensitive rule {rule:?}", blocker.title);
                    self.record_watcher(blocker.watcher, started, text);
                    self.watch.stuck_blocker = Some(blocker);
                    break;
                }
                Err(e) => return Err(e),
            }
            let what = format!("tapped {label:?} on {:?}", blocker.title);
            fired.push(Fired { line: format!("the {} watcher {what}", blocker.watcher), button: (x, y) });
            self.record_watcher(blocker.watcher, started, what);
            let Some(now) = self.screen.latest.clone() else { break };
            // A "blocker" the tap did not clear is not one to keep tapping: the
            // screen it is on counts as clear from now on.
            if find_blocker(&now, &self.options.watchers).as_ref() == Some(&blocker) {
                self.watch.stuck_blocker = Some(blocker);
                break;
            }
            obs = now;
        }
        Ok(fired)
    }

    /// A script watcher whose selector matches on `obs` ends the call before it
    /// acts: the worker runs its function, then makes the call again. Each watcher
    /// has one turn per call; none fire inside a watcher's own function.
    pub(crate) fn fire_script_watcher(&mut self, obs: &Observation) -> Result<(), ToolError> {
        if !self.watch.on {
            return Ok(());
        }
        let watchers = self.watch.script_watchers().to_vec();
        let mut due = None;
        for (name, sel) in &watchers {
            let in_tree = match (sel.locates(), sel.has_tree_part()) {
                (false, _) => sel.find_all(&obs.ui),
                (true, true) => sel.find_in_tree(&obs.ui),
                (true, false) => Vec::new(),
            };
            if let Some(e) = in_tree.first() {
                due = Some((name.clone(), e.id, described_el(e)));
                break;
            }
            // A picture is sought on the screenshot only when the tree part (if any)
            // found nothing: the cost of an image watcher is one look per action.
            if let Some(want) = &sel.image
                && let Ok(place) = crate::tools::locating::image_lookup::seek_picture(self, want)?
            {
                let seen = crate::tools::locating::add_picture(self, obs, want, &place);
                let e = seen.ui.elements.last().map(|e| (e.id, described_el(e)));
                if let Some((id, what)) = e {
                    due = Some((name.clone(), id, what));
                    break;
                }
            }
        }
        let Some((name, id, what)) = due else { return Ok(()) };
        let element = self.element_value(id);
        self.record_watcher(&name, Instant::now(), format!("matched {what}; its function runs first"));
        self.watch.pending = Some((name.clone(), element));
        Err(ToolError::WatcherDue(name))
    }

    /// Records a watcher's firing as an action of its own.
    fn record_watcher(&mut self, watcher: &str, started: Instant, what: String) {
        let mut capture = Capture { effect: Some(what), ..Capture::default() };
        if self.options.record != Recording::None {
            capture.ui_xml = self.screen.latest.as_ref().map(|o| Arc::from(o.dump.as_str()));
        }
        self.shared.record("watcher", vec![codeact_engine::emit::rhai::string(watcher)], Ok(()), started, capture);
    }
}
