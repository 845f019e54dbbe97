//! The CodeAct loop, read top to bottom: start a run, take steps until one ends it
//! (or the budget does), finish the run. A step (`step.rs`) observes what the
//! persona needs, asks the model, runs the snippet it wrote on the observation it saw,
//! and records the step once, as a [`StepRecord`]; the prompt's history, the events
//! and the exported scripts come from those records. How a run ends is decided in
//! `outcome.rs`; wording is `prompt.rs`'s; repetition is `loop_guard.rs`'s.
//!
//! The loop is async (the LLM request); device and sandbox work is blocking and runs
//! in `block_in_place`.

mod loop_guard;
mod outcome;
pub mod prompt;
mod step;

use std::path::{Path, PathBuf};

use serde::Serialize;
use tokio_util::sync::CancellationToken;

pub use outcome::{Ending, Outcome};

use crate::llm::{LlmClient, Usage};
use crate::persona::Persona;
use crate::session::Session;
use crate::trajectory::{StepRecord, TrajectoryError};
use step::{Run, StepEnd};

/// What a run keeps besides events: files per step, per action, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SaveMode {
    /// The screenshot and UI dump the model saw at each step.
    Step,
    /// The screenshot and UI dump after every action (set the tools' recording too).
    Action,
    /// Neither (events, summary and scripts are always written).
    None,
}

impl SaveMode {
    pub fn as_str(self) -> &'static str {
        match self {
            SaveMode::Step => "step",
            SaveMode::Action => "action",
            SaveMode::None => "none",
        }
    }
}

#[derive(Debug, Clone)]
pub struct AgentOptions {
    pub task: String,
    pub max_steps: usize,
    /// Show the model a screenshot each step.
    pub vision: bool,
    pub save: SaveMode,
    /// Where run directories are made (`runs/`).
    pub out_dir: PathBuf,
    /// The same snippet on an unchanged screen this many times in a row ends the run.
    pub loop_limit: usize,
    /// How the device was named (`sim`, a serial), for the replay command.
    pub device_spec: Option<String>,
    /// This many steps in a row that end in an error or change nothing on screen
    /// make the model change approach; twice as many end the run (0: never).
    pub error_threshold: usize,
    /// Hold a `complete(true, ..)` that comes right after acting on a screen the
    /// model has not seen, and show it the final screen first.
    pub verify_completion: bool,
}

/// The run as `summary.json` holds it.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub task: String,
    pub persona: String,
    pub model: String,
    pub provider: String,
    pub device: String,
    pub outcome: Outcome,
    pub reason: String,
    pub steps: usize,
    pub tokens: Usage,
    /// Prompt tokens of each request, in order (as the server counted them).
    pub prompt_tokens_per_step: Vec<u64>,
    pub wall_ms: f64,
    /// Time spent waiting for the LLM.
    pub llm_ms: f64,
    /// Time spent in the device: observations and actions.
    pub device_ms: f64,
    /// Per step: wall time minus LLM and device time (the runtime's own cost).
    pub overhead_ms_per_step: f64,
    pub run_dir: PathBuf,
    /// The command that replays the run without the LLM.
    pub replay: String,
}

/// What the loop reports as it goes (the CLI prints it).
#[derive(Debug)]
pub enum Progress<'a> {
    Started { run_dir: &'a Path },
    Step { step: usize, max: usize },
    Reply { step: usize, headline: &'a str, usage: Usage, llm_ms: f64 },
    Ran { step: usize, record: &'a StepRecord },
    Note { step: usize, text: &'a str },
}

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error(transparent)]
    Trajectory(#[from] TrajectoryError),
    #[error("the agent loop needs a multi-threaded tokio runtime")]
    Runtime,
}

/// Runs `options.task` to its end. Errors only when the run directory cannot be
/// written; everything else (the LLM failing, the device lost, Ctrl-C through
/// `interrupt`) ends the run with an outcome, and the directory is complete.
pub async fn run_task(
    session: &mut Session,
    llm: &LlmClient,
    persona: &Persona,
    options: &AgentOptions,
    interrupt: &CancellationToken,
    progress: &mut (dyn FnMut(Progress) + Send),
) -> Result<Summary, AgentError> {
    if tokio::runtime::Handle::current().runtime_flavor() != tokio::runtime::RuntimeFlavor::MultiThread {
        return Err(AgentError::Runtime);
    }
    let mut run = Run::start(session, llm, persona, options, interrupt, progress)?;
    let ending = loop {
        if run.steps_taken() >= options.max_steps + run.extra_steps() {
            break Ending::BudgetSpent { max_steps: options.max_steps };
        }
        if interrupt.is_cancelled() {
            break Ending::Interrupted { during: "" };
        }
        if let StepEnd::Stop(ending) = run.step(progress).await {
            break ending;
        }
    };
    run.finish(ending)
}
