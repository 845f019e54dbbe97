//! Which loop a run follows (`--strategy`): plain ReAct, a plan executed item by
//! item, an app-level plan with a sub-agent per app, or a tree of goals that split
//! into sub-goals (`tree.rs`); and replay-first, which a
//! run takes instead when memory holds the task (or `exec --heal` hands it a
//! script). The loops are in `react.rs`, `plan.rs` (its plans' text in
//! `agent/plan_text.rs`), `hierarchical.rs` and `replay.rs`; they share the step
//! machinery (`agent/step.rs`). Which one a run follows is its options'
//! ([`Strategy`](crate::Strategy)).

mod fire_and_forget;
pub(crate) mod hierarchical;
pub(crate) mod plan;
pub(crate) mod react;
pub(crate) mod replay;
pub(crate) mod tree;
mod tree_memory;
mod tree_review;
