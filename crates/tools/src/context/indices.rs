//! Index taps (`tap_by_index(i)` and the like): the element an index of `ui_state`
//! names, checked against the live screen when an action may have changed it —
//! indices belong to the screen they were read from, and a stale one is refused
//! with both screens named. When the watchers act only on a blocked action
//! (scripts), a dialog covering the element is answered first. Part of the
//! [`ToolContext`](crate::ToolContext).

use super::ToolContext;
use super::state;
use crate::error::ToolError;
use crate::select::unique_selector::selector_for;
use codeact_engine::sandbox::Resolved;

impl ToolContext {
    /// The element at `index` in the snapshot, checked against the live screen when
    /// an action may have changed it. Returns its centre, and records the selector
    /// of the element for exported replays.
    pub(crate) fn element_center(&mut self, index: i64) -> Result<(i32, i32), ToolError> {
        if self.screen.snapshot.is_none() && self.screen.acted_unseen {
            return Err(ToolError::Unseen { index });
        }
        let snap = self.snapshot()?;
        let listed = state::listed(&snap.ui);
        let Some(el) = usize::try_from(index).ok().and_then(|i| listed.get(i)) else {
            return Err(ToolError::NoSuchIndex { index, last: listed.len().saturating_sub(1) });
        };
        // A script's index tap on something a dialog covers: the watchers answer the
        // dialog first (then the index is checked against the screen they left).
        let mut cleared = false;
        if !self.watchers_ahead()
            && let Some(now) = self.live_arc()
            && self.blocked(&now, el)
        {
            cleared = !self.clear_blockers(now)?.is_empty();
        }
        if !self.screen.dirty {
            self.call.capture.resolved = Some(Resolved { index: Some(index), center: el.center });
            self.call.capture.target = selector_for(&snap.ui, el.id);
            self.call.effect_target = Some((*el).clone());
            return Ok(el.center);
        }
        let live = self.reads().observe()?;
        let now = state::listed(&live.ui);
        // With the dialog the watchers cleared gone from the list, the element
        // itself (and only it) is what the index named.
        let moved = || {
            let mut same = now.iter().filter(|e| e.signature == el.signature);
            same.next().filter(|_| cleared && same.next().is_none())
        };
        match now.get(index as usize).filter(|e| e.signature == el.signature).or_else(moved) {
            Some(e) => {
                self.call.capture.resolved = Some(Resolved { index: Some(index), center: e.center });
                self.call.capture.target = selector_for(&live.ui, e.id);
                self.call.effect_target = Some((*e).clone());
                Ok(e.center)
            }
            _ => Err(ToolError::Stale {
                index,
                label: crate::naming::described(el),
                read_on: snap.screen_name(),
                now_on: live.screen_name(),
                selector: selector_for(&snap.ui, el.id),
            }),
        }
    }
}
