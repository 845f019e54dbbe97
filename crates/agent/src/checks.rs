//! What the runtime checks after each step, apart from the step itself: the loop
//! guard (the same code on an unchanged screen), the completion gate (a
//! `complete(true, ..)` right after acting unseen is held once so the model sees the
//! final screen), the error threshold (steps in a row that go nowhere), and the
//! decision whether the run goes on ([`StepEnd`]). Each writes its own event.

use super::loop_guard::{LoopGuard, Repetition};
use super::outcome::Ending;
use codeact_record::recorder::StepRecorder;
use codeact_record::trajectory::{Event, StepOutcome, StepRecord};

/// Whether the loop goes on after a step.
pub(super) enum StepEnd {
    Continue,
    Stop(Ending),
}

/// How many completions the gate holds in one run at most.
const MAX_HELD: usize = 2;

/// What the model is told when the gate holds its completion.
pub(super) const HELD: &str = "You called complete(true, ...) right after acting, without looking at what the actions did. \
     The screen below is the result: if the task is really done, call complete(true, \"...\") again without acting; \
     otherwise continue.";

/// The checks' state over a run.
pub(super) struct Checks {
    guard: LoopGuard,
    loop_limit: usize,
    /// Steps in a row that ended in an error or changed nothing on screen.
    stalled: usize,
    /// Completions the gate held (each gives the model one step more).
    held: usize,
    /// The completion gate may hold completions now (a replay's healing step for
    /// an intermediate step turns it off: the next step's precondition checks).
    gate_on: bool,
}

impl Checks {
    pub(super) fn new(loop_limit: usize) -> Self {
        Self { guard: LoopGuard::new(loop_limit), loop_limit, stalled: 0, held: 0, gate_on: true }
    }

    /// A new phase (a sub-agent): its own loop guard and stall count.
    pub(super) fn new_phase(&mut self) {
        self.guard = LoopGuard::new(self.loop_limit);
        self.stalled = 0;
    }

    /// Starts the count of steps that went nowhere afresh (a new plan).
    pub(super) fn reset_stall(&mut self) {
        self.stalled = 0;
    }

    /// Steps in a row that ended in an error or changed nothing on screen.
    pub(super) fn stalled(&self) -> usize {
        self.stalled
    }

    /// Steps beyond `--max-steps` the completion gate granted.
    pub(super) fn held(&self) -> usize {
        self.held
    }

    /// Lets the completion gate hold completions (`true`, the default) or not.
    pub(super) fn hold_completions(&mut self, on: bool) {
        self.gate_on = on;
    }

    /// Notes the code a step ran on the screen it saw.
    pub(super) fn repetition(&mut self, outcome: &StepOutcome, code: Option<&str>, screen_text: &str) -> Repetition {
        match (outcome, code) {
            (StepOutcome::Ran(_), Some(code)) => self.guard.note(code, screen_text),
            _ => Repetition::Fresh,
        }
    }

    /// The completion gate: whether to hold a successful completion made right
    /// after acting, with nothing checking what the actions did (`unchecked`).
    pub(super) fn hold_completion(
        &mut self,
        recorder: &StepRecorder,
        outcome: &StepOutcome,
        verify: bool,
        unchecked: impl FnOnce() -> bool,
    ) -> bool {
        let StepOutcome::Ran(result) = outcome else { return false };
        let completed = result.completion.as_ref().is_some_and(|c| c.success);
        if !completed || !verify || !self.gate_on || self.held >= MAX_HELD {
            return false;
        }
        if !unchecked() {
            return false;
        }
        self.held += 1;
        let reason = result.completion.as_ref().map_or("", |c| c.reason.as_str());
        recorder.event(&Event::CompletionHeld { step: recorder.steps_taken(), reason: reason.into() });
        true
    }

    /// The error threshold: counts steps in a row that went nowhere, tells the model
    /// to change approach at the threshold, and ends the run at twice it.
    pub(super) fn note_stall(
        &mut self,
        recorder: &StepRecorder,
        record: &mut StepRecord,
        threshold: usize,
    ) -> Option<Ending> {
        match record.stalled() {
            Some(true) => self.stalled += 1,
            Some(false) => self.stalled = 0,
            None => {}
        }
        if threshold == 0 || self.stalled < threshold || record.stalled() != Some(true) {
            return None;
        }
        let ending = self.stalled >= 2 * threshold;
        recorder.event(&Event::Stalled { step: record.number, stalled: self.stalled, ending });
        if ending {
            return Some(Ending::Stalled { steps: self.stalled });
        }
        record.notes.push(format!(
            "the last {} steps ended in an error or changed nothing on screen. Change approach: read ui_state again, \
             try another element or another way to the goal (a different screen, scrolling, the app's search); \
             {} more steps like these end the run.",
            self.stalled,
            2 * threshold - self.stalled
        ));
        None
    }
}

/// Whether the run goes on after `record` (`held`: the gate held its completion;
/// `interrupted`: Ctrl-C came while it ran).
pub(super) fn decide(
    recorder: &StepRecorder,
    record: &StepRecord,
    repetition: Repetition,
    held: bool,
    interrupted: bool,
) -> StepEnd {
    let Some(result) = record.ran() else { return StepEnd::Continue };
    if let Some(c) = result.completion.as_ref().filter(|_| !held) {
        recorder.event(&Event::Completion {
            step: record.number,
            success: c.success,
            reason: c.reason.as_str().into(),
        });
        return StepEnd::Stop(Ending::Completed(c.clone()));
    }
    if interrupted {
        return StepEnd::Stop(Ending::Interrupted { during: " while a snippet ran" });
    }
    match repetition {
        Repetition::Looping(times) => StepEnd::Stop(Ending::Looped { times }),
        _ => StepEnd::Continue,
    }
}
