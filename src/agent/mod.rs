//! The CodeAct loop, read top to bottom: start a run, take steps until one ends it
//! (or the budget does), finish the run. A step (`step.rs`) observes what the
//! persona needs, asks the model, runs the snippet it wrote on the observation it saw,
//! and records the step once, as a [`StepRecord`]; the prompt's history, the events
//! and the exported scripts come from those records. How a run ends is decided in
//! `outcome.rs`; wording is `prompt.rs`'s; repetition is `loop_guard.rs`'s.
//!
//! The loop is async (the LLM request); device and sandbox work is blocking and runs
//! in `block_in_place`.

mod hierarchical;
mod loop_guard;
mod outcome;
mod plan;
pub mod plan_text;
pub mod prompt;
mod react;
mod reflect;
mod replay;
pub mod roles;
mod step;
mod strategy;

use std::path::{Path, PathBuf};

use serde::Serialize;
use tokio_util::sync::CancellationToken;

pub use outcome::{Ending, Outcome};
pub use roles::{Models, Role, RoleUsage};
pub use strategy::Strategy;

use crate::llm::Usage;
use crate::persona::Persona;
use crate::session::Session;
use crate::trajectory::{StepRecord, TrajectoryError};
use replay::Replaying;
use step::{LentMemory, Run};

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
    /// Which loop the run follows.
    pub strategy: Strategy,
    /// The reflector critiques progress after this many actions, and after a
    /// failed step (0: no reflector).
    pub reflect_every: usize,
    /// The memory database: a successful run of the same task there is replayed
    /// first, and a successful run is kept there (`None`: no memory).
    pub memory: Option<PathBuf>,
    /// A hand-written script to run step by step instead of asking the model
    /// (`codeact exec --heal`): only a step that errs goes to the model, and the
    /// script's end is the run's success. Memory is not used.
    pub script: Option<crate::memory::Experience>,
    /// An embeddings model at the actor's provider (`/v1/embeddings`): tasks are
    /// embedded, kept beside their experiences, and worked examples are the nearest
    /// by cosine (BM25 fills the rest). `None`: BM25 alone.
    pub embeddings: Option<String>,
    /// Where `report.html` keeps its screenshots.
    pub report: crate::report::Assets,
    /// Export the run as a trace (`--otlp`).
    pub traces: Option<std::sync::Arc<crate::trace::Traces>>,
}

/// The report as `summary.json` says it: its path, or why there is none.
fn report_path<S: serde::Serializer>(report: &Result<PathBuf, String>, s: S) -> Result<S::Ok, S::Error> {
    match report {
        Ok(path) => s.serialize_str(&path.display().to_string()),
        Err(why) => s.serialize_str(&format!("not written: {why}")),
    }
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
    /// `report.html` in the run directory, or why it could not be written.
    #[serde(serialize_with = "report_path")]
    pub report: Result<PathBuf, String>,
    /// react, plan or hierarchical.
    pub strategy: String,
    /// Each role's model, calls and tokens (actor, planner, reflector).
    pub roles: std::collections::BTreeMap<String, RoleUsage>,
    /// What memory did: replayed an experience (healed or not), kept this run as
    /// one, or nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
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
    #[error(transparent)]
    Persona(#[from] crate::persona::PersonaError),
}

/// Reviewers' notes on earlier runs of the same task a prompt carries (and a run keeps).
const LESSONS: usize = 2;
/// Widget facts loaded for a run's hints (the most seen first).
const WIDGET_FACTS: usize = 5000;

/// The worked examples for `task`: the nearest by embedding when there is one,
/// then the best by BM25, [`EXAMPLES`] in all, as the prompt shows them.
fn worked_examples(store: &crate::memory::Store, task: &str, embedded: Option<&(&str, Vec<f32>)>) -> Option<String> {
    let mut rows = match embedded {
        Some((model, vector)) => store.nearest(task, model, vector, EXAMPLES).unwrap_or_default(),
        None => Vec::new(),
    };
    if rows.len() < EXAMPLES {
        for row in store.similar(task, EXAMPLES).unwrap_or_default() {
            if rows.len() < EXAMPLES && !rows.iter().any(|r| r.id == row.id) {
                rows.push(row);
            }
        }
    }
    (!rows.is_empty()).then(|| rows.iter().map(|r| r.experience.as_example()).collect::<Vec<_>>().join("\n"))
}

/// How many worked examples from memory a prompt carries.
const EXAMPLES: usize = 2;

/// The persona a session for `--strategy hierarchical` needs: the tools of both
/// sub-agents (`app_starter` and `ui_expert`); each is held to its own during the run.
pub fn hierarchical_persona() -> Result<Persona, crate::persona::PersonaError> {
    hierarchical::SubAgents::session_persona()
}

/// Runs `options.task` to its end. Errors only when the run directory cannot be
/// written; everything else (the LLM failing, the device lost, Ctrl-C through
/// `interrupt`) ends the run with an outcome, and the directory is complete.
pub async fn run_task(
    session: &mut Session,
    models: &Models,
    persona: &Persona,
    options: &AgentOptions,
    interrupt: &CancellationToken,
    progress: &mut (dyn FnMut(Progress) + Send),
) -> Result<Summary, AgentError> {
    if tokio::runtime::Handle::current().runtime_flavor() != tokio::runtime::RuntimeFlavor::MultiThread {
        return Err(AgentError::Runtime);
    }
    // The sub-agents' personas live as long as the run.
    let sub_agents = match options.strategy {
        Strategy::Hierarchical => Some(hierarchical::SubAgents::load()?),
        _ => None,
    };
    let memory = if options.script.is_some() { None } else { options.memory.as_deref() };
    let store = memory.and_then(|path| match crate::memory::Store::open(path) {
        Ok(store) => Some(store),
        Err(e) => {
            let text = format!("memory is off for this run: {}", crate::error_text::full_message(&e));
            progress(Progress::Note { step: 0, text: &text });
            None
        }
    });
    let recalled = store
        .as_ref()
        .and_then(|s| s.find_task(&options.task).ok().flatten())
        .filter(|row| !row.experience.steps.is_empty());
    // One embeddings request per run, made before the run starts its clock.
    let embedded = match (&store, &options.embeddings) {
        (Some(_), Some(model)) => match models.actor.embed(model, &options.task).await {
            Ok(vector) => Some((model.as_str(), vector)),
            Err(e) => {
                let text =
                    format!("memory: no embedding for this run, BM25 alone: {}", crate::error_text::full_message(&e));
                progress(Progress::Note { step: 0, text: &text });
                None
            }
        },
        _ => None,
    };
    let mut run = Run::start(session, models, persona, options, interrupt, progress)?;
    if let Some(store) = &store {
        // Worked examples only when nothing is replayed; cards always.
        let examples = match &recalled {
            Some(_) => None,
            None => worked_examples(store, &options.task, embedded.as_ref()),
        };
        run.lend_memory(LentMemory {
            examples,
            lessons: store.reflections(&options.task, LESSONS).unwrap_or_default(),
            cards: store.cards().unwrap_or_default(),
            widgets: crate::memory::WidgetHints::new(store.widgets(WIDGET_FACTS).unwrap_or_default()),
        });
    }
    let ending = match (&options.script, &recalled, &sub_agents, options.strategy) {
        (Some(script), ..) => replay::run(&mut run, Replaying::Script, script, progress).await,
        (None, Some(row), ..) => replay::run(&mut run, Replaying::Memory(row.id), &row.experience, progress).await,
        (None, None, Some(sub), _) => hierarchical::run(&mut run, sub, progress).await,
        (None, None, None, Strategy::Plan) => plan::run(&mut run, progress).await,
        (None, None, None, _) => react::run(&mut run, progress).await,
    };
    if let Some(store) = &store {
        // What elements did, and what the reviewer said, are worth keeping from
        // any run; a failed run's memory note says if they could not be kept.
        let learned = store.learn_widgets(&run.widget_facts());
        let reviewed =
            run.reflections().iter().rev().take(LESSONS).try_for_each(|r| store.add_reflection(&options.task, r));
        if let Err(e) = learned.and(reviewed) {
            let text = format!("memory: what this run learned was not kept: {}", crate::error_text::full_message(&e));
            progress(Progress::Note { step: run.steps_taken(), text: &text });
        }
    }
    if let Some(store) = &store
        && ending.outcome().0 == Outcome::Success
    {
        let experience = run.experience();
        let kept = match &recalled {
            Some(row) if run.llm_calls() == 0 => {
                store.replayed(row.id).map(|()| format!("replayed experience {}", row.id))
            }
            Some(row) => {
                store.heal(row.id, &experience).map(|()| format!("replayed experience {}, healed by the model", row.id))
            }
            None => store.add(&experience).map(|id| format!("kept as experience {id}")),
        };
        let id =
            recalled.as_ref().map(|row| row.id).or_else(|| store.find_task(&options.task).ok().flatten().map(|r| r.id));
        if let (Some((model, vector)), Some(id)) = (&embedded, id) {
            let _ = store.set_embedding(id, model, vector);
        }
        run.set_memory_note(match kept {
            Ok(note) => note,
            Err(e) => format!("not kept: {}", crate::error_text::full_message(&e)),
        });
    } else if let Some(row) = &recalled {
        run.set_memory_note(format!("replayed experience {}; the run failed, so memory is unchanged", row.id));
    }
    run.finish(ending)
}
