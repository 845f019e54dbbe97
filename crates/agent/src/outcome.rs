//! How a run ends, decided in one place: every way the loop can stop is an
//! [`Ending`], and [`Ending::outcome`] is the only place that turns one into the
//! run's [`Outcome`] and reason.

use serde::Serialize;

use codeact_engine::sandbox::Completion;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// `complete(true, ..)`.
    Success,
    /// `complete(false, ..)`, the step budget, or a loop.
    Failure,
    /// Ctrl-C (or the interrupt token).
    Interrupted,
    /// The LLM or the device failed.
    Error,
}

impl Outcome {
    /// The process exit code the CLI documents: 0, 1, 2 or 130.
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::Success => 0,
            Outcome::Failure => 1,
            Outcome::Error => 2,
            Outcome::Interrupted => 130,
        }
    }
}

/// Why the loop stopped.
#[derive(Debug, Clone)]
pub enum Ending {
    /// The snippet called `complete()`.
    Completed(Completion),
    /// `--max-steps` steps ran without `complete()`.
    BudgetSpent { max_steps: usize },
    /// The same code ran this many times in a row on an unchanged screen.
    Looped { times: usize },
    /// This many steps in a row ended in an error or changed nothing on screen
    /// (twice the error threshold).
    Stalled { steps: usize },
    /// Ctrl-C; `during` says what the run was doing.
    Interrupted { during: &'static str },
    /// The device stopped answering (the full error).
    DeviceLost(String),
    /// The LLM failed for good: the full error, and whether the failing role's model
    /// never answered in the run (a wrong address, model or key, or a provider down).
    LlmFailed { message: String, never_answered: bool },
    /// A replay of a remembered run completed, but without what that run did (its
    /// toggles, its final screen): what the completion claimed, and what is missing.
    NotReproduced { claimed: String, missing: Vec<String> },
}

impl Ending {
    /// The run's outcome and the reason `summary.json` gives.
    pub fn outcome(&self) -> (Outcome, String) {
        match self {
            Ending::Completed(c) if c.success => (Outcome::Success, c.reason.clone()),
            Ending::Completed(c) => (Outcome::Failure, c.reason.clone()),
            Ending::BudgetSpent { max_steps } => {
                (Outcome::Failure, format!("reached --max-steps {max_steps} without complete()"))
            }
            Ending::Looped { times } => (
                Outcome::Failure,
                format!("stopped a loop: the same code ran {times} times in a row on an unchanged screen"),
            ),
            Ending::Stalled { steps } => (
                Outcome::Failure,
                format!("gave up: {steps} steps in a row ended in an error or changed nothing on screen"),
            ),
            Ending::Interrupted { during } => (Outcome::Interrupted, format!("interrupted (Ctrl-C){during}")),
            Ending::DeviceLost(e) => (Outcome::Error, format!("the device stopped answering: {e}")),
            Ending::LlmFailed { message, .. } => (Outcome::Error, message.clone()),
            Ending::NotReproduced { claimed, missing } => (
                Outcome::Failure,
                format!(
                    "completed ({claimed:?}) without what the remembered run of this task did: {}",
                    missing.join("; ")
                ),
            ),
        }
    }
}
