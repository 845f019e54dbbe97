//! Which loop a run follows (`--strategy`): plain ReAct, a plan executed item by
//! item, or an app-level plan with a sub-agent per app; and replay-first, which a
//! run takes instead when memory holds the task (or `exec --heal` hands it a
//! script). The loops are in `react.rs`, `plan.rs` (its plans' text in
//! `plan_text.rs`), `hierarchical.rs` and `replay.rs`; they share the step
//! machinery (`agent/step.rs`).

pub(in crate::agent) mod hierarchical;
pub(in crate::agent) mod plan;
mod plan_text;
pub(in crate::agent) mod react;
pub(in crate::agent) mod replay;

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// Observe, write a snippet, run it, repeat until complete() (the default).
    #[default]
    React,
    /// A planner writes a numbered plan (each item a goal and the screen expected
    /// after it); the actor carries out one item at a time and complete() ends an
    /// item; a failed item, or steps that go nowhere, make the planner plan again
    /// from what happened.
    Plan,
    /// A planner writes an app-level plan (which apps, in order, and what values
    /// to carry between them); per app an app_starter sub-agent opens it and a
    /// ui_expert sub-agent acts in it; values pass between apps as variables in
    /// the shared sandbox.
    Hierarchical,
}

impl Strategy {
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::React => "react",
            Strategy::Plan => "plan",
            Strategy::Hierarchical => "hierarchical",
        }
    }

    /// The reflector's default interval in actions (0: no reflector): on for the
    /// planning strategies, off for plain ReAct unless asked.
    pub fn default_reflect_every(self) -> usize {
        match self {
            Strategy::React => 0,
            Strategy::Plan | Strategy::Hierarchical => 4,
        }
    }
}
