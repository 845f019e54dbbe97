//! Waiting for the screen to settle after an action, and letting the read that
//! showed it settled stand for the next lookup's.
//!
//! The screen has settled when two consecutive reads show the same tree, or after
//! one read the device made only once its UI had gone idle (`uiautomator dump`
//! waits for the accessibility event stream to be quiet before it reads: a second
//! dump would only repeat it, at 1–3 s a dump on a phone). The read that settled is
//! the screen the next selector lookup acts on when it comes straight after —
//! once, within [`REUSE_WITHIN`](super::screen_view::REUSE_WITHIN), with no `wait()` between — instead of a new read
//! of a screen just seen still. So a replayed action costs one read on the dump
//! path (it cost three: two to settle and one to look).
//!
//! Not what an action changed (`effect.rs`) nor the watchers (`watching.rs`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::ToolContext;
use super::screen_view::{ScreenView, SettledRead};
use crate::error::ToolError;
use crate::options::Settle;
use codeact_engine::sandbox::Shared;
use codeact_platform::device::Device;

/// Waits on `device` for the screen to settle (two equal consecutive reads, or one
/// the device made once idle), within `settle`'s timeout and before `until`; the
/// last read becomes `screen`'s newest, and, when the screen did settle, the read a
/// lookup may use next. Stops when the snippet is stopped.
pub(crate) fn settle(
    device: &mut dyn Device,
    screen: &mut ScreenView,
    settle: &Settle,
    shared: &Shared,
    until: Instant,
) {
    screen.settled = None;
    if !settle.enabled {
        return;
    }
    let until = until.min(Instant::now() + settle.timeout);
    let mut last = None;
    while Instant::now() < until && !shared.cancelled() {
        let Ok(obs) = device.observe() else { break };
        let print = obs.ui.fingerprint();
        let done = obs.idle || last == Some(print);
        last = Some(print);
        let obs = Arc::new(obs);
        screen.latest = Some(obs.clone());
        if done {
            screen.settled = Some(SettledRead { obs, at: Instant::now() });
            break;
        }
    }
}

impl ToolContext {
    /// Waits for the screen to settle (two equal consecutive reads, or one the
    /// device made once idle), within the time left; the last read becomes the
    /// newest, and, when the screen did settle, the read a lookup may use next.
    pub(crate) fn settle(&mut self) {
        let until = Instant::now() + self.left();
        let ToolContext { device, screen, options, shared, .. } = self;
        settle(device.as_mut(), screen, &options.settle, shared, until);
    }

    /// Waits `duration` (bounded by the snippet's time): the screen is read anew
    /// afterwards, since waiting is how a script lets it change.
    pub(crate) fn pause(&mut self, duration: Duration) -> Result<(), ToolError> {
        self.screen.settled = None;
        self.shared.pause(duration)?;
        Ok(())
    }
}
