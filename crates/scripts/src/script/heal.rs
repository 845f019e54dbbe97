//! `codeact exec --heal` as a library call: one hand-written script run step by
//! step (each top-level statement a step) through the agent's replay, so that only a
//! step that errs goes to the LLM; when the model healed a step and the script then
//! passed, the original with only its diverged statements replaced is written beside
//! it as `NAME.healed.rhai`, with the unified diff as `NAME.healed.diff` (the
//! original is never changed; the model's reasoning stays in the run directory).
//! Not the plain run of scripts (`script/mod.rs`), the splitting (`steps.rs`) or
//! the patching (`patch.rs`).

use std::path::{Path, PathBuf};

use rhai::Dynamic;
use tokio_util::sync::CancellationToken;

use super::steps;
use super::vocab::Script;
use codeact_agent::{self as agent, AgentError, AgentOptions, Models, Outcome, ProgressSink, RunSummary};
use codeact_record::memory::{Experience, ReplayStep};
use codeact_runtime::persona::{Persona, PersonaError};
use codeact_runtime::session::Session;

/// Steps the model may take in all, beyond one per script step.
const HEALING_BUDGET: usize = 15;

/// A script to heal, and how.
pub struct HealRequest<'a> {
    pub script: &'a Script,
    /// What the model is told the script is for (default: the script's opening
    /// comment, else its name).
    pub goal: Option<String>,
    /// Variables the script starts with (`--var`).
    pub vars: &'a [(String, Dynamic)],
    pub models: &'a Models,
    /// The persona the healer acts with (`None`: every tool, as a script may call any).
    pub persona: Option<&'a Persona>,
    /// Where the run directory goes (`runs/` when `None`).
    pub trajectory: Option<&'a Path>,
    /// Reset the virtual phone first.
    pub fresh_world: bool,
    /// How the device was named, for the replay command.
    pub device_spec: Option<String>,
    pub traces: Option<std::sync::Arc<codeact_record::trace::Traces>>,
}

/// A healing run: the agent's summary, and the healed script — written, not
/// written (why: the run directory is complete all the same), or none to write (the
/// script passed as it was, or did not pass).
#[derive(Debug)]
pub struct Healed {
    pub summary: RunSummary,
    pub healed_script: Option<Result<HealedScript, HealError>>,
}

/// The healed script as written: its path, and the unified diff from the original
/// (also written beside it, as `NAME.healed.diff`).
#[derive(Debug, Clone)]
pub struct HealedScript {
    pub path: PathBuf,
    pub diff_path: PathBuf,
    pub diff: String,
}

#[derive(Debug, thiserror::Error)]
pub enum HealError {
    #[error("{} has no statements to run", .0.display())]
    Empty(PathBuf),
    #[error("{} imports a subflow, which --heal cannot run step by step yet; run it without --heal", .0.display())]
    ImportsSubflow(PathBuf),
    #[error(transparent)]
    Persona(#[from] PersonaError),
    #[error("cannot reset the virtual phone")]
    Reset(#[source] codeact_platform::device::DeviceError),
    #[error("cannot set the variable {name}")]
    Variable {
        name: String,
        #[source]
        source: codeact_engine::isolation::IsolationError,
    },
    #[error(transparent)]
    Agent(#[from] AgentError),
    #[error("cannot read the healed script in {}", .dir.display())]
    ReadHealed {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {}", .path.display())]
    WriteHealed {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Where the healed script goes: `NAME.healed.rhai` beside `NAME.rhai`.
pub fn healed_path(script: &Path) -> PathBuf {
    let stem = script.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "script".into());
    script.with_file_name(format!("{stem}.healed.rhai"))
}

/// The persona the healer acts with by default: every tool (a script may call any).
fn every_tool() -> Result<Persona, PersonaError> {
    let mut persona = Persona::load("big_agent")?;
    persona.name = "script".into();
    // A tool with two forms (`tap(sel)`, `tap(x, y)`) is one name.
    persona.tools.clear();
    for spec in codeact_tools::CATALOG {
        if !persona.tools.iter().any(|t| t == spec.name) {
            persona.tools.push(spec.name.to_string());
        }
    }
    Ok(persona)
}

/// Runs `request.script` step by step on `session`, the model healing only a step
/// that errs; writes the healed script when the model healed one and the run passed.
pub async fn heal(
    session: &mut Session,
    request: HealRequest<'_>,
    interrupt: &CancellationToken,
    progress: &mut ProgressSink<'_>,
) -> Result<Healed, HealError> {
    let script = request.script;
    let split = steps::split(&script.code);
    if split.is_empty() {
        return Err(HealError::Empty(script.path.clone()));
    }
    if split.iter().any(|s| s.code.starts_with("import ")) {
        return Err(HealError::ImportsSubflow(script.path.clone()));
    }
    let goal = request.goal.clone().or_else(|| steps::goal(&script.code)).unwrap_or_else(|| {
        format!("Do what the script {} does", script.path.file_name().unwrap_or_default().to_string_lossy())
    });
    let experience = Experience {
        task: goal.clone(),
        apps: Vec::new(),
        steps: split
            .iter()
            .map(|s| ReplayStep {
                intent: s.intent.clone(),
                code: s.code.clone(),
                app: String::new(),
                activity: String::new(),
                anchor: None,
            })
            .collect(),
        effects: None,
    };
    let persona = match request.persona {
        Some(p) => p.clone(),
        None => every_tool()?,
    };
    if request.fresh_world {
        session.reset_virtual_phone().map_err(HealError::Reset)?;
    }
    for (name, value) in request.vars {
        session.set_var(name, value.clone()).map_err(|source| HealError::Variable { name: name.clone(), source })?;
    }
    let options = AgentOptions {
        max_steps: split.len() + HEALING_BUDGET,
        vision: false,
        out_dir: request.trajectory.map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("runs")),
        device_spec: request.device_spec.clone(),
        verify_completion: false,
        script: Some(experience),
        traces: request.traces.clone(),
        ..AgentOptions::new(goal)
    };
    let summary = agent::run_task(
        agent::AgentRequest { session, models: request.models, persona: &persona, options: &options },
        interrupt,
        progress,
    )
    .await?;
    let healed_script = (summary.llm_calls() > 0 && summary.outcome == Outcome::Success)
        .then(|| write_healed(&summary, script, &split));
    Ok(Healed { summary, healed_script })
}

/// Writes `NAME.healed.rhai` beside `script` — the original with its diverged
/// statements replaced (the run's whole selector script when a statement cannot be
/// found as written) — and `NAME.healed.diff`.
fn write_healed(summary: &RunSummary, script: &Script, split: &[steps::ScriptStep]) -> Result<HealedScript, HealError> {
    let dir = &summary.run_dir;
    let events = codeact_record::trajectory::read_events(dir);
    let healed = match super::patch::healed_text(&script.code, split, &events) {
        Some(text) => text,
        None => codeact_base::files::read_text(&dir.join("script.selectors.rhai"), codeact_base::files::TEXT_BYTES)
            .map_err(|source| HealError::ReadHealed { dir: dir.clone(), source })?,
    };
    let path = healed_path(&script.path);
    let diff_path = path.with_extension("diff");
    let name = |p: &Path| p.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let diff = super::patch::unified_diff(&script.code, &healed, &name(&script.path), &name(&path));
    // Renamed into place: a link shipped at that name is replaced, never written through.
    for (file, text) in [(&path, &healed), (&diff_path, &diff)] {
        codeact_base::files::write_replacing(file, text.as_bytes())
            .map_err(|source| HealError::WriteHealed { path: file.clone(), source })?;
    }
    Ok(HealedScript { path, diff_path, diff })
}
