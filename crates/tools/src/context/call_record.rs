//! What the running tool call records and checks: the tool and the gate's checks
//! its acts may pass, what it captured for its action record, the screen before its
//! first action and the element it aimed at (what its effect is measured against),
//! and what its last action did. Reset at the start of every call. Part of the
//! [`ToolContext`](crate::ToolContext).

use std::sync::Arc;

use super::effect::ActionEffect;
use crate::declaration::Gate;
use codeact_engine::sandbox::{Capture, Resolved};
use codeact_platform::device::Observation;
use codeact_platform::ui::Element;

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
    /// How its selector found its target, when a locating chain did: it leads the
    /// action line, before what the action changed.
    pub(crate) found_by: Option<String>,
}

impl CallRecord {
    /// A new call of `tool`, whose acts may pass `gates`.
    pub(crate) fn begin(&mut self, tool: &'static str, gates: &'static [Gate]) {
        *self = Self { tool, gates, ..Self::default() };
    }

    /// Says what the call did, in place of the effect measured (a person's answer,
    /// a button a watcher already pressed).
    pub(crate) fn note_effect(&mut self, effect: String) {
        self.capture.effect = Some(effect);
    }

    /// Says how the call's selector found its target (a picture, the model): the
    /// action line leads with it.
    pub(crate) fn note_found(&mut self, how: String) {
        self.capture.effect = Some(how.clone());
        self.found_by = Some(how);
    }

    /// The action line for what an action changed, after how its target was found.
    pub(crate) fn effect_line(&self, changed: &str) -> String {
        match &self.found_by {
            Some(how) => format!("{how}; {changed}"),
            None => changed.to_string(),
        }
    }

    /// Puts `prefix` before the effect measured, if there is one.
    pub(crate) fn prefix_effect(&mut self, prefix: &str) {
        if let Some(effect) = &mut self.capture.effect {
            effect.insert_str(0, prefix);
        }
    }

    /// Names the screenshot the call captured (`screenshot("name")`).
    pub(crate) fn name_screenshot(&mut self, name: Option<String>) {
        self.capture.name = name;
    }

    /// The element the call aims at (its index in `ui_state`, when listed): where
    /// the action record says it acted, and what its effect is measured on.
    pub(crate) fn aim_at(&mut self, index: Option<usize>, element: &Element) {
        self.capture.resolved = Some(Resolved { index: index.map(|i| i as i64), center: element.center });
        self.effect_target = Some(element.clone());
    }

    /// Whether the call's last action changed nothing visible.
    pub(crate) fn last_action_unseen(&self) -> bool {
        self.last_effect.as_ref().is_some_and(|e| !e.visible)
    }

    /// What the call captured, handed to its action record.
    pub(crate) fn take_capture(&mut self) -> Capture {
        std::mem::take(&mut self.capture)
    }
}
