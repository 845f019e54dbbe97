//! Memory at every node of `--strategy tree`: a node's own goal is looked up (a
//! successful earlier node, or run, with exactly that goal is replayed step by step
//! first, without the model), every node that succeeds by the model's work is kept
//! as an experience of its own goal — so the sub-goals learned in one task are
//! reused in another —, and a node that fails leaves a note on its goal that the
//! next attempt at it reads. The database is opened for each use, never held
//! across a model call. Not the whole run's memory (`recall.rs`).

use std::path::Path;

use crate::outcome::Ending;
use crate::progress::ProgressSink;
use crate::run::Run;
use crate::step::Replayed;
use codeact_engine::sandbox::Completion;
use codeact_record::memory::{Experience, ExperienceRow, Store};
use codeact_record::trajectory::Event;

/// The notes on a goal a node's prompt shows (the newest).
pub(super) const NOTES_SHOWN: usize = 3;

fn open(path: Option<&Path>) -> Option<Store> {
    path.and_then(|p| Store::open(p).ok())
}

/// A successful earlier run of exactly `goal`, with steps to replay.
pub(super) fn remembered(path: Option<&Path>, goal: &str) -> Option<ExperienceRow> {
    open(path)?.find_task(goal).ok().flatten().filter(|row| !row.experience.steps.is_empty())
}

/// The notes earlier failures of `goal` left, newest first.
pub(super) fn notes(path: Option<&Path>, goal: &str) -> Vec<String> {
    open(path).and_then(|s| s.reflections(goal, NOTES_SHOWN).ok()).unwrap_or_default()
}

/// Keeps a note on `goal` for its next attempt.
pub(super) fn keep_note(path: Option<&Path>, goal: &str, note: &str) {
    if let Some(store) = open(path) {
        let _ = store.add_reflection(goal, note);
    }
}

/// Keeps the steps numbered after `first` up to now as an experience of `goal`.
pub(super) fn keep_node(run: &Run<'_>, goal: &str, first: usize) {
    let Some(store) = open(run.options.memory.as_deref()) else { return };
    let records: Vec<_> = run.history.all_records().into_iter().filter(|r| r.number > first).collect();
    let experience = Experience::from_records(goal, &records);
    if experience.check().is_ok() {
        let _ = store.add(&experience);
    }
}

/// Replays `row` step by step: `Ok(Some)` when every step ran, `Ok(None)` with
/// why when one could not (the node's model takes over from the screen as it is),
/// `Err` when the run ends.
pub(super) fn replay(
    run: &mut Run<'_>,
    row: &ExperienceRow,
    progress: &mut ProgressSink<'_>,
) -> Result<Result<Completion, String>, Ending> {
    let steps = &row.experience.steps;
    run.event(&Event::Recall { experience: row.id, steps: steps.len() });
    for (index, step) in steps.iter().enumerate() {
        if run.budget_spent() {
            return Err(Ending::BudgetSpent { max_steps: run.options.max_steps });
        }
        if run.interrupted() {
            return Err(Ending::Interrupted { during: "" });
        }
        match run.replay_step(step, index, "(replayed from memory)", progress)? {
            Replayed::Done(_) => {}
            Replayed::Diverged(why) => {
                run.event(&Event::Diverged { step: run.steps_taken(), of: index + 1, why: why.as_str().into() });
                return Ok(Err(format!("step {} of the remembered way diverged: {why}", index + 1)));
            }
        }
    }
    if let Some(store) = open(run.options.memory.as_deref()) {
        let _ = store.replayed(row.id, None);
    }
    Ok(Ok(Completion { success: true, reason: format!("replayed from memory ({} steps)", steps.len()) }))
}
