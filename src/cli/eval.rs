//! `codeact eval`: the task suite on virtual phones, with the oracle or an LLM;
//! progress on stderr, the Markdown table on stdout, results.json and junit.xml in
//! --out; or `--compare A B`, or `--list`.

use std::process::ExitCode;

use anyhow::Context;
use codeact::config::{Flags, Helpers};
use codeact::eval::suite::{Described, SuiteProgress, SuiteRequest};
use codeact::eval::{self, Agent, Choice, CompareRequest, EvalOptions, LlmAgent, MergeRequest};

use codeact::session::Session;
use codeact::terminal::clean;
use codeact::tools::{Recording, SensitivePolicy};

mod explore_bench;
mod flags;
mod formats;
mod output;
mod survival;

use super::args::{Switch, finish_traces};
pub use flags::EvalArgs;
use flags::{AgentChoice, EvalPlatform};

impl EvalArgs {
    pub fn evaluate(self) -> anyhow::Result<ExitCode> {
        if self.explore.explore {
            return self.explore_bench();
        }
        if let Some(files) = &self.compare {
            let request = CompareRequest { a: files[0].clone(), b: files[1].clone() };
            codeact::out!("{}", clean(&request.run()?));
            return Ok(ExitCode::SUCCESS);
        }
        if let Some(files) = &self.merge {
            let out_dir = self.out.clone().context("--merge needs --out DIR for the merged results")?;
            let merged = MergeRequest { files: files.clone(), out_dir: out_dir.clone() }.run()?;
            codeact::out!("{}", clean(&merged.markdown()));
            codeact::errln!("results: {}", codeact::terminal::path(&out_dir.join("results.json")));
            return Ok(ExitCode::SUCCESS);
        }
        let choice = Choice {
            suite: self.suite.as_deref(),
            tasks: self.tasks.as_deref(),
            difficulty: &self.difficulty,
            category: &self.category,
            ios: self.platform == EvalPlatform::Ios,
        };
        let chosen = choice.resolve()?;
        for (id, why) in &chosen.not_on_ios {
            codeact::errln!(
                "left out on iOS: {} ({})",
                codeact::terminal::one_line(id),
                codeact::terminal::one_line(why)
            );
        }
        let tasks = chosen.tasks;
        if self.list {
            for t in &tasks {
                codeact::outln!(
                    "{:<34} {:<10} {:<9} {:<7} {:<12} {}",
                    codeact::terminal::one_line(&t.id),
                    codeact::terminal::one_line(&t.apps[0]),
                    t.kind.as_str(),
                    t.difficulty.map_or("-", |d| d.as_str()),
                    codeact::terminal::one_line(t.category.as_deref().unwrap_or("-")),
                    codeact::terminal::one_line(&t.goal)
                );
            }
            let apps: std::collections::BTreeSet<&str> = tasks.iter().map(|t| t.apps[0].as_str()).collect();
            codeact::outln!("{} templates over {} apps", tasks.len(), apps.len());
            return Ok(ExitCode::SUCCESS);
        }
        let traces = self.traces.start()?;
        if self.survival {
            let measured = self.measure_survival(tasks, traces.clone());
            finish_traces(traces.as_deref());
            return measured;
        }
        anyhow::ensure!(
            self.agent == AgentChoice::Llm || self.actions.is_empty(),
            "--actions chooses how an LLM acts; the oracle runs each template's own script (drop --actions, or use --agent llm)"
        );
        let agent_name = match self.agent {
            AgentChoice::Oracle => "oracle",
            AgentChoice::Llm => "llm",
        };
        let defaults = Flags {
            default_persona: self.agent == AgentChoice::Llm,
            default_record: Some(Recording::None),
            default_sensitive: Some(SensitivePolicy::Allow),
            ..Flags::default()
        };
        let mut settings = self.session.settings(&self.phones.device_args(self.platform.device()), defaults)?;
        if self.agent == AgentChoice::Llm {
            self.strategy.session_persona(&self.session, &mut settings)?;
        }
        let env = |name: &str| std::env::var(name).ok();
        let shard = codeact::shard::resolve(self.shard, self.shards.map(|n| n as usize), &env)?.map(|(shard, from)| {
            if from != "--shard" {
                codeact::errln!("codeact eval: shard {shard} (from {})", codeact::terminal::one_line(&from));
            }
            shard
        });
        // A fresh folder each time (`-2`... when two start in the same second).
        let out_dir = self
            .out
            .clone()
            .unwrap_or_else(|| codeact::trajectory::new_run_dir(std::path::Path::new("evals"), agent_name));
        eval::runner::check_out_dir(&out_dir)?;
        settings.tools.assets = eval::gallery::suite_gallery(
            self.session.assets.as_deref(),
            self.suite.as_deref(),
            &out_dir,
            &settings.tools.assets,
        )?;
        let runtime = super::interrupt::runtime()?;
        let llm_parts = match self.agent {
            AgentChoice::Oracle => None,
            AgentChoice::Llm => {
                let client = self.strategy.models(&settings.llm, &self.llm)?;
                Some((client, settings.agent_persona()?))
            }
        };
        let interrupt = super::interrupt::cancel_on_signal(&runtime, "the instances under way");
        // Unattended: only an answers file answers.
        settings.helpers =
            Helpers { person: self.session.person(false)?, locator: self.locator.vision(&settings.llm, &self.llm)? };
        let settings = &settings;
        let open_session = || Session::open(settings);
        // One suite per action format (the oracle writes no code: one suite).
        let formats = match &llm_parts {
            None => vec![None],
            Some(_) => formats::chosen(&self.actions).into_iter().map(Some).collect(),
        };
        let mut runs = Vec::new();
        for format in &formats {
            let dir = match format {
                Some(f) if formats.len() > 1 => out_dir.join(f.as_str()),
                _ => out_dir.clone(),
            };
            let agent = match (&llm_parts, format) {
                (Some((models, persona)), Some(actions)) => Agent::Llm(LlmAgent {
                    models,
                    persona,
                    strategy: self.strategy.strategy,
                    reflect_every: self.strategy.reflect_every(),
                    tree_depth: self.strategy.tree_depth as usize,
                    actions: *actions,
                    vision: self.vision.for_persona(persona),
                    error_threshold: self.checks.error_threshold,
                    verify_completion: self.checks.verify_completion == Switch::On,
                    save: self.save_trajectory,
                    runtime: runtime.handle().clone(),
                    memory: None,
                    max_steps: self.max_steps.map(|n| n as usize),
                }),
                _ => Agent::Oracle,
            };
            let request = SuiteRequest {
                tasks: &tasks,
                options: EvalOptions {
                    seed: self.seed,
                    instances: self.instances as usize,
                    repeat: self.repeat as usize,
                    parallel: self.parallel as usize,
                    shard,
                    faults: self.faults.clone(),
                    variant: self.variant,
                    out_dir: dir.clone(),
                    traces: traces.clone(),
                },
                agent,
                described: Described {
                    agent: agent_name.to_string(),
                    model: llm_parts.as_ref().map(|(c, _)| c.actor.model().to_string()),
                    persona: llm_parts.as_ref().map(|(_, p)| p.name.clone()),
                    strategy: llm_parts.as_ref().map(|_| self.strategy.strategy.as_str().to_string()),
                    action_format: format.map(|f| f.as_str().to_string()),
                    watchers: settings.tools.watchers.spec(),
                },
            };
            let progress = |p: SuiteProgress| self.progress(p, agent_name, *format, &dir);
            let ran = eval::suite::run(request, &open_session, &interrupt.token, &progress);
            let ran = match ran {
                Ok(ran) => ran,
                Err(e) => {
                    finish_traces(traces.as_deref());
                    return Err(e.into());
                }
            };
            let verdict = self.report_suite(&ran, &dir);
            runs.push((*format, ran, verdict));
            if interrupt.token.is_cancelled() || runs.iter().any(|(_, _, v)| v.is_err()) {
                break;
            }
        }
        finish_traces(traces.as_deref());
        if runs.len() > 1 {
            self.compare_formats(&runs, &out_dir)?;
        }
        if let Some(code) = interrupt.exit_code() {
            return Ok(ExitCode::from(code));
        }
        let mut ok = true;
        for (_, _, verdict) in runs {
            ok &= verdict?;
        }
        Ok(if ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
    }
}
