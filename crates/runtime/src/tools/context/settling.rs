//! Waiting for the screen to settle after an action, and letting the read that
//! showed it settled stand for the next lookup's.
//!
//! The screen has settled when two consecutive reads show the same tree, or after
//! one read the device made only once its UI had gone idle (`uiautomator dump`
//! waits for the accessibility event stream to be quiet before it reads: a second
//! dump would only repeat it, at 1–3 s a dump on a phone). The read that settled is
//! the screen the next selector lookup acts on when it comes straight after —
//! once, within [`REUSE_WITHIN`], with no `wait()` between — instead of a new read
//! of a screen just seen still. So a replayed action costs one read on the dump
//! path (it cost three: two to settle and one to look).
//!
//! Not what an action changed (`effect.rs`) nor the watchers (`watching.rs`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::ToolContext;
use super::screen_view::SettledRead;
use crate::tools::error::ToolError;
use codeact_platform::device::Observation;

/// How long after settling its read may stand for a lookup's: the time a script
/// takes between one statement and the next, not the time a model or a person
/// takes between snippets or lines (those look again).
pub(crate) const REUSE_WITHIN: Duration = Duration::from_millis(250);

impl ToolContext {
    /// Waits for the screen to settle (two equal consecutive reads, or one the
    /// device made once idle), within the time left; the last read becomes the
    /// newest, and, when the screen did settle, the read a lookup may use next.
    pub(in crate::tools) fn settle(&mut self) {
        self.screen.settled = None;
        if !self.options.settle.enabled {
            return;
        }
        let until = Instant::now() + self.options.settle.timeout.min(self.left());
        let mut last = None;
        while Instant::now() < until && !self.shared.cancelled() {
            let Ok(obs) = self.runtime_device().observe() else { break };
            let print = obs.ui.fingerprint();
            let done = obs.idle || last == Some(print);
            last = Some(print);
            let obs = Arc::new(obs);
            self.screen.latest = Some(obs.clone());
            if done {
                self.screen.settled = Some(SettledRead { obs, at: Instant::now() });
                break;
            }
        }
    }

    /// The read settling just made, if it is still the newest, recent, and not
    /// used yet: a lookup takes it once instead of reading again.
    pub(in crate::tools) fn take_settled_read(&mut self) -> Option<Arc<Observation>> {
        let settled = self.screen.settled.take()?;
        let newest = self.screen.latest.as_ref().is_some_and(|l| Arc::ptr_eq(l, &settled.obs));
        (newest && settled.at.elapsed() < REUSE_WITHIN).then_some(settled.obs)
    }

    /// Waits `duration` (bounded by the snippet's time): the screen is read anew
    /// afterwards, since waiting is how a script lets it change.
    pub(crate) fn pause(&mut self, duration: Duration) -> Result<(), ToolError> {
        self.screen.settled = None;
        self.shared.pause(duration)?;
        Ok(())
    }
}
