//! What a server is started with: the settings its sessions are opened with, where
//! run folders go, who answers when a client cannot be asked, which tools it lists,
//! and the model `run_task` uses. Data only; `cli/mcp.rs` fills it from flags.

use std::path::PathBuf;
use std::sync::Arc;

use codeact_agent::Models;
use codeact_runtime::config::Settings;
use codeact_runtime::persona::Persona;

/// What the server offers and how its sessions are set up.
#[derive(Clone)]
pub struct McpOptions {
    /// Persona, limits, tool options; `device` is where a call that names no
    /// device goes (`None`: the one phone the adb server sees); `helpers.person`
    /// answers confirmations and questions when the client cannot (an answers file).
    pub settings: Settings,
    /// Each client's run directory is made in here.
    pub out: PathBuf,
    pub expose: Expose,
    /// The model `run_task` and `eval` with the llm agent use (`None`: the server
    /// was given none; those calls say how to give one).
    pub agent: Option<AgentSetup>,
    /// Each client's session as spans to this exporter (`--otlp`).
    pub traces: Option<Arc<codeact_record::trace::Traces>>,
}

/// Which tools the server lists besides its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Expose {
    /// `run_script` and the server's tools (code mode).
    #[default]
    Code,
    /// The catalog's tools one by one, as MCP tools (one call per gesture), and the
    /// server's tools but `run_script`.
    Tools,
    /// Both.
    Both,
}

/// The model `run_task` and `eval` use, when the server was given one.
#[derive(Clone)]
pub struct AgentSetup {
    pub models: Arc<Models>,
    pub persona: Persona,
    /// Steps a task may take at most.
    pub max_steps: usize,
    /// Whether the model is shown screenshots.
    pub vision: bool,
}
