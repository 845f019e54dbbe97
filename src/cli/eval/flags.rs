//! The flags of `codeact eval` ([`EvalArgs`]) and of its exploration benchmark
//! ([`ExploreBenchArgs`]), with the values they take: what the files beside it
//! read. Not what the flags do (`eval.rs`, `explore_bench.rs`, `survival.rs`,
//! `formats.rs`, `output.rs`).

use std::path::PathBuf;

use codeact::agent::SaveMode;
use codeact::eval::Fault;

use super::super::args::{CheckArgs, LlmArgs, LocatorArgs, SessionArgs, StrategyArgs, TraceArgs, Vision};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum AgentChoice {
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
    pub(super) agent: AgentChoice,
    /// Only these templates: comma-separated ids or app names, `*` and `?` as
    /// wildcards (`clock_*,messages`).
    #[arg(long, value_name = "PATTERNS")]
    pub(super) tasks: Option<String>,
    /// Read the task files (*.toml) from this folder instead of the built-in suite.
    #[arg(long, value_name = "DIR")]
    pub(super) suite: Option<PathBuf>,
    /// Only templates of this difficulty (by the reference solution's device
    /// actions: easy ≤ 4, medium 5–7, hard ≥ 8); comma-separated or repeated.
    #[arg(long, value_name = "easy|medium|hard", value_delimiter = ',', value_parser = ["easy", "medium", "hard"])]
    pub(super) difficulty: Vec<String>,
    /// Only templates of this category (data_entry, data_edit, search, reading,
    /// counting, settings, navigation, transaction, validation, visual,
    /// multi_app; `--list` shows each template's); comma-separated or repeated.
    #[arg(long, value_name = "CATEGORY", value_delimiter = ',')]
    pub(super) category: Vec<String>,
    /// List the templates (id, app, kind, difficulty, category, goal) and exit.
    #[arg(long)]
    pub(super) list: bool,
    /// The suite seed: the same seed gives the same instances everywhere.
    #[arg(long, default_value_t = 1)]
    pub(in crate::cli) seed: u64,
    /// Instances (parameter draws) per template.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub(super) instances: u32,
    /// Runs of each instance (LLMs vary; the oracle does not).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub(super) repeat: u32,
    /// With a model: at most this many steps per instance, each template's own budget
    /// when that is lower (a small model's sample within a time budget).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub(super) max_steps: Option<u32>,
    /// Virtual phones working at once (one thread each).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub(in crate::cli) parallel: u32,
    /// The platform the virtual phones are reached as: android (over ADB), ios
    /// (through their WebDriverAgent door, by codeact's iOS backend) or harmony
    /// (through their hdc door, by codeact's HarmonyOS backend).
    #[arg(long, value_enum, default_value_t = EvalPlatform::Android)]
    pub(super) platform: EvalPlatform,
    #[command(flatten)]
    pub(super) phones: super::super::eval_device::EvalDevice,
    /// Run one shard of the suite, I/N with I from 1 (as `exec --shard`): instance k
    /// of the plan (from 0) runs on shard (k mod N) + 1. Without it the shard comes
    /// from CODEACT_SHARD=I/N, a Kubernetes Indexed Job's JOB_COMPLETION_INDEX (with
    /// --shards), GitLab's CI_NODE_INDEX/CI_NODE_TOTAL, CircleCI's or Buildkite's.
    #[arg(long, value_name = "I/N")]
    pub(super) shard: Option<codeact::shard::Shard>,
    /// How many shards a Kubernetes Indexed Job runs (its completions): with
    /// $JOB_COMPLETION_INDEX (from 0), this pod runs shard INDEX+1 of N.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub(super) shards: Option<u32>,
    /// Faults added to every instance after its set-up: dialog (a system dialog at the
    /// first screen change), slow-ui (screens settle over 300 ms), latency (30 ms per
    /// device command). Comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "LIST")]
    pub(super) faults: Vec<Fault>,
    /// Where results.json, junit.xml and runs/ (one trajectory per instance) go.
    /// Default: evals/<UTC time>-<agent>.
    #[arg(long, value_name = "DIR")]
    pub(in crate::cli) out: Option<PathBuf>,
    /// How the LLM acts: code (Rhai snippets), json (function calls), or both
    /// (code,json): each format runs the same instances in a folder of its own
    /// under --out, and a table sets them side by side (formats.md, formats.json,
    /// report.html): solved, model calls, tokens, cost, time, device actions.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "LIST")]
    pub(super) actions: Vec<codeact::agent::ActionFormat>,
    /// The model's price in US dollars per million input and output tokens, for
    /// the cost column (default: the listed price of common models; a model not
    /// listed, such as a local one, shows "?").
    #[arg(long, value_name = "IN,OUT", value_parser = codeact::eval::prices::Price::parse)]
    pub(super) price: Option<codeact::eval::prices::Price>,
    /// Print per-template score changes from results A to results B, and exit.
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    pub(super) compare: Option<Vec<PathBuf>>,
    /// Merge the results.json of a suite's shards into --out (results.json,
    /// junit.xml), print the table, and exit.
    #[arg(long, num_args = 2.., value_name = "FILES", conflicts_with = "compare")]
    pub(super) merge: Option<Vec<PathBuf>>,
    #[command(flatten)]
    pub(in crate::cli) session: SessionArgs,
    #[command(flatten)]
    pub(in crate::cli) llm: LlmArgs,
    #[command(flatten)]
    pub(in crate::cli) locator: LocatorArgs,
    #[command(flatten)]
    pub(in crate::cli) checks: CheckArgs,
    #[command(flatten)]
    pub(in crate::cli) strategy: StrategyArgs,
    #[command(flatten)]
    pub(in crate::cli) traces: TraceArgs,
    /// Show the model a screenshot each step: auto (when the persona asks for
    /// screenshots, as `codeact run` does), on, or off.
    #[arg(long, value_enum, default_value = "auto")]
    pub(super) vision: Vision,
    /// Exit 1 when the mean score over every instance is below this (0 to 1), as
    /// when an instance is broken: a CI gate for an LLM agent's runs.
    #[arg(long, value_name = "X", value_parser = parse_score)]
    pub(super) min_score: Option<f64>,
    /// Print one JSON object per line on stdout as the suite runs (events planned,
    /// instance, summary) instead of the progress lines and the table.
    #[arg(long)]
    pub(super) json: bool,
    /// What each LLM run keeps besides events and scripts: step, action or none.
    #[arg(long, value_enum, default_value = "none", value_name = "WHEN")]
    pub(in crate::cli) save_trajectory: SaveMode,
    /// Run on the apps as an update changes them (`codeact sim --variant`): 1
    /// reorders items, 2 also renames ids, 3 also adds a "What's new" dialog.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=3))]
    pub(super) variant: u32,
    /// Measure how recorded runs survive app updates: record the oracle once per
    /// operation template, replay each recording under layout variants 0..3 as
    /// coordinates, ui_state indices, selectors, and selectors from memory with the
    /// LLM (--base-url, --model) healing only the steps that no longer fit; print
    /// the table (also survival.md and survival.json in --out).
    #[arg(long, conflicts_with_all = ["agent", "variant", "instances", "repeat", "shard", "shards", "faults"])]
    pub(super) survival: bool,
    #[command(flatten)]
    pub(super) explore: ExploreBenchArgs,
}

/// A `--min-score` outside 0..=1.
#[derive(Debug, thiserror::Error)]
#[error("--min-score takes a score from 0 to 1, e.g. 0.8 (got {0:?})")]
pub(super) struct BadScore(String);

pub(super) fn parse_score(text: &str) -> Result<f64, BadScore> {
    text.trim().parse::<f64>().ok().filter(|x| (0.0..=1.0).contains(x)).ok_or_else(|| BadScore(text.to_string()))
}

/// `--platform`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum EvalPlatform {
    Android,
    Ios,
    Harmony,
}

impl EvalPlatform {
    /// The `--device` of a virtual phone reached as this platform.
    pub(super) fn device(self) -> &'static str {
        match self {
            EvalPlatform::Android => "sim",
            EvalPlatform::Ios => "sim:ios",
            EvalPlatform::Harmony => "sim:harmony",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Explorer {
    Random,
    Systematic,
    /// Needs a model (--model, --base-url, or [llm] in codeact.toml).
    Llm,
}

/// The exploration benchmark's flags.
#[derive(clap::Args, Debug)]
pub struct ExploreBenchArgs {
    /// Run the exploration benchmark instead of the task suite: each explorer
    /// (--explorers) explores each built-in app at each budget (--budgets) on a
    /// fresh virtual phone with two crashes planted per app, and the table says
    /// activities reached, screens, widgets, planted crashes found and when.
    #[arg(long, conflicts_with_all = [
        "agent", "survival", "tasks", "suite", "instances", "repeat", "faults", "variant", "list", "compare", "merge",
        "difficulty", "category", "shard", "shards", "min_score", "actions"
    ])]
    pub explore: bool,
    /// --explore: the action budgets, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "100,500", value_name = "LIST", requires = "explore",
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub(super) budgets: Vec<u32>,
    /// --explore: which explorers, comma-separated: random (Monkey's baseline),
    /// systematic, llm (needs a model).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "random,systematic",
        value_name = "LIST",
        requires = "explore"
    )]
    pub(super) explorers: Vec<Explorer>,
    /// --explore: only the apps whose package contains one of these, comma-separated.
    #[arg(long, value_name = "PATTERNS", requires = "explore")]
    pub(super) apps: Option<String>,
    /// --explore: a plan of one's own (TOML: [[app]] package, crashes = [ids])
    /// instead of the built-in apps and their planted crashes.
    #[arg(long, value_name = "FILE", requires = "explore")]
    pub(super) plan: Option<PathBuf>,
    /// --explore with llm: the agent's steps per task at most.
    #[arg(long, default_value_t = 10, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub(super) task_steps: u32,
}
