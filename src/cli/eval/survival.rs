//! `codeact eval --survival`: how recorded runs survive app updates, measured and
//! printed (`eval::survival::measure`). Not the suite run (`eval.rs`).

use std::process::ExitCode;

use codeact::config::{Flags, Helpers};
use codeact::eval::TaskSpec;
use codeact::eval::survival::{self, Form, Healer, SurvivalError, SurvivalProgress, SurvivalRequest};
use codeact::llm::LlmError;
use codeact::session::Session;
use codeact::terminal::clean;
use codeact::tools::{Recording, SensitivePolicy};

use super::flags::EvalArgs;

impl EvalArgs {
    /// `--survival`: the replay-survival table (`eval::survival::measure`), printed.
    pub(super) fn measure_survival(
        &self,
        tasks: Vec<TaskSpec>,
        traces: Option<std::sync::Arc<codeact::trace::Traces>>,
    ) -> anyhow::Result<ExitCode> {
        let defaults = Flags {
            default_record: Some(Recording::None),
            default_sensitive: Some(SensitivePolicy::Allow),
            ..Flags::default()
        };
        let mut settings = self.session.settings(&self.phones.device_args(self.platform.device()), defaults)?;
        let out_dir = self
            .out
            .clone()
            .unwrap_or_else(|| codeact::trajectory::new_run_dir(std::path::Path::new("evals"), "survival"));
        let runtime = super::super::interrupt::runtime()?;
        let models = match self.strategy.models(&settings.llm, &self.llm) {
            Ok(models) => Some(models),
            Err(e) if matches!(e.downcast_ref::<LlmError>(), Some(LlmError::NotConfigured { .. })) => {
                codeact::errln!(
                    "no LLM configured: the selectors+healing column is left out (give --base-url and --model to measure it)"
                );
                None
            }
            Err(e) => return Err(e),
        };
        let request = SurvivalRequest {
            tasks,
            seed: self.seed,
            parallel: self.parallel as usize,
            out_dir: out_dir.clone(),
            traces,
            healer: models.as_ref().map(|models| Healer {
                models,
                strategy: self.strategy.strategy,
                error_threshold: self.checks.error_threshold,
                save: self.save_trajectory,
                runtime: runtime.handle().clone(),
            }),
        };
        let interrupt = super::super::interrupt::cancel_on_signal(&runtime, "the instances under way");
        // Unattended: only an answers file answers.
        settings.helpers =
            Helpers { person: self.session.person(false)?, locator: self.locator.vision(&settings.llm, &self.llm)? };
        let settings = &settings;
        let open_session = || Session::open(settings);
        let mut progress = |p: SurvivalProgress| match p {
            SurvivalProgress::Recording { templates } => codeact::errln!(
                "codeact eval --survival: recording {templates} operation templates (seed {}) in {}",
                self.seed,
                out_dir.display()
            ),
            SurvivalProgress::LeftOut(ids) => {
                codeact::errln!("left out (the oracle did not solve them): {}", ids.join(", "))
            }
            SurvivalProgress::Cell { variant, form, solved, instances, llm_calls } => {
                let calls = if form == Form::Healing { format!(", {llm_calls} LLM calls") } else { String::new() };
                codeact::errln!("variant {variant}, {:<17} {solved}/{instances} solved{calls}", form.as_str());
            }
        };
        let survival = match survival::measure(request, &open_session, &interrupt.token, &mut progress) {
            Ok(survival) => survival,
            // Said in the flags' words.
            Err(SurvivalError::NoOperationTemplates) => anyhow::bail!(
                "--survival replays operation templates (judged on the phone's state), and --tasks selects none; `codeact eval --list` shows each template's kind"
            ),
            Err(SurvivalError::HealerSilent(why)) => anyhow::bail!(
                "stopped: the healer never answered ({}); check --base-url, --model and the key, then run again",
                codeact::terminal::one_line(&why)
            ),
            Err(e) => return Err(e.into()),
        };
        if survival.interrupted {
            return Ok(ExitCode::from(interrupt.exit_code().unwrap_or(130)));
        }
        codeact::out!("{}", clean(&survival.table.markdown()));
        codeact::errln!(
            "table: {} (and survival.json; each form's scripts under recorded/)",
            survival.markdown.display()
        );
        Ok(ExitCode::SUCCESS)
    }
}
