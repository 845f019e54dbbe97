//! The watchers' state in a session: the script's own watchers (`watch(sel, fn)`)
//! in the order declared, whether watchers may fire now (not inside a script
//! watcher's own function), the script watcher that fired on the running call, the
//! observation last found free of blockers, a blocker a tap did not clear, and the
//! permission request already reported. Part of the [`ToolContext`](crate::ToolContext); firing is there.

use std::sync::Arc;

use rhai::Dynamic;

use super::watchers::Blocker;
use crate::select::Selector;
use codeact_platform::device::Observation;

pub(crate) struct WatcherState {
    /// The script's own watchers (`watch(sel, fn)`), in the order declared.
    script: Vec<(String, Selector)>,
    /// Watchers may fire (the script's and the built-in ones): not on a call made
    /// from a script watcher's own function, which is handling the screen itself.
    pub(crate) on: bool,
    /// The script watcher that fired on the running call, and the element it
    /// matched: the session hands them to the worker.
    pub(crate) pending: Option<(String, Dynamic)>,
    /// The observation last found free of blockers (and of the script's watchers):
    /// the same one is not scanned twice.
    pub(crate) unblocked: Option<Arc<Observation>>,
    /// A blocker a watcher's tap did not clear: it is left alone from then on.
    pub(crate) stuck_blocker: Option<Blocker>,
    /// The screen a permission request was last left alone on (`permission=ask`),
    /// so it is reported once, not before every action.
    pub(crate) reported_blocker: Option<u64>,
}

/// How many script watchers a session holds at once.
const MAX_WATCHERS: usize = 16;

impl WatcherState {
    /// Declares the script watcher `name` (replacing one of that name).
    pub(crate) fn declare(&mut self, name: String, selector: Selector) -> Result<(), crate::error::ToolError> {
        let count = self.script.len();
        match self.script.iter_mut().find(|(n, _)| *n == name) {
            Some(existing) => existing.1 = selector,
            None if count >= MAX_WATCHERS => return Err(crate::error::ToolError::TooManyWatchers(MAX_WATCHERS)),
            None => self.script.push((name, selector)),
        }
        Ok(())
    }

    /// Removes the script watcher `name`; whether there was one.
    pub(crate) fn remove(&mut self, name: &str) -> bool {
        let before = self.script.len();
        self.script.retain(|(n, _)| n != name);
        self.script.len() != before
    }

    /// The script's watchers, in the order declared.
    pub(crate) fn script_watchers(&self) -> &[(String, Selector)] {
        &self.script
    }

    pub(crate) fn forget_script_watchers(&mut self) {
        self.script.clear();
    }
}

impl Default for WatcherState {
    fn default() -> Self {
        Self {
            script: Vec::new(),
            on: true,
            pending: None,
            unblocked: None,
            stuck_blocker: None,
            reported_blocker: None,
        }
    }
}
