//! What a run remembers of itself for the next request: the prompt's fixed parts,
//! the steps of the phase in hand (the model's history) and of earlier phases, and
//! the reflector's notes. Not how they are worded (`prompt.rs`) or written down
//! (the record crate's `StepRecorder`).

use super::prompt::Prompt;
use codeact_record::trajectory::StepRecord;

pub(super) struct History {
    pub(super) prompt: Prompt,
    /// The steps of the phase in hand (the prompt's history).
    pub(super) records: Vec<StepRecord>,
    /// The steps of earlier phases (a hierarchical run's other sub-agents).
    earlier: Vec<StepRecord>,
    /// What the reflector wrote, oldest first.
    pub(super) reflections: Vec<String>,
    /// Actions since the last reflection.
    pub(super) actions_since_reflection: usize,
    /// What the watchers cleared in the run's observations since the actor last
    /// saw the screen (a planner's or a replay's look included), to tell it.
    pub(super) cleared: Vec<String>,
}

impl History {
    pub(super) fn new(prompt: Prompt) -> Self {
        Self {
            prompt,
            records: Vec::new(),
            earlier: Vec::new(),
            reflections: Vec::new(),
            actions_since_reflection: 0,
            cleared: Vec::new(),
        }
    }

    /// A new phase: the steps so far leave the model's history (they stay the run's).
    pub(super) fn new_phase(&mut self) {
        self.earlier.append(&mut self.records);
    }

    /// Every step of the run, every phase's, in order. Only the last step's
    /// completion ended the run: earlier ones ended a plan item or a sub-agent, so
    /// a replay goes on past them.
    pub(super) fn all_records(&self) -> Vec<StepRecord> {
        let mut records = self.earlier.clone();
        records.extend(self.records.iter().cloned());
        let last = records.len().saturating_sub(1);
        for r in &mut records[..last] {
            if r.ran().is_some_and(|ran| ran.completion.is_some()) {
                r.completion_held = true;
            }
        }
        records
    }
}
