//! What the running tool call records and checks: the tool and the gate's checks
//! its acts may pass, what it captured for its action record, the screen before its
//! first action and the element it aimed at (what its effect is measured against),
//! and what its last action did. Reset at the start of every call. Part of the
//! [`ToolContext`](super::ToolContext).

use std::sync::Arc;

use super::declaration::Gate;
use super::effect::ActionEffect;
use crate::device::Observation;
use crate::sandbox::Capture;
use crate::ui::Element;

#[derive(Default)]
pub(crate) struct CallRecord {
    /// The running call's tool.
    pub(crate) tool: &'static str,
    /// The gate's checks its acts may pass (its `ToolSpec` says which).
    pub(crate) gates: &'static [Gate],
    /// What the running tool captured for its action record.
    pub(crate) capture: Capture,
    /// The screen before the running call's first action (what its effect is
    /// measured against).
    pub(crate) effect_before: Option<Arc<Observation>>,
    /// The element the running call aimed at.
    pub(crate) effect_target: Option<Element>,
    /// What the running call's last action did.
    pub(crate) last_effect: Option<ActionEffect>,
}

impl CallRecord {
    /// A new call of `tool`, whose acts may pass `gates`.
    pub(crate) fn begin(&mut self, tool: &'static str, gates: &'static [Gate]) {
        *self = Self { tool, gates, ..Self::default() };
    }
}
