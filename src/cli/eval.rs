//! `codeact eval`: the task suite on virtual phones, with the oracle or an LLM;
//! progress on stderr, the Markdown table on stdout, results.json and junit.xml in
//! --out; or `--compare A B`, or `--list`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use codeact::agent::SaveMode;
use codeact::config::{Flags, Helpers};
use codeact::eval::suite::{Described, SuiteProgress, SuiteRequest};
use codeact::eval::{self, Agent, EvalOptions, Fault, InstanceResult, LlmAgent, Results};

use codeact::session::Session;
use codeact::terminal::clean;
use codeact::tools::{Recording, SensitivePolicy};

mod explore_bench;
mod formats;
mod output;
mod survival;

use super::args::{
    CheckArgs, LlmArgs, LocatorArgs, SessionArgs, StrategyArgs, Switch, TraceArgs, Vision, finish_traces,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum AgentChoice {
    /// The `codeact run` loop with an LLM (--base-url, --model, --persona).
    Llm,
    /// Each template's reference script: proves every task solvable and every judge right.
    Oracle,
}

/// Measure an agent on a seeded task suite run on virtual phones, judged on the
/// phone's state (and, for questions, on what the agent passed to answer()).
///
///   codeact eval --agent oracle                       # every template, proves the suite
///   codeact eval --model gpt-4o-mini --tasks 'clock_*,settings_wifi_*' --instances 3
///   codeact eval --base-url http://localhost:11434/v1 --model qwen2.5:7b --parallel 2
///   codeact eval --compare before/results.json after/results.json
///   codeact eval --model gpt-4o-mini --actions code,json   # code against function calls
///   codeact eval --explore --budgets 100,500               # random against systematic exploration
///
/// Each instance starts on a reset phone, draws its parameters from
/// hash(--seed, template, instance), runs its set-up, and checks that the judge scores
/// that start 0 (a task already solved is a broken task). Results: a Markdown table
/// on stdout; results.json (one record per instance: score, steps, LLM calls,
/// tokens, times, run directory) and junit.xml in --out. Exit code 0 when every
/// template is sound (and, for the oracle, every instance scores 1), 1 otherwise, 2
/// on an error.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct EvalArgs {
    /// Who does the tasks.
    #[arg(long, value_enum, default_value = "llm")]
    agent: AgentChoice,
    /// Only these templates: comma-separated ids or app names, `*` and `?` as
    /// wildcards (`clock_*,messages`).
    #[arg(long, value_name = "PATTERNS")]
    tasks: Option<String>,
    /// Read the task files (*.toml) from this folder instead of the built-in suite.
    #[arg(long, value_name = "DIR")]
    suite: Option<PathBuf>,
    /// Only templates of this difficulty (by the reference solution's device
    /// actions: easy ≤ 4, medium 5–7, hard ≥ 8); comma-separated or repeated.
    #[arg(long, value_name = "easy|medium|hard", value_delimiter = ',', value_parser = ["easy", "medium", "hard"])]
    difficulty: Vec<String>,
    /// Only templates of this category (data_entry, data_edit, search, reading,
    /// counting, settings, navigation, transaction, validation, visual,
    /// multi_app; `--list` shows each template's); comma-separated or repeated.
    #[arg(long, value_name = "CATEGORY", value_delimiter = ',')]
    category: Vec<String>,
    /// List the templates (id, app, kind, difficulty, category, goal) and exit.
    #[arg(long)]
    list: bool,
    /// The suite seed: the same seed gives the same instances everywhere.
    #[arg(long, default_value_t = 1)]
    pub(super) seed: u64,
    /// Instances (parameter draws) per template.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    instances: u32,
    /// Runs of each instance (LLMs vary; the oracle does not).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    repeat: u32,
    /// Virtual phones working at once (one thread each).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub(super) parallel: u32,
    /// The platform the virtual phones are reached as: android (over ADB), ios
    /// (through their WebDriverAgent door, by codeact's iOS backend) or harmony
    /// (through their hdc door, by codeact's HarmonyOS backend).
    #[arg(long, value_enum, default_value_t = EvalPlatform::Android)]
    platform: EvalPlatform,
    #[command(flatten)]
    phones: super::eval_device::EvalDevice,
    /// Run one shard of the suite, I/N with I from 1 (as `exec --shard`): instance k
    /// of the plan (from 0) runs on shard (k mod N) + 1. Without it the shard comes
    /// from CODEACT_SHARD=I/N, a Kubernetes Indexed Job's JOB_COMPLETION_INDEX (with
    /// --shards), GitLab's CI_NODE_INDEX/CI_NODE_TOTAL, CircleCI's or Buildkite's.
    #[arg(long, value_name = "I/N")]
    shard: Option<codeact::shard::Shard>,
    /// How many shards a Kubernetes Indexed Job runs (its completions): with
    /// $JOB_COMPLETION_INDEX (from 0), this pod runs shard INDEX+1 of N.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    shards: Option<u32>,
    /// Faults added to every instance after its set-up: dialog (a system dialog at the
    /// first screen change), slow-ui (screens settle over 300 ms), latency (30 ms per
    /// device command). Comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "LIST")]
    faults: Vec<Fault>,
    /// Where results.json, junit.xml and runs/ (one trajectory per instance) go.
    /// Default: evals/<UTC time>-<agent>.
    #[arg(long, value_name = "DIR")]
    pub(super) out: Option<PathBuf>,
    /// How the LLM acts: code (Rhai snippets), json (function calls), or both
    /// (code,json): each format runs the same instances in a folder of its own
    /// under --out, and a table sets them side by side (formats.md, formats.json,
    /// report.html): solved, model calls, tokens, cost, time, device actions.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "LIST")]
    actions: Vec<codeact::agent::ActionFormat>,
    /// The model's price in US dollars per million input and output tokens, for
    /// the cost column (default: the listed price of common models; a model not
    /// listed, such as a local one, shows "?").
    #[arg(long, value_name = "IN,OUT", value_parser = codeact::eval::prices::Price::parse)]
    price: Option<codeact::eval::prices::Price>,
    /// Print per-template score changes from results A to results B, and exit.
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    compare: Option<Vec<PathBuf>>,
    /// Merge the results.json of a suite's shards into --out (results.json,
    /// junit.xml), print the table, and exit.
    #[arg(long, num_args = 2.., value_name = "FILES", conflicts_with = "compare")]
    merge: Option<Vec<PathBuf>>,
    #[command(flatten)]
    pub(super) session: SessionArgs,
    #[command(flatten)]
    pub(super) llm: LlmArgs,
    #[command(flatten)]
    pub(super) locator: LocatorArgs,
    #[command(flatten)]
    pub(super) checks: CheckArgs,
    #[command(flatten)]
    pub(super) strategy: StrategyArgs,
    #[command(flatten)]
    pub(super) traces: TraceArgs,
    /// Show the model a screenshot each step: auto (when the persona asks for
    /// screenshots, as `codeact run` does), on, or off.
    #[arg(long, value_enum, default_value = "auto")]
    vision: Vision,
    /// Exit 1 when the mean score over every instance is below this (0 to 1), as
    /// when an instance is broken: a CI gate for an LLM agent's runs.
    #[arg(long, value_name = "X", value_parser = parse_score)]
    min_score: Option<f64>,
    /// Print one JSON object per line on stdout as the suite runs (events planned,
    /// instance, summary) instead of the progress lines and the table.
    #[arg(long)]
    json: bool,
    /// What each LLM run keeps besides events and scripts: step, action or none.
    #[arg(long, value_enum, default_value = "none", value_name = "WHEN")]
    pub(super) save_trajectory: SaveMode,
    /// Run on the apps as an update changes them (`codeact sim --variant`): 1
    /// reorders items, 2 also renames ids, 3 also adds a "What's new" dialog.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=3))]
    variant: u32,
    /// Measure how recorded runs survive app updates: record the oracle once per
    /// operation template, replay each recording under layout variants 0..3 as
    /// coordinates, ui_state indices, selectors, and selectors from memory with the
    /// LLM (--base-url, --model) healing only the steps that no longer fit; print
    /// the table (also survival.md and survival.json in --out).
    #[arg(long, conflicts_with_all = ["agent", "variant", "instances", "repeat", "shard", "shards", "faults"])]
    survival: bool,
    #[command(flatten)]
    explore: explore_bench::ExploreBenchArgs,
}

/// A `--min-score` outside 0..=1.
#[derive(Debug, thiserror::Error)]
#[error("--min-score takes a score from 0 to 1, e.g. 0.8 (got {0:?})")]
struct BadScore(String);

fn parse_score(text: &str) -> Result<f64, BadScore> {
    text.trim().parse::<f64>().ok().filter(|x| (0.0..=1.0).contains(x)).ok_or_else(|| BadScore(text.to_string()))
}

/// One progress line per finished instance.
fn progress_line(r: &InstanceResult, done: usize, total: usize) -> String {
    let mut line = format!(
        "[{done:>4}/{total}] {:<34} {:.2}  {:>2} step{}  {:>6.1} s",
        r.label(),
        r.score,
        r.steps,
        if r.steps == 1 { " " } else { "s" },
        r.wall_ms / 1000.0
    );
    if r.broken {
        line.push_str("  BROKEN");
    }
    if let Some(e) = &r.error {
        line.push_str(&format!("  {}", codeact::terminal::one_line(e.lines().next().unwrap_or(""))));
    }
    line
}

impl EvalArgs {
    pub fn evaluate(self) -> anyhow::Result<ExitCode> {
        if self.explore.explore {
            return self.explore_bench();
        }
        if let Some(files) = &self.compare {
            let (a, b) = (&files[0], &files[1]);
            let (ra, rb) = (Results::read(a)?, Results::read(b)?);
            codeact::out!("{}", clean(&eval::compare(&ra, &rb, &a.display().to_string(), &b.display().to_string())));
            return Ok(ExitCode::SUCCESS);
        }
        if let Some(files) = &self.merge {
            let mut parts = Vec::new();
            for f in files {
                parts.push((f.clone(), Results::read(f)?));
            }
            let merged = eval::merge(parts)?;
            let out_dir = self.out.clone().context("--merge needs --out DIR for the merged results")?;
            eval::runner::check_out_dir(&out_dir)?;
            std::fs::create_dir_all(&out_dir).with_context(|| format!("cannot create {}", out_dir.display()))?;
            merged.write(&out_dir)?;
            codeact::out!("{}", clean(&merged.markdown()));
            codeact::errln!("results: {}", codeact::terminal::path(&out_dir.join("results.json")));
            return Ok(ExitCode::SUCCESS);
        }
        let mut tasks = eval::select(eval::load(self.suite.as_deref())?, self.tasks.as_deref())?;
        tasks = filter_by_tags(tasks, &self.difficulty, &self.category)?;
        if self.platform == EvalPlatform::Ios {
            let (not_on_ios, rest): (Vec<_>, Vec<_>) = tasks.into_iter().partition(|t| t.not_on_ios.is_some());
            for t in &not_on_ios {
                codeact::errln!(
                    "left out on iOS: {} ({})",
                    t.id,
                    codeact::terminal::one_line(t.not_on_ios.as_deref().unwrap_or(""))
                );
            }
            anyhow::ensure!(!rest.is_empty(), "no template chosen runs on iOS; choose others with --tasks");
            tasks = rest;
        }
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
        let open_session =
            || -> Result<Session, Box<dyn std::error::Error + Send + Sync>> { Ok(Session::open(settings)?) };
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

/// `--platform`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum EvalPlatform {
    Android,
    Ios,
    Harmony,
}

impl EvalPlatform {
    /// The `--device` of a virtual phone reached as this platform.
    fn device(self) -> &'static str {
        match self {
            EvalPlatform::Android => "sim",
            EvalPlatform::Ios => "sim:ios",
            EvalPlatform::Harmony => "sim:harmony",
        }
    }
}

/// The templates whose difficulty and category are among those asked for (all when
/// none are); an error when nothing is left, naming the categories there are.
fn filter_by_tags(
    tasks: Vec<eval::TaskSpec>,
    difficulty: &[String],
    category: &[String],
) -> anyhow::Result<Vec<eval::TaskSpec>> {
    let known: std::collections::BTreeSet<String> = tasks.iter().filter_map(|t| t.category.clone()).collect();
    if let Some(unknown) = category.iter().find(|c| !known.contains(*c)) {
        let known: Vec<String> = known.into_iter().collect();
        anyhow::bail!(
            "no template has the category {:?}; the categories are: {}",
            codeact::terminal::one_line(unknown),
            codeact::terminal::one_line(&known.join(", "))
        );
    }
    let kept: Vec<eval::TaskSpec> = tasks
        .into_iter()
        .filter(|t| difficulty.is_empty() || t.difficulty.is_some_and(|d| difficulty.iter().any(|w| w == d.as_str())))
        .filter(|t| category.is_empty() || t.category.as_ref().is_some_and(|c| category.contains(c)))
        .collect();
    if kept.is_empty() {
        let known: Vec<String> = known.into_iter().collect();
        anyhow::bail!(
            "no template has that difficulty and category; the categories are: {}",
            codeact::terminal::one_line(&known.join(", "))
        );
    }
    Ok(kept)
}
