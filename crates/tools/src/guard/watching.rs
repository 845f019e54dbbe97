//! The built-in watchers as they run: a [`WatcherSet`] (which watchers are on and
//! their state) clears the blockers it knows (a dialog, a permission request, the
//! keyboard in the way) through [`WatcherHands`] — the only things the session
//! lends it: acting as a watcher (through the gate like every act, asking nobody)
//! and recording a firing. What a blocker is and which button clears it is
//! `watchers.rs`'s; the state is `watcher_state.rs`'s; the script's own watchers
//! (`watch(sel, fn)`), which locate like tools do, are `script_watchers.rs`'s.

use std::sync::Arc;
use std::time::Instant;

use super::watcher_state::WatcherState;
use super::watchers::{Watchers, find_blocker};
use crate::acting::DeviceAct;
use crate::error::ToolError;
use codeact_platform::device::Observation;

/// What a blocker watcher did: the line that says so, and where it tapped.
#[derive(Debug, Clone, PartialEq)]
pub struct Fired {
    pub line: String,
    pub button: (i32, i32),
}

/// What the built-in watchers act and report through, lent by the session.
pub(crate) trait WatcherHands {
    /// Does `act` as a watcher: judged by the sensitive-action gate like every act
    /// (asking nobody), then done, settled and read (it is not the call's action:
    /// it has no effect of its own and captures nothing for the call). The screen
    /// after it.
    fn act(&mut self, act: DeviceAct<'_>) -> Result<Option<Arc<Observation>>, ToolError>;
    /// Records a firing of `watcher` as an action of its own.
    fn record(&mut self, watcher: &str, started: Instant, what: String);
}

/// The session's built-in watchers: which are on (`known`) and their state.
pub(crate) struct WatcherSet<'a> {
    pub(crate) state: &'a mut WatcherState,
    pub(crate) known: &'a Watchers,
}

impl WatcherSet<'_> {
    /// The keyboard watcher: hides the keyboard that covers `what`, recorded as a
    /// firing of its own.
    pub(crate) fn hide_keyboard_for(&mut self, what: &str, hands: &mut dyn WatcherHands) -> Result<(), ToolError> {
        let started = Instant::now();
        hands.act(DeviceAct::Key("back"))?;
        hands.record("keyboard", started, format!("hid the keyboard covering {what}"));
        Ok(())
    }

    /// Clears the blockers the watchers know on `obs` (at most three in a row), each
    /// firing recorded as a `watcher` action. Returns what fired (when any did, the
    /// screen has been read again).
    pub fn clear_blockers(
        &mut self,
        obs: Arc<Observation>,
        hands: &mut dyn WatcherHands,
    ) -> Result<Vec<Fired>, ToolError> {
        let mut obs = obs;
        let mut fired = Vec::new();
        if !self.state.on {
            return Ok(fired);
        }
        for _ in 0..3 {
            let found = find_blocker(&obs, self.known).filter(|b| self.state.stuck_blocker.as_ref() != Some(b));
            let Some(blocker) = found else {
                self.state.unblocked = Some(obs);
                break;
            };
            let started = Instant::now();
            let Some((label, (x, y))) = blocker.button.clone() else {
                // Left for the script or the model: said once per screen.
                let print = obs.ui.fingerprint();
                if self.state.reported_blocker != Some(print) {
                    self.state.reported_blocker = Some(print);
                    hands.record(blocker.watcher, started, format!("left {:?} for you to answer", blocker.title));
                }
                break;
            };
            let after = match hands.act(DeviceAct::Tap((x, y))) {
                Ok(after) => after,
                Err(ToolError::Refused { rule, .. }) => {
                    let text =
                        format!("left {:?}: pressing {label:?} matches the sensitive rule {rule:?}", blocker.title);
                    hands.record(blocker.watcher, started, text);
                    self.state.stuck_blocker = Some(blocker);
                    break;
                }
                Err(e) => return Err(e),
            };
            let what = format!("tapped {label:?} on {:?}", blocker.title);
            fired.push(Fired { line: format!("the {} watcher {what}", blocker.watcher), button: (x, y) });
            hands.record(blocker.watcher, started, what);
            let Some(now) = after else { break };
            // A "blocker" the tap did not clear is not one to keep tapping: the
            // screen it is on counts as clear from now on.
            if find_blocker(&now, self.known).as_ref() == Some(&blocker) {
                self.state.stuck_blocker = Some(blocker);
                break;
            }
            obs = now;
        }
        Ok(fired)
    }
}
