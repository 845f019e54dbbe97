//! What a run hands back and leaves in `summary.json`: the [`RunSummary`], with the
//! typed [`Ending`] the outcome and reason come from and whether `report.html` was
//! written. Not how the summary is put together (`run.rs`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;

use super::outcome::{Ending, Outcome};
use super::roles::RoleUsage;
use codeact_record::report::ReportError;
use codeact_runtime::llm::Usage;

/// `report.html` in the run directory, or why it could not be written.
pub type ReportWritten = Result<PathBuf, Arc<ReportError>>;

/// The report as `summary.json` says it: its path, or why there is none.
fn report_path<S: serde::Serializer>(report: &ReportWritten, s: S) -> Result<S::Ok, S::Error> {
    match report {
        Ok(path) => s.serialize_str(&path.display().to_string()),
        Err(why) => s.serialize_str(&format!("not written: {}", codeact_base::error_text::full_message(why.as_ref()))),
    }
}

/// The run as `summary.json` holds it.
#[derive(Debug, Clone, Serialize)]
pub struct RunSummary {
    pub task: String,
    pub persona: String,
    pub model: String,
    pub provider: String,
    pub device: String,
    /// How the run ended, typed (`outcome` and `reason` are its words).
    #[serde(skip)]
    pub ending: Ending,
    pub outcome: Outcome,
    pub reason: String,
    pub steps: usize,
    /// The device actions the run's steps made (replayed ones too), as a script's
    /// are counted.
    pub actions: usize,
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
    pub report: ReportWritten,
    /// react, plan, hierarchical or tree.
    pub strategy: String,
    /// How the model acted: `code` (Rhai snippets) or `json` (function calls).
    pub action_format: String,
    /// Each role's model, calls and tokens (actor, planner, reflector).
    pub roles: BTreeMap<String, RoleUsage>,
    /// What memory did: replayed an experience (healed or not), kept this run as
    /// one, or nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// The run as a Maestro flow, when the options asked for one.
    #[serde(skip)]
    pub flow: Option<Arc<codeact_flows::maestro::export::FlowWritten>>,
}

impl RunSummary {
    /// Requests any role's model answered.
    pub fn llm_calls(&self) -> usize {
        self.roles.values().map(|r| r.calls).sum()
    }
}
