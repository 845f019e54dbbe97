//! What the runtime answers for while a worker runs a snippet: its tool calls, its
//! reads of `ui_state`, whether it must stop, what it prints. The session
//! implements it; the worker's driver (`process.rs`) asks it.

use std::time::Duration;

use rhai::Dynamic;

use super::frames::{ToWorker, ToolOutcome};

/// What answers a worker's questions while a snippet runs.
pub trait Host {
    /// Runs tool overload `index` with `args`; `watchers`: the script's watchers
    /// may fire instead (answered with [`ToolOutcome::Watch`]).
    fn call_tool(&mut self, index: usize, args: Vec<Dynamic>, watchers: bool) -> ToolOutcome;
    /// `ui_state` (or `phone_state`); `have` is the generation the worker holds.
    fn read_state(&mut self, phone: bool, have: u64) -> ToWorker;
    /// True once the snippet is to stop (Ctrl-C, the session's stop).
    fn cancelled(&self) -> bool;
    /// A line the snippet printed, as it was printed (only while streaming).
    fn printed(&mut self, _text: &str) {}
    /// How far the snippet's deadline moved during the last call (a person was
    /// answering): the worker's and the hard deadline move with it.
    fn take_extension(&mut self) -> Duration {
        Duration::ZERO
    }
}
