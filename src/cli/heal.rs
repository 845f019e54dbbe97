//! `codeact exec --heal`: maps the flags to a [`HealRequest`] (the model from
//! `--base-url`/`--model`, the configured persona), runs `script::heal`, and prints
//! how it went. Not the healing (`codeact::script::heal`) or the plain `codeact exec`
//! (exec.rs).

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use codeact::agent::{Models, Outcome};
use codeact::config::Settings;
use codeact::llm::{LlmClient, LlmConfig};
use codeact::script::Script;
use codeact::script::heal::{HealRequest, heal};
use codeact::session::Session;
use codeact::terminal::clean;

use super::args::LlmArgs;
use super::run::print_progress;

/// Everything `--heal` needs from the command line.
pub(super) struct HealFlags<'a> {
    pub script: &'a Script,
    pub goal: Option<String>,
    pub vars: &'a [(String, rhai::Dynamic)],
    pub llm: &'a LlmArgs,
    pub trajectory: Option<&'a Path>,
    pub fresh_world: bool,
    pub traces: Option<std::sync::Arc<codeact::trace::Traces>>,
}

pub(super) fn heal_script(flags: HealFlags, settings: &Settings, session: &mut Session) -> anyhow::Result<ExitCode> {
    let actor = LlmConfig::resolve(&settings.llm, &flags.llm.flags()).context("--heal asks an LLM to heal a step")?;
    let models = Models::single(LlmClient::new(actor)?);
    let script = flags.script;
    let request = HealRequest {
        script,
        goal: flags.goal,
        vars: flags.vars,
        models: &models,
        persona: settings.persona.as_ref(),
        trajectory: flags.trajectory,
        fresh_world: flags.fresh_world,
        device_spec: settings.device.clone(),
        traces: flags.traces.clone(),
    };
    let runtime = super::interrupt::runtime()?;
    let interrupt = super::interrupt::cancel_on_signal(&runtime, "the run directory");
    let healed = runtime.block_on(heal(session, request, &interrupt.token, &mut print_progress));
    super::args::finish_traces(flags.traces.as_deref());
    let healed = healed?;
    let summary = &healed.summary;
    let calls = summary.llm_calls();
    codeact::outln!(
        "{} after {} step{}, {calls} LLM call{}: {}",
        if summary.outcome == Outcome::Success { "passed" } else { "did not pass" },
        summary.steps,
        if summary.steps == 1 { "" } else { "s" },
        if calls == 1 { "" } else { "s" },
        codeact::terminal::one_line(&summary.reason)
    );
    codeact::outln!("run directory: {}", codeact::terminal::path(&summary.run_dir));
    match healed.healed_script {
        Some(Ok(healed)) => {
            codeact::out!("{}", clean(&healed.diff));
            codeact::outln!(
                "healed script: {} (the diff from {}: {})",
                healed.path.display(),
                script.path.display(),
                healed.diff_path.display()
            );
        }
        Some(Err(e)) => return Err(e.into()),
        None => {}
    }
    let code = match summary.outcome {
        Outcome::Interrupted => interrupt.exit_code().unwrap_or(summary.outcome.exit_code()),
        other => other.exit_code(),
    };
    Ok(ExitCode::from(code))
}
