//! Watchers as the tools meet them: the context's doors to the built-in
//! `WatcherSet` (lent only what it needs: see `context/lent.rs`), and the
//! script's own watchers (`watch(sel, fn)`), which locate like a tool does — a
//! selector over the tree, a picture on the screenshot — and whose function the
//! worker runs first. Not what a blocker is (`watchers.rs`) or how the built-in
//! ones clear it (`watching.rs`).

use std::sync::Arc;
use std::time::Instant;

use rhai::Dynamic;

use crate::context::{Fired, ToolContext};
use crate::error::ToolError;
use crate::naming::described as described_el;
use codeact_platform::device::Observation;

impl ToolContext {
    /// Whether watchers may fire on the next tool call (not on one made from a
    /// script watcher's own function).
    pub fn allow_watchers(&mut self, on: bool) {
        self.watch.on = on;
    }

    /// After a tool call: watchers may fire again, and the script watcher that
    /// fired on the call (its name and the element it matched), if one did.
    pub fn take_fired_watch(&mut self) -> Option<(String, Dynamic)> {
        self.watch.on = true;
        self.watch.pending.take()
    }

    /// The keyboard watcher: hides the keyboard that covers `what`.
    pub(crate) fn hide_keyboard_for(&mut self, what: &str) -> Result<(), ToolError> {
        self.with_watchers(|set, hands| set.hide_keyboard_for(what, hands))
    }

    /// Whether the built-in watchers act ahead of every action and look (the agent),
    /// not only when an action is blocked (scripts).
    pub(crate) fn watchers_ahead(&self) -> bool {
        self.options.watch_mode == crate::guard::watchers::WatchMode::Ahead
    }

    /// Whether a dialog a built-in watcher knows is in the way of acting on `e`.
    pub(crate) fn blocked(&self, obs: &Observation, e: &codeact_platform::ui::Element) -> bool {
        self.watch.on
            && crate::guard::watchers::find_blocker(obs, &self.options.watchers)
                .is_some_and(|b| !b.holds(&obs.ui, obs.screen, e))
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
    pub fn has_blocker(&self, obs: &Observation) -> bool {
        self.watch.on && crate::guard::watchers::find_blocker(obs, &self.options.watchers).is_some()
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

    /// The built-in watchers clear the blockers they know on `obs`.
    pub fn clear_blockers(&mut self, obs: Arc<Observation>) -> Result<Vec<Fired>, ToolError> {
        self.with_watchers(|set, hands| set.clear_blockers(obs, hands))
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
                && let Ok(place) = crate::locating::image_lookup::seek_picture(self, want)?
            {
                let seen = crate::locating::add_picture(self, obs, want, &place);
                let e = seen.ui.elements.last().map(|e| (e.id, described_el(e)));
                if let Some((id, what)) = e {
                    due = Some((name.clone(), id, what));
                    break;
                }
            }
        }
        let Some((name, id, what)) = due else { return Ok(()) };
        let element = self.element_value(id);
        let text = format!("matched {what}; its function runs first");
        self.with_watchers(|_, hands| hands.record(&name, Instant::now(), text));
        self.watch.pending = Some((name.clone(), element));
        Err(ToolError::WatcherDue(name))
    }
}
