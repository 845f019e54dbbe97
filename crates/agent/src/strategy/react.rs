//! `--strategy react`: observe, ask, run, until complete() or the budget. Also the
//! step loop the other strategies run per plan item ([`steps_until_done`]).

use crate::checks::StepEnd;
use crate::outcome::Ending;
use crate::progress::ProgressSink;
use crate::run::Run;
use codeact_engine::sandbox::Completion;

/// How a stretch of steps ended.
pub(super) enum Stop {
    /// `complete(true, ..)`.
    Done(Completion),
    /// `complete(false, ..)`, steps that went nowhere, a loop, or the stretch's own
    /// step limit: `why` in words, and the run's ending if it were to end here.
    Failed { why: String, ending: Ending },
    /// The run ends whatever the strategy (the budget, Ctrl-C, the LLM or the
    /// device failing).
    End(Ending),
}

/// Takes steps until the model completes, fails, or (with `give_up_on_stall`)
/// reaches the error threshold; `most` bounds the stretch's own steps.
pub(super) async fn steps_until_done(
    run: &mut Run<'_>,
    progress: &mut ProgressSink<'_>,
    most: Option<usize>,
    give_up_on_stall: bool,
) -> Stop {
    match steps_until(run, progress, most, give_up_on_stall, false).await {
        Stepped::Stopped(stop) => stop,
        // Not asked for: a reply that splits is a reply without code here.
        Stepped::Split(_) => Stop::Failed {
            why: "the model split the goal instead of acting".into(),
            ending: Ending::Stalled { steps: 1 },
        },
    }
}

/// How a stretch of steps that may split its goal ended.
pub(super) enum Stepped {
    Stopped(Stop),
    /// The model answered with sub-goals instead of code (the tree strategy).
    Split(Vec<codeact_record::trajectory::PlanItem>),
}

/// [`steps_until_done`], and with `may_split` a reply that holds no code but
/// sub-goals (`{"subgoals": [...]}`) ends the stretch with them.
pub(super) async fn steps_until(
    run: &mut Run<'_>,
    progress: &mut ProgressSink<'_>,
    most: Option<usize>,
    give_up_on_stall: bool,
    may_split: bool,
) -> Stepped {
    let first = run.steps_taken();
    loop {
        let max_steps = run.options.max_steps;
        if run.budget_spent() {
            return Stepped::Stopped(Stop::End(Ending::BudgetSpent { max_steps }));
        }
        if let Some(most) = most.filter(|m| run.steps_taken() - first >= *m) {
            let why = format!("not done after {most} steps");
            return Stepped::Stopped(Stop::Failed { why, ending: Ending::BudgetSpent { max_steps } });
        }
        if run.interrupted() {
            return Stepped::Stopped(Stop::End(Ending::Interrupted { during: "" }));
        }
        run.may_split = may_split;
        let stepped = run.step(progress).await;
        run.may_split = false;
        let stop = match stepped {
            StepEnd::Stop(Ending::Completed(c)) if c.success => Stop::Done(c),
            StepEnd::Stop(Ending::Completed(c)) => {
                Stop::Failed { why: format!("the model gave up: {}", c.reason), ending: Ending::Completed(c) }
            }
            StepEnd::Stop(ending @ (Ending::Stalled { .. } | Ending::Looped { .. })) if give_up_on_stall => {
                Stop::Failed { why: ending.outcome().1, ending }
            }
            StepEnd::Stop(ending) => Stop::End(ending),
            StepEnd::Continue => {
                if may_split && let Some(items) = run.last_reply_splits() {
                    return Stepped::Split(items);
                }
                let threshold = run.options.error_threshold;
                let stalled = run.checks.stalled();
                if give_up_on_stall && threshold > 0 && stalled >= threshold {
                    let why = format!("{stalled} steps in a row ended in an error or changed nothing on screen");
                    return Stepped::Stopped(Stop::Failed { why, ending: Ending::Stalled { steps: stalled } });
                }
                continue;
            }
        };
        return Stepped::Stopped(stop);
    }
}

/// The plain loop: one stretch of steps is the whole run.
pub(crate) async fn run(run: &mut Run<'_>, progress: &mut ProgressSink<'_>) -> Ending {
    match steps_until_done(run, progress, None, false).await {
        Stop::Done(c) => Ending::Completed(c),
        Stop::Failed { ending, .. } | Stop::End(ending) => ending,
    }
}
