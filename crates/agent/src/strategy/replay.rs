//! Replay-first: when memory holds a successful run of the same task, the run
//! replays it step by step without the LLM (and `codeact exec --heal` runs a
//! hand-written script the same way). Before each step its precondition is
//! checked on the screen as it is (the app in front, and the element it acted on);
//! a step whose precondition fails, or that errs, goes to the LLM alone — with the
//! goal, the step's intent and its recorded code — and the replay resumes after
//! it. A step the LLM cannot heal in a few tries hands the whole goal back to the
//! plain loop. The trajectory marks each step `replayed` or `diverged`.

use super::react::{self, Stop, steps_until_done};
use crate::outcome::Ending;
use crate::progress::{Progress, ProgressSink};
use crate::run::Run;
use crate::step::{CODE_FAILED, Replayed};
use codeact_engine::sandbox::Completion;
use codeact_record::memory::Experience;
use codeact_record::trajectory::Event;

/// The most of a diverged step's intent and code the model is shown.
const INTENT_BYTES: usize = 1024;
const CODE_BYTES: usize = 4096;

/// LLM steps one diverged step may take before the replay gives up.
const HEAL_STEPS: usize = 3;

/// What is replayed.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Replaying {
    /// An experience from memory (its id): a step the model cannot heal hands it
    /// the whole task, and so does a replay that ends without completing.
    Memory(i64),
    /// A hand-written script: it ends where it ends, and a step the model cannot
    /// heal fails the run.
    Script,
}

/// What the model reads while it redoes step `index` of `experience`.
fn heal_focus(experience: &Experience, index: usize, why: &str, what: Replaying) -> String {
    let step = &experience.steps[index];
    let last = index + 1 == experience.steps.len();
    let finish = if last && matches!(what, Replaying::Memory(_)) {
        "This is the last step: finish the task and call complete(true, \"...\")."
    } else {
        "Do just this step, then call complete(true, \"step done\"); the replay goes on with the next one."
    };
    format!(
        "You are replaying {} of this task. Step {} of {} cannot be replayed as recorded: {why}.\n\
         Its intent: {}\nIts recorded code:\n{}\n{finish}",
        match what {
            Replaying::Memory(_) => "a recorded run",
            Replaying::Script => "a hand-written script",
        },
        index + 1,
        experience.steps.len(),
        if step.intent.is_empty() {
            "(not recorded)".into()
        } else {
            codeact_base::clip::clip(&step.intent, INTENT_BYTES)
        },
        codeact_base::clip::clip(&step.code, CODE_BYTES)
    )
}

pub(crate) async fn run(
    run: &mut Run<'_>,
    what: Replaying,
    experience: &Experience,
    progress: &mut ProgressSink<'_>,
) -> Ending {
    let steps = experience.steps.len();
    let note = match what {
        Replaying::Memory(id) => {
            run.event(&Event::Recall { experience: id, steps });
            format!("memory: replaying a successful run of this task ({steps} steps)")
        }
        Replaying::Script => {
            format!("running the script step by step ({steps} steps); a step that errs goes to the model")
        }
    };
    progress(Progress::Note { step: 0, text: &note });
    let headline = match what {
        Replaying::Memory(_) => "(replayed from memory)",
        Replaying::Script => "(the script's own step)",
    };
    for (index, step) in experience.steps.iter().enumerate() {
        let max_steps = run.options.max_steps;
        if run.budget_spent() {
            return Ending::BudgetSpent { max_steps };
        }
        if run.interrupted() {
            return Ending::Interrupted { during: "" };
        }
        let why = match run.replay_step(step, index, headline, progress) {
            Ok(Replayed::Done(Some(c))) if c.success || matches!(what, Replaying::Script) => {
                return Ending::Completed(c);
            }
            Ok(Replayed::Done(_)) => continue,
            Ok(Replayed::Diverged(why)) => why,
            Err(ending) => return ending,
        };
        run.event(&Event::Diverged { step: run.steps_taken(), of: index + 1, why: why.as_str().into() });
        // A step that failed has just printed its error: the note names it, once.
        let said = if why.starts_with(CODE_FAILED) { "its code failed (the error above)" } else { why.as_str() };
        progress(Progress::Note { step: run.steps_taken(), text: &format!("step {} diverged: {said}", index + 1) });
        let last = index + 1 == experience.steps.len();
        run.set_focus(Some(heal_focus(experience, index, &why, what)));
        // The next step's precondition checks an intermediate step's outcome; a
        // script's last step is followed by the script's end.
        let ends_run = last && matches!(what, Replaying::Memory(_));
        run.checks.hold_completions(ends_run);
        let healed = steps_until_done(run, progress, Some(HEAL_STEPS), true).await;
        run.set_focus(None);
        run.checks.hold_completions(true);
        match healed {
            Stop::Done(c) if ends_run => return Ending::Completed(c),
            Stop::Done(_) => {}
            Stop::Failed { why, .. } if matches!(what, Replaying::Script) => {
                return Ending::Completed(Completion {
                    success: false,
                    reason: format!("step {} of the script could not be healed: {why}", index + 1),
                });
            }
            Stop::Failed { .. } => {
                progress(Progress::Note {
                    step: run.steps_taken(),
                    text: "the replay gave up: the model takes the whole task",
                });
                return react::run(run, progress).await;
            }
            Stop::End(ending) => return ending,
        }
    }
    match what {
        Replaying::Script => {
            Ending::Completed(Completion { success: true, reason: "the script ran to its end".into() })
        }
        // Every step replayed and none completed: the model sees where it stands.
        Replaying::Memory(_) => react::run(run, progress).await,
    }
}
