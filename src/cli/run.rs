//! `codeact run`: the agent on one task, with progress on stderr, the summary on
//! stdout, and the exit code of its outcome (0, 1, 2 or 130).

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use codeact::agent::{self, AgentOptions, Outcome, Progress, SaveMode};
use codeact::config::{Flags, Helpers};
use codeact::error_text::full_message;
use codeact::session::Session;
use codeact::terminal::clean;
use codeact::tools::{Recording, SensitivePolicy};

use super::args::{
    CheckArgs, DeviceArgs, LlmArgs, LocatorArgs, MemoryArgs, SessionArgs, StrategyArgs, Switch, TraceArgs, Vision,
    finish_traces,
};

/// Let an LLM do a task on a device: each step it reads the screen, writes a Rhai
/// snippet, the snippet runs in the sandbox, and the result goes back, until the
/// snippet calls complete().
///
///   export OPENAI_API_KEY=sk-...
///   codeact run --device sim "Turn off Wi-Fi"
///   codeact run -d sim --base-url http://localhost:11434/v1 --model qwen2.5:7b --vision off "Send 你好 to 张三"
///
/// Strategies: --strategy react (the loop above), plan (a planner writes a plan,
/// the actor does it item by item, a failed item is planned again),
/// hierarchical (an app-level plan; per app an app_starter then a ui_expert
/// sub-agent; values carried in sandbox variables) or tree (each goal is a node
/// that writes code or splits into sub-goals, down to --tree-depth; each node
/// judged, remembered and drawn in the report). Each role can have its own
/// model: --planner-model, --reflector-model, or [llm.planner] / [llm.reflector] in
/// codeact.toml; a reflector (--reflect-every N) critiques progress into the prompt.
///
///   codeact run -d sim --strategy plan --planner-model gpt-4o --model gpt-4o-mini "Turn off Wi-Fi"
///   codeact run -d sim --strategy tree --reflector-model gpt-4o "Turn off Wi-Fi and note it in Notes"
///
/// --actions json makes the model act by function calls instead of code (the
/// persona's tools as OpenAI tools, complete one of them), with the same screen,
/// checks and records: the baseline to measure code against
/// (`codeact eval --actions code,json` runs both on the same tasks).
///
/// A person in the loop: snippets may call ask_user(q), take_over(reason) and
/// type_secret(name) ($CODEACT_SECRET_NAME or --secrets FILE). Before acting on
/// something that matches a sensitive rule (pay, buy, purchase, transfer, delete,
/// uninstall, factory reset, send money, in English and Chinese, plus [sensitive]
/// rules in codeact.toml) the runtime asks you at the terminal; without one, an
/// --answers file answers ([ask], [confirm], [take_over] tables of "pattern" =
/// "answer"), else it is refused.
///
///   codeact run -d sim --answers answers.toml "Delete all notes"
///
/// Every run gets its own folder under --out, written as the run goes:
/// events.jsonl, screenshots/ and ui/, summary.json, and script.rhai plus
/// script.selectors.rhai, which `codeact exec` replays without the LLM. Exit code
/// 0 only when the task completed successfully, 1 when it failed, 2 on an error,
/// 130 when interrupted (143 for SIGTERM), its directory finished first.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct RunArgs {
    /// What to do, in plain words.
    task: String,
    #[command(flatten)]
    device: DeviceArgs,
    #[command(flatten)]
    session: SessionArgs,
    #[command(flatten)]
    llm: LlmArgs,
    #[command(flatten)]
    locator: LocatorArgs,
    #[command(flatten)]
    checks: CheckArgs,
    #[command(flatten)]
    strategy: StrategyArgs,
    #[command(flatten)]
    memory: MemoryArgs,
    #[command(flatten)]
    traces: TraceArgs,
    /// Show the model a screenshot each step: auto (when the persona asks for
    /// screenshots), on, or off.
    #[arg(long, value_enum, default_value = "auto")]
    vision: Vision,
    /// How the model acts: code (a Rhai snippet per step) or json (function calls,
    /// several per step allowed).
    #[arg(long, value_enum, default_value = "code", value_name = "FORMAT")]
    actions: agent::ActionFormat,
    /// Stop after this many steps.
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u32).range(1..=500))]
    max_steps: u32,
    /// Where run folders are made.
    #[arg(long, default_value = "runs", value_name = "DIR")]
    out: PathBuf,
    /// What each run keeps: the screenshot and UI dump of every step, of every
    /// action, or none (events, summary and scripts are always written).
    #[arg(long, value_enum, default_value = "step", value_name = "WHEN")]
    save_trajectory: SaveMode,
    /// Where report.html (in the run directory, rewritten after every step) keeps
    /// its screenshots: embedded (one file, ~25 KB a screenshot), external
    /// (report-assets/ beside it) or linked (the run's own screenshots, nothing
    /// re-encoded; keep the folder whole).
    #[arg(long, value_enum, default_value = "embedded", value_name = "WHERE")]
    report_assets: codeact::report::Assets,
    /// Print the summary as JSON (progress still goes to stderr).
    #[arg(long)]
    json: bool,
    /// maestro: also write the run's actions as a Maestro flow, flow.yaml in the
    /// run directory (`codeact exec flow.yaml` replays it; an action Maestro has no
    /// command for stays as a comment, and is named).
    #[arg(long, value_enum, value_name = "FORMAT")]
    export: Option<ExportFormat>,
}

/// Progress lines on stderr, as the run goes.
pub(super) fn print_progress(p: Progress) {
    let mut err = std::io::stderr();
    let _ = match p {
        Progress::Started { run_dir } => writeln!(err, "run directory: {}", run_dir.display()),
        Progress::Step { step, max } => write!(err, "step {step}/{max} "),
        // A server may send no counts (some do not when streaming): said so, not "0".
        Progress::Reply { headline, usage, llm_ms, .. } if usage.total_tokens == 0 && llm_ms > 0.0 => writeln!(
            err,
            "· {} (the server sent no token counts, {:.1} s)",
            codeact::terminal::one_line(headline),
            llm_ms / 1000.0
        ),
        Progress::Reply { headline, usage, llm_ms, .. } => writeln!(
            err,
            "· {} ({} prompt + {} reply tokens, {:.1} s)",
            codeact::terminal::one_line(headline),
            usage.prompt_tokens,
            usage.completion_tokens,
            llm_ms / 1000.0
        ),
        Progress::Ran { record, .. } => {
            if let Some(ran) = record.ran() {
                let (listed, more) = ran.listed_actions(codeact::sandbox::LISTED_ACTIONS);
                for a in listed {
                    let _ = writeln!(err, "    {}", codeact::terminal::one_line(&a.summary()));
                }
                if let Some(more) = more {
                    let _ = writeln!(err, "    {more}");
                }
            }
            match record.ran().and_then(|r| r.error.as_ref()) {
                Some(e) => writeln!(
                    err,
                    "    error: {}",
                    codeact::terminal::one_line(e.to_string().lines().next().unwrap_or(""))
                ),
                None => Ok(()),
            }
        }
        Progress::Note { text, .. } => writeln!(err, "    ({})", codeact::terminal::one_line(text)),
    };
}

impl RunArgs {
    pub fn run_agent(self) -> anyhow::Result<ExitCode> {
        let default_record = if self.save_trajectory == SaveMode::Action { Recording::All } else { Recording::None };
        let defaults = Flags {
            default_persona: true,
            default_record: Some(default_record),
            default_sensitive: Some(SensitivePolicy::Ask),
            ..Flags::default()
        };
        let mut settings = self.session.settings(&self.device, defaults)?;
        self.strategy.session_persona(&self.session, &mut settings)?;
        let models = self.strategy.models(&settings.llm, &self.llm)?;
        let persona = settings.agent_persona()?;
        let vision = self.vision.for_persona(&persona);
        settings.helpers =
            Helpers { person: self.session.person(true)?, locator: self.locator.vision(&settings.llm, &self.llm)? };
        let mut session = Session::open(&settings)?;
        let traces = self.traces.start()?;
        let options = AgentOptions {
            max_steps: self.max_steps as usize,
            vision,
            save: self.save_trajectory,
            out_dir: self.out,
            device_spec: settings.device.clone(),
            error_threshold: self.checks.error_threshold,
            verify_completion: self.checks.verify_completion == Switch::On,
            strategy: self.strategy.strategy,
            reflect_every: self.strategy.reflect_every(),
            tree_depth: self.strategy.tree_depth as usize,
            memory: self.memory.path(),
            embeddings: self.memory.embeddings.clone(),
            report: self.report_assets,
            traces: traces.clone(),
            export_flow: self.export.is_some(),
            actions: self.actions,
            ..AgentOptions::new(self.task)
        };
        let runtime = super::interrupt::runtime()?;
        let interrupt = super::interrupt::cancel_on_signal(&runtime, "the run directory");
        let summary = runtime.block_on(agent::run_task(
            agent::AgentRequest { session: &mut session, models: &models, persona: &persona, options: &options },
            &interrupt.token,
            &mut print_progress,
        ));
        finish_traces(traces.as_deref());
        let summary = summary?;
        if let Some(flow) = &summary.flow {
            say_flow(flow);
        }
        if self.json {
            codeact::outln!("{}", clean(&serde_json::to_string_pretty(&summary)?));
        } else {
            let how = match summary.outcome {
                Outcome::Success => "success",
                Outcome::Failure => "failure",
                Outcome::Interrupted => "interrupted",
                Outcome::Error => "error",
            };
            codeact::outln!(
                "{how} after {} step{} ({:.1} s, {} tokens): {}",
                summary.steps,
                if summary.steps == 1 { "" } else { "s" },
                summary.wall_ms / 1000.0,
                summary.tokens.total_tokens,
                codeact::terminal::one_line(&summary.reason)
            );
            codeact::outln!("run directory: {}", codeact::terminal::path(&summary.run_dir));
            match &summary.report {
                Ok(path) => codeact::outln!("report: {}", codeact::terminal::path(path)),
                Err(why) => {
                    codeact::errln!("report not written: {}", codeact::terminal::one_line(&full_message(why.as_ref())))
                }
            }
            if let Some(memory) = &summary.memory {
                codeact::outln!("memory: {}", codeact::terminal::one_line(memory));
            }
            codeact::outln!("replay: {}", summary.replay);
        }
        // Interrupted: 130 for Ctrl-C, 143 for SIGTERM.
        let code = match summary.outcome {
            Outcome::Interrupted => interrupt.exit_code().unwrap_or(summary.outcome.exit_code()),
            other => other.exit_code(),
        };
        Ok(ExitCode::from(code))
    }
}

/// What `--export` writes besides codeact's own scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// A Maestro flow (`flow.yaml`).
    Maestro,
}

/// Says where a run's Maestro flow was written (and what it could not say); a
/// failure to write is said, not fatal: the run is over.
pub(super) fn say_flow(flow: &codeact::maestro::export::FlowWritten) {
    match &flow.written {
        Ok((path, exported)) => {
            codeact::errln!("maestro flow: {}", codeact::terminal::path(path));
            if !exported.left_out.is_empty() {
                let n = exported.left_out.len();
                codeact::errln!(
                    "  note: {n} action{} Maestro has no command for, kept as comments: {}",
                    if n == 1 { "" } else { "s" },
                    codeact::terminal::one_line(&exported.left_out.join(", "))
                );
            }
        }
        Err(e) => codeact::errln!("maestro flow not written in {}: {e}", codeact::terminal::path(&flow.dir)),
    }
}
