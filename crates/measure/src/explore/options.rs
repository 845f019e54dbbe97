//! What an exploration is asked: the strategy, the app, its budget and the user
//! it plays ([`ExploreOptions`]), and what the model-driven strategy needs beyond
//! that ([`ModelSetup`]). Only settings; running an exploration is `mod.rs` and
//! the strategies.

use std::path::PathBuf;

use serde::Serialize;

use super::budget::Budget;
use super::persona::UserPersona;
use codeact_agent::Models;
use codeact_runtime::persona::Persona;

/// How the explorer chooses what to do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// No model, no memory of what it did: random events (Monkey's baseline).
    Random,
    /// No model: every widget of every screen, with back-tracking.
    Systematic,
    /// A planner sets tasks, the agent does them, a reflector critiques.
    Llm,
}

impl Strategy {
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Random => "random",
            Strategy::Systematic => "systematic",
            Strategy::Llm => "llm",
        }
    }
}

/// What to explore and how.
#[derive(Debug, Clone)]
pub struct ExploreOptions {
    /// The package to explore.
    pub app: String,
    pub budget: Budget,
    pub strategy: Strategy,
    pub user: UserPersona,
    /// Where the run folder goes (`runs`).
    pub out_dir: PathBuf,
    /// Keep the app's data across restarts (by default each restart is clean, so
    /// every path found replays from a fresh install).
    pub keep_data: bool,
    /// A screenshot of every new screen for the report.
    pub screenshots: bool,
    /// Replay each finding's steps afterwards to check it happens again.
    pub replay_findings: bool,
    /// The run as spans to this exporter (`--otlp`).
    pub traces: Option<std::sync::Arc<codeact_record::trace::Traces>>,
    /// Random: the seed of its events (the same seed, the same events).
    pub seed: u64,
    /// Random: the pause between events, as Monkey's `--throttle` (0: none).
    pub throttle: std::time::Duration,
}

impl ExploreOptions {
    /// `codeact explore`'s defaults for `app`.
    pub fn new(app: &str) -> Self {
        Self {
            app: app.to_string(),
            budget: Budget::Actions(300),
            strategy: Strategy::Systematic,
            user: UserPersona::default_user(),
            out_dir: PathBuf::from("runs"),
            keep_data: false,
            screenshots: true,
            replay_findings: true,
            traces: None,
            seed: 1,
            throttle: std::time::Duration::ZERO,
        }
    }
}

/// What the model-driven explorer needs beyond [`ExploreOptions`].
pub struct ModelSetup<'a> {
    /// The actor's model, and the planner's and reflector's when they differ.
    pub models: &'a Models,
    /// The tools the agent has (a session persona, `default` in the CLI).
    pub persona: &'a Persona,
    /// The memory database (`None`: nothing is read back or kept).
    pub memory: Option<PathBuf>,
    /// An embeddings model for memory's worked examples (see `AgentOptions`).
    pub embeddings: Option<String>,
    /// The agent's step budget per task.
    pub task_steps: usize,
    /// How the agent does a task: `React` or `Tree` (with `tree_depth`).
    pub actor: codeact_agent::Strategy,
    pub tree_depth: usize,
    /// How the agent acts: Rhai snippets or function calls.
    pub actions: codeact_agent::ActionFormat,
    /// The reflector critiques after this many tasks (0: never).
    pub reflect_every: usize,
    /// Show the agent a screenshot each step.
    pub vision: bool,
    /// How the device was named, for the agent's replay command.
    pub device_spec: Option<String>,
}
