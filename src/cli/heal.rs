//! `codeact exec --heal`: one hand-written script run step by step (each top-level
//! statement a step) through the agent's replay, so that only a step that errs goes
//! to the LLM; the script with its healed steps is written beside the original.
//! Not the plain `codeact exec` (exec.rs) or the splitting (`script::steps`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use codeact::agent::{self, AgentOptions, Models, Outcome};
use codeact::config::Settings;
use codeact::llm::{LlmClient, LlmConfig};
use codeact::memory::{Experience, ReplayStep};
use codeact::persona::Persona;
use codeact::script::{Script, steps};
use codeact::session::Session;
use codeact::terminal::clean;

use super::args::LlmArgs;
use super::run::print_progress;

/// Steps the model may take in all, beyond one per script step.
const HEALING_BUDGET: usize = 15;

/// Everything `--heal` needs from the command line.
pub(super) struct HealRequest<'a> {
    pub script: &'a Script,
    pub goal: Option<String>,
    pub vars: &'a [(String, rhai::Dynamic)],
    pub llm: &'a LlmArgs,
    pub trajectory: Option<&'a Path>,
    pub fresh_world: bool,
    pub traces: Option<std::sync::Arc<codeact::trace::Traces>>,
}

/// Where the healed script goes: `NAME.healed.rhai` beside `NAME.rhai`.
fn healed_path(script: &Path) -> PathBuf {
    let stem = script.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "script".into());
    script.with_file_name(format!("{stem}.healed.rhai"))
}

/// The persona the healer acts with: the configured one, else every tool (a
/// script may call any).
fn healer_persona(settings: &Settings) -> anyhow::Result<Persona> {
    if let Some(p) = &settings.persona {
        return Ok(p.clone());
    }
    let mut persona = Persona::load("big_agent")?;
    persona.name = "script".into();
    // A tool with two forms (`tap(sel)`, `tap(x, y)`) is one name.
    persona.tools.clear();
    for spec in codeact::tools::CATALOG {
        if !persona.tools.iter().any(|t| t == spec.name) {
            persona.tools.push(spec.name.to_string());
        }
    }
    Ok(persona)
}

pub(super) fn heal(request: HealRequest, settings: &Settings, session: &mut Session) -> anyhow::Result<ExitCode> {
    let script = request.script;
    let split = steps::split(&script.code);
    if split.is_empty() {
        anyhow::bail!("{} has no statements to run", script.path.display());
    }
    if split.iter().any(|s| s.code.starts_with("import ")) {
        anyhow::bail!(
            "{} imports a subflow, which --heal cannot run step by step yet; run it without --heal",
            script.path.display()
        );
    }
    let actor = LlmConfig::resolve(&settings.llm, &request.llm.flags()).context("--heal asks an LLM to heal a step")?;
    let models = Models { actor: LlmClient::new(actor)?, planner: None, reflector: None };
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
    };
    let persona = healer_persona(settings)?;
    if request.fresh_world {
        session.reset_virtual_phone().context("cannot reset the virtual phone")?;
    }
    for (name, value) in request.vars {
        session.set_var(name, value.clone())?;
    }
    let options = AgentOptions {
        max_steps: split.len() + HEALING_BUDGET,
        vision: false,
        out_dir: request.trajectory.map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("runs")),
        device_spec: settings.device.clone(),
        verify_completion: false,
        script: Some(experience),
        traces: request.traces.clone(),
        ..AgentOptions::new(goal)
    };
    let runtime = super::interrupt::runtime()?;
    let interrupt = super::interrupt::cancel_on_ctrl_c(&runtime, "the run directory");
    let summary =
        runtime.block_on(agent::run_task(session, &models, &persona, &options, &interrupt, &mut print_progress));
    super::args::finish_traces(request.traces.as_deref());
    let summary = summary?;
    let healed_calls: usize = summary.roles.values().map(|r| r.calls).sum();
    codeact::outln!(
        "{} after {} step{}, {healed_calls} LLM call{}: {}",
        if summary.outcome == Outcome::Success { "passed" } else { "did not pass" },
        summary.steps,
        if summary.steps == 1 { "" } else { "s" },
        if healed_calls == 1 { "" } else { "s" },
        clean(&summary.reason)
    );
    codeact::outln!("run directory: {}", summary.run_dir.display());
    if healed_calls > 0 && summary.outcome == Outcome::Success {
        let healed =
            codeact::files::read_text(&summary.run_dir.join("script.selectors.rhai"), codeact::files::TEXT_BYTES)
                .with_context(|| format!("cannot read the healed script in {}", summary.run_dir.display()))?;
        let path = healed_path(&script.path);
        // Renamed into place: a link shipped at that name is replaced, never written through.
        codeact::files::write_replacing(&path, healed.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
        codeact::outln!("healed script: {} (compare it with {})", path.display(), script.path.display());
    }
    Ok(ExitCode::from(summary.outcome.exit_code()))
}
