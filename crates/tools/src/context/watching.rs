//! The watchers as the context meets them: whether they may fire on this call, the
//! built-in `WatcherSet`'s doors (lent only what it needs: `lent.rs`), and the
//! script's own watchers (`watch(sel, fn)`) tried through the function the catalog
//! lends when the tools are installed — they locate like a tool does, a layer
//! above the context, so the context is handed how, and imports nothing above it.
//! Not what a blocker is (`guard/watchers.rs`), how the built-in ones clear it
//! (`guard/watching.rs`) nor how a script watcher is matched
//! (`catalog/script_watchers.rs`).

use std::sync::Arc;

use rhai::Dynamic;

use super::{ScriptWatch, ToolContext};
use crate::error::ToolError;
use crate::guard::watcher_state::WatcherState;
use crate::guard::watching::Fired;
use codeact_platform::device::Observation;

impl ToolContext {
    /// The catalog's: how the script's own watchers are tried (`install`).
    pub(crate) fn lend_script_watch(&mut self, watch: ScriptWatch) {
        self.script_watch = watch;
    }

    /// The watchers' state: whether they may fire, the script's own, the one due.
    pub(crate) fn watch_state(&mut self) -> &mut WatcherState {
        &mut self.watch
    }

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
        self.fire_script_watcher(&obs)?;
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
    fn fire_script_watcher(&mut self, obs: &Observation) -> Result<(), ToolError> {
        if !self.watch.on || self.watch.script_watchers().is_empty() {
            return Ok(());
        }
        (self.script_watch)(self, obs)
    }

    /// Records that the script watcher `name` is due (`text` says on what) and
    /// keeps it, with the element it matched, for the worker.
    pub(crate) fn watcher_due(&mut self, name: &str, element: Dynamic, text: String) -> ToolError {
        self.with_watchers(|_, hands| hands.record(name, std::time::Instant::now(), text));
        self.watch.pending = Some((name.to_string(), element));
        ToolError::WatcherDue(name.to_string())
    }
}
