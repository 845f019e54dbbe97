//! What a caller asks of a run: [`AgentOptions`] (with the defaults `codeact run`
//! documents, from [`AgentOptions::new`]), which loop it follows ([`Strategy`]) and
//! what it keeps on disk ([`SaveMode`]). Not how a run uses them (`run.rs`, `step.rs`).

use std::path::PathBuf;

use serde::Serialize;

/// What a run keeps besides events: files per step, per action, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
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
    pub script: Option<codeact_record::memory::Experience>,
    /// An embeddings model at the actor's provider (`/v1/embeddings`): tasks are
    /// embedded, kept beside their experiences, and worked examples are the nearest
    /// by cosine (BM25 fills the rest). `None`: BM25 alone.
    pub embeddings: Option<String>,
    /// Where `report.html` keeps its screenshots.
    pub report: codeact_record::report::Assets,
    /// Export the run as a trace (`--otlp`).
    pub traces: Option<std::sync::Arc<codeact_record::trace::Traces>>,
    /// `--strategy tree`: a node this deep or deeper may not split its goal.
    pub tree_depth: usize,
    /// Also write the run's actions as a Maestro flow (`flow.yaml` in the run
    /// folder; `--export maestro`).
    pub export_flow: bool,
    /// How the model acts: a Rhai snippet per step, or function calls.
    pub actions: ActionFormat,
}

/// How the model acts (`--actions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum ActionFormat {
    /// A Rhai snippet per step, in a ```rhai block (the default).
    #[default]
    Code,
    /// The persona's tools as OpenAI function calls, one or several per step
    /// (`complete` is one too): the function-calling baseline.
    Json,
}

impl ActionFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            ActionFormat::Code => "code",
            ActionFormat::Json => "json",
        }
    }
}

impl AgentOptions {
    /// `task` with the defaults `codeact run` documents: 15 steps, screenshots
    /// shown, a step's files kept, runs under `runs/`, a loop of 3 stopped, an error
    /// threshold of 3, completions verified, plain ReAct with no reflector, no
    /// memory, no traces.
    pub fn new(task: impl Into<String>) -> Self {
        Self {
            task: task.into(),
            max_steps: 15,
            vision: true,
            save: SaveMode::Step,
            out_dir: PathBuf::from("runs"),
            loop_limit: 3,
            device_spec: None,
            error_threshold: 3,
            verify_completion: true,
            strategy: Strategy::React,
            reflect_every: Strategy::React.default_reflect_every(),
            memory: None,
            script: None,
            embeddings: None,
            report: codeact_record::report::Assets::default(),
            traces: None,
            tree_depth: 3,
            export_flow: false,
            actions: ActionFormat::Code,
        }
    }
}

/// Which loop a run follows (`--strategy`); the loops are in `strategy/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// Observe, write a snippet, run it, repeat until complete() (the default).
    #[default]
    React,
    /// A planner writes a numbered plan (each item a goal and the screen expected
    /// after it); the actor carries out one item at a time and complete() ends an
    /// item; a failed item, or steps that go nowhere, make the planner plan again
    /// from what happened.
    Plan,
    /// A planner writes an app-level plan (which apps, in order, and what values
    /// to carry between them); per app an app_starter sub-agent opens it and a
    /// ui_expert sub-agent acts in it; values pass between apps as variables in
    /// the shared sandbox.
    Hierarchical,
    /// A tree of goals: each node's model call writes code (it acts) or splits
    /// the goal into sub-goals (JSON), each a node of the same kind, depth-first in
    /// one session, down to `--tree-depth`; a failed sub-goal makes its parent
    /// split again once.
    Tree,
}

impl Strategy {
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::React => "react",
            Strategy::Plan => "plan",
            Strategy::Hierarchical => "hierarchical",
            Strategy::Tree => "tree",
        }
    }

    /// The reflector's default interval in actions (0: no reflector): on for the
    /// planning strategies, off for plain ReAct unless asked.
    pub fn default_reflect_every(self) -> usize {
        match self {
            Strategy::React | Strategy::Tree => 0,
            Strategy::Plan | Strategy::Hierarchical => 4,
        }
    }
}
