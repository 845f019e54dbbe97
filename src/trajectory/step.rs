//! One agent step, recorded once: what the model answered, the code it wrote, what
//! became of that code, and how long each part took. The prompt's history, the
//! step's events and the exported replay scripts are all derived from it.

use crate::llm::Usage;
use crate::sandbox::{Action, RunError, RunResult};
use crate::tools::{Access, Replay, access_of, replay_of};

/// What became of the code a step's reply held.
#[derive(Debug, Clone)]
pub enum StepOutcome {
    /// The reply held no code: nothing ran.
    NoCode,
    /// The code does not parse: nothing ran.
    NotParsed(RunError),
    /// The code ran.
    Ran(RunResult),
}

/// Where a step's time went.
#[derive(Debug, Clone, Copy, Default)]
pub struct StepTiming {
    pub wall_ms: f64,
    pub llm_ms: f64,
    /// Observing plus acting.
    pub device_ms: f64,
    /// The runtime's own cost: wall minus LLM minus device.
    pub overhead_ms: f64,
}

/// One step of a run.
#[derive(Debug, Clone)]
pub struct StepRecord {
    pub number: usize,
    /// The model's whole reply.
    pub reply: String,
    /// The reply without its code.
    pub thought: String,
    pub code: Option<String>,
    pub outcome: StepOutcome,
    pub usage: Usage,
    pub timing: StepTiming,
    /// The same code ran on an unchanged screen in the step before: the model is
    /// told so.
    pub repeated: bool,
    /// What else the model is told about this step: the completion gate, the error
    /// threshold.
    pub notes: Vec<String>,
    /// The run went on past the step's `complete(..)` (the completion gate held it,
    /// or it ended a plan item or a sub-agent), so a replay must too.
    pub completion_held: bool,
    /// The app and activity in front when the step's screen was observed (the
    /// precondition a replay checks).
    pub seen: Option<(String, String)>,
}

impl StepRecord {
    /// The snippet's result, when the code ran.
    pub fn ran(&self) -> Option<&RunResult> {
        match &self.outcome {
            StepOutcome::Ran(result) => Some(result),
            _ => None,
        }
    }

    /// Whether the step went nowhere: it did not run, ended in an error, or acted
    /// without any visible change. `None` for a step that only read (neither way).
    pub fn stalled(&self) -> Option<bool> {
        let Some(result) = self.ran() else { return Some(true) };
        if result.error.is_some() {
            return Some(true);
        }
        let effects: Vec<&str> =
            result.actions.iter().filter(|a| !a.is_watcher()).filter_map(|a| a.capture.effect.as_deref()).collect();
        if effects.is_empty() {
            return None;
        }
        Some(effects.iter().all(|e| e.ends_with("no visible change")))
    }

    /// The actions the step's code made (none when it did not run).
    pub fn actions(&self) -> &[Action] {
        self.ran().map_or(&[], |r| r.actions.as_slice())
    }

    /// The index taps and long presses, in order, with the selector of the element
    /// each hit: (tool, index, selector).
    pub fn index_targets(&self) -> Vec<(&str, i64, Option<&str>)> {
        self.actions()
            .iter()
            .filter(|a| matches!(replay_of(&a.tool, a.args.len()), Some(Replay::IndexAsSelector(_))))
            .filter_map(|a| Some((a.tool.as_str(), a.args.first()?.parse().ok()?, a.capture.target.as_deref())))
            .collect()
    }

    /// What a failed step did to the device (or the memory) before it failed: the
    /// calls a replay must make again.
    pub fn done_before_failing(&self) -> Vec<&Action> {
        match self.ran() {
            Some(r) if r.error.is_some() => {
                r.actions.iter().filter(|a| a.succeeded() && access_of(&a.tool) == Some(Access::Acts)).collect()
            }
            _ => Vec::new(),
        }
    }
}
