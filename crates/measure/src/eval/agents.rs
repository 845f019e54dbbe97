//! Who does a suite's tasks: the oracle (each template's reference script), the
//! oracle recording what it does, recorded scripts, or the LLM loop with its
//! models and options. Not how an instance runs with one (`instance.rs`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use codeact_agent::{ActionFormat, Models, SaveMode, Strategy};
use codeact_runtime::persona::Persona;

/// Who does the tasks.
pub enum Agent<'a> {
    /// Each template's reference script, run as `codeact exec` runs one.
    Oracle,
    /// The oracle, each instance's actions (with where their elements were) kept by
    /// template id, for the replay-survival measurement.
    Recorder(&'a Mutex<HashMap<String, Recorded>>),
    /// A script per template id run instead of the oracle's (a recorded run replayed
    /// in one form); a template without one is an error.
    Scripts(&'a HashMap<String, String>),
    /// The `codeact run` loop.
    Llm(LlmAgent<'a>),
}

pub struct LlmAgent<'a> {
    /// The model of each role.
    pub models: &'a Models,
    pub persona: &'a Persona,
    /// As `codeact run --strategy`.
    pub strategy: Strategy,
    /// As `codeact run --reflect-every`.
    pub reflect_every: usize,
    /// As `codeact run --tree-depth`.
    pub tree_depth: usize,
    /// As `codeact run --actions`.
    pub actions: ActionFormat,
    pub vision: bool,
    /// As `codeact run --error-threshold`.
    pub error_threshold: usize,
    /// As `codeact run --verify-completion`.
    pub verify_completion: bool,
    pub save: SaveMode,
    /// The runtime the agent's requests run on (multi-threaded).
    pub runtime: tokio::runtime::Handle,
    /// A memory database to replay from and keep runs in (`None`: the suite measures
    /// the agent alone), and steps allowed beyond each template's own budget (a
    /// replayed step counts as a step).
    pub memory: Option<(PathBuf, usize)>,
    /// At most this many steps per instance, whatever a template allows.
    pub max_steps: Option<usize>,
}

/// An oracle run as the recorder keeps it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub goal: String,
    pub actions: Vec<codeact_engine::sandbox::Action>,
    pub score: f64,
}
