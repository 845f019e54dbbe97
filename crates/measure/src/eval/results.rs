//! What a suite run yields: one [`InstanceResult`] per instance, the summary by app
//! and by kind, and the three ways out: `results.json` (a stable schema, version
//! [`SCHEMA`]), JUnit (one case per instance) and the Markdown table printed on stdout.
//! Also `--compare`: per-template deltas between two result files.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::job::{Fault, Job};
use super::tags::Difficulty;
use super::task::TaskSpec;
use codeact_agent::RoleUsage;
use codeact_record::trajectory::junit::{self, Case, Verdict};

/// `results.json`'s schema version: fields are only ever added within a version.
pub const SCHEMA: u32 = 1;

/// One instance, as run and judged.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct InstanceResult {
    pub task: String,
    /// The first app the template names (what results group by).
    pub app: String,
    pub apps: Vec<String>,
    pub kind: String,
    /// The template's category and difficulty, when it has them (`tags.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<Difficulty>,
    pub instance: usize,
    pub repeat: usize,
    /// hash(suite seed, template, instance): the parameters follow from it.
    pub seed: u64,
    pub goal: String,
    pub params: serde_json::Map<String, Value>,
    /// 0..1: what the judge gave the end state.
    pub score: f64,
    /// What the judge gave the state after set-up (must be 0).
    pub initial_score: f64,
    /// The template is broken here: its set-up, parameters or judge failed, or its
    /// start already scores.
    pub broken: bool,
    /// success, failure, error, interrupted (the agent's); pass/fail/error (the oracle's).
    pub outcome: String,
    pub error: Option<String>,
    pub note: Option<String>,
    pub answer: Option<String>,
    /// Agent steps (1 for the oracle's single script).
    pub steps: usize,
    /// Device actions (the oracle's script's, or the agent's steps').
    pub actions: usize,
    pub llm_calls: usize,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Every role's calls and tokens (actor, planner, reflector), by role.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub roles: BTreeMap<String, RoleUsage>,
    pub wall_ms: f64,
    pub llm_ms: f64,
    pub faults: Vec<Fault>,
    /// The trajectory of the attempt.
    pub run_dir: Option<PathBuf>,
    /// Why the suite stopped at this instance (the LLM failed on its first request:
    /// every other instance would fail the same way).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_suite: Option<String>,
}

impl InstanceResult {
    pub(crate) fn new(task: &TaskSpec, job: &Job, seed: u64, faults: &[Fault]) -> Self {
        Self {
            task: task.id.clone(),
            app: task.apps.first().cloned().unwrap_or_default(),
            apps: task.apps.clone(),
            kind: task.kind.as_str().to_string(),
            category: task.category.clone(),
            difficulty: task.difficulty,
            instance: job.instance,
            repeat: job.repeat,
            seed,
            goal: String::new(),
            params: serde_json::Map::new(),
            score: 0.0,
            initial_score: 0.0,
            broken: false,
            outcome: String::new(),
            error: None,
            note: None,
            answer: None,
            steps: 0,
            actions: 0,
            llm_calls: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
            roles: BTreeMap::new(),
            wall_ms: 0.0,
            llm_ms: 0.0,
            faults: faults.to_vec(),
            run_dir: None,
            stopped_suite: None,
        }
    }

    pub fn solved(&self) -> bool {
        self.score >= 1.0
    }

    /// `wifi_turn_off#0` (and `.r1` for repeats).
    pub fn label(&self) -> String {
        if self.repeat == 0 {
            format!("{}#{}", self.task, self.instance)
        } else {
            format!("{}#{}.r{}", self.task, self.instance, self.repeat)
        }
    }
}

/// Totals over a group of instances.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Totals {
    pub instances: usize,
    pub mean_score: f64,
    /// Instances scored 1.
    pub solved: usize,
    pub broken: usize,
    pub mean_steps: f64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Every role's calls and tokens over the group.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub roles: BTreeMap<String, RoleUsage>,
    pub wall_ms: f64,
    /// Model calls (every role's) over the group.
    #[serde(default)]
    pub llm_calls: usize,
    /// Device actions over the group.
    #[serde(default)]
    pub actions: usize,
    /// Time spent waiting for models over the group.
    #[serde(default)]
    pub llm_ms: f64,
}

impl Totals {
    pub(crate) fn of<'a>(results: impl Iterator<Item = &'a InstanceResult>) -> Self {
        let mut t = Totals::default();
        let (mut score, mut steps) = (0.0, 0usize);
        for r in results {
            t.instances += 1;
            score += r.score;
            steps += r.steps;
            t.solved += usize::from(r.solved());
            t.broken += usize::from(r.broken);
            t.prompt_tokens += r.prompt_tokens;
            t.completion_tokens += r.completion_tokens;
            for (role, usage) in &r.roles {
                let sum = t.roles.entry(role.clone()).or_default();
                sum.model.clone_from(&usage.model);
                sum.calls += usage.calls;
                sum.tokens += usage.tokens;
            }
            t.wall_ms += r.wall_ms;
            t.llm_calls += r.llm_calls;
            t.actions += r.actions;
            t.llm_ms += r.llm_ms;
        }
        if t.instances > 0 {
            t.mean_score = score / t.instances as f64;
            t.mean_steps = steps as f64 / t.instances as f64;
        }
        t
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SuiteSummary {
    pub all: Totals,
    pub by_app: BTreeMap<String, Totals>,
    pub by_kind: BTreeMap<String, Totals>,
    #[serde(default)]
    pub by_difficulty: BTreeMap<String, Totals>,
    #[serde(default)]
    pub by_category: BTreeMap<String, Totals>,
    pub by_task: BTreeMap<String, Totals>,
}

/// `results.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Results {
    pub schema: u32,
    pub codeact: String,
    /// `oracle` or `llm`.
    pub agent: String,
    pub model: Option<String>,
    pub persona: Option<String>,
    pub seed: u64,
    pub instances: usize,
    pub repeat: usize,
    /// `index/count`, when the run was one shard of a suite.
    pub shard: Option<String>,
    pub faults: Vec<Fault>,
    /// The blocker watchers that were on (`--watchers`), as a spec.
    #[serde(default)]
    pub watchers: String,
    /// The LLM agent's strategy (`react`, `plan`, `hierarchical`, `tree`); none for the oracle.
    #[serde(default)]
    pub strategy: Option<String>,
    /// How the LLM agent acted (`code` or `json`); none for the oracle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_format: Option<String>,
    pub parallel: usize,
    pub wall_ms: f64,
    pub summary: SuiteSummary,
    pub results: Vec<InstanceResult>,
}

pub fn summarize(results: &[InstanceResult]) -> SuiteSummary {
    // One pass per grouping (a merged results file can hold many thousands).
    let group = |key: fn(&InstanceResult) -> String| {
        let mut groups: std::collections::BTreeMap<String, Vec<&InstanceResult>> = Default::default();
        for r in results {
            groups.entry(key(r)).or_default().push(r);
        }
        groups.into_iter().map(|(k, rs)| (k, Totals::of(rs.into_iter()))).collect()
    };
    SuiteSummary {
        all: Totals::of(results.iter()),
        by_app: group(|r| r.app.clone()),
        by_kind: group(|r| r.kind.clone()),
        by_difficulty: group(|r| r.difficulty.map_or("-".into(), |d| d.as_str().into())),
        by_category: group(|r| r.category.clone().unwrap_or_else(|| "-".into())),
        by_task: group(|r| r.task.clone()),
    }
}

/// Why a results file could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    #[error("cannot write {path}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("cannot read {path}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path} is not a codeact eval results.json: {message}")]
    Parse { path: PathBuf, message: String },
}

impl Results {
    /// Writes `results.json` and `junit.xml` into `dir`.
    pub fn write(&self, dir: &Path) -> Result<(), ResultsError> {
        let write = |name: &str, text: String| {
            let path = dir.join(name);
            codeact_base::files::write_replacing(&path, text.as_bytes())
                .map_err(|source| ResultsError::Write { path, source })
        };
        let json = serde_json::to_string_pretty(self).unwrap_or_default();
        write("results.json", json + "\n")?;
        write("junit.xml", self.junit())
    }

    pub fn read(path: &Path) -> Result<Self, ResultsError> {
        let text = codeact_base::files::read_text(path, codeact_base::files::DATA_BYTES)
            .map_err(|source| ResultsError::Read { path: path.into(), source })?;
        serde_json::from_str(&text).map_err(|e| ResultsError::Parse { path: path.into(), message: e.to_string() })
    }

    /// One test case per instance: passed at score 1, failed below, an error when the
    /// instance could not be judged.
    pub fn junit(&self) -> String {
        let cases: Vec<Case> = self
            .results
            .iter()
            .map(|r| {
                let verdict = match (&r.error, r.solved()) {
                    (Some(e), _) if r.broken || r.outcome == "error" => {
                        Verdict::Error { message: e.clone(), detail: r.goal.clone() }
                    }
                    (_, true) => Verdict::Passed,
                    (e, false) => Verdict::Failed {
                        message: format!(
                            "score {:.2}{}",
                            r.score,
                            e.as_ref().map(|e| format!(": {e}")).unwrap_or_default()
                        ),
                        detail: r.goal.clone(),
                    },
                };
                let mut properties = vec![
                    ("score".to_string(), format!("{:.3}", r.score)),
                    ("seed".to_string(), r.seed.to_string()),
                    ("steps".to_string(), r.steps.to_string()),
                ];
                let mut output = format!("goal: {}\nanswer: {}\n", r.goal, r.answer.as_deref().unwrap_or("-"));
                if let Some(dir) = &r.run_dir {
                    properties.push(("run_dir".to_string(), dir.display().to_string()));
                    // What each step did, and the page that shows it.
                    output.push_str(&codeact_record::report::step_log(&codeact_record::report::RunView::read(dir)));
                    let page = dir.join("report.html");
                    if page.is_file() {
                        properties.push(("report".to_string(), page.display().to_string()));
                        output.push_str(&format!("report: {}\n", page.display()));
                    }
                }
                Case {
                    name: r.label(),
                    classname: format!("eval.{}", r.app),
                    seconds: r.wall_ms / 1000.0,
                    verdict,
                    output,
                    properties,
                }
            })
            .collect();
        junit::render("codeact eval", &cases)
    }

    /// The faults and watchers, when there were faults (they decide the score).
    fn conditions(&self) -> String {
        let strategy = self.strategy.as_deref().map(|s| format!(", strategy {s}")).unwrap_or_default();
        if self.faults.is_empty() {
            return strategy;
        }
        let faults: Vec<String> = self
            .faults
            .iter()
            .map(|f| serde_json::to_value(f).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default())
            .collect();
        format!(
            "{strategy}, faults {}, watchers {}",
            faults.join(","),
            if self.watchers.is_empty() { "?" } else { &self.watchers }
        )
    }

    /// The Markdown table: one row per template, then by app, kind, difficulty and category.
    pub fn markdown(&self) -> String {
        let mut md = String::new();
        let _ = writeln!(md, "| task | app | kind | n | score | solved | steps | tokens | time s |");
        let _ = writeln!(md, "|---|---|---|---:|---:|---:|---:|---:|---:|");
        let mut seen = std::collections::HashSet::new();
        for r in &self.results {
            if !seen.insert(r.task.as_str()) {
                continue;
            }
            if let Some(t) = self.summary.by_task.get(&r.task) {
                let flag = if t.broken > 0 { " ⚠ broken" } else { "" };
                let _ = writeln!(
                    md,
                    "| {}{flag} | {} | {} | {} | {:.2} | {}/{} | {:.1} | {} | {:.1} |",
                    r.task,
                    r.app,
                    r.kind,
                    t.instances,
                    t.mean_score,
                    t.solved,
                    t.instances,
                    t.mean_steps,
                    t.prompt_tokens + t.completion_tokens,
                    t.wall_ms / 1000.0
                );
            }
        }
        for (title, groups) in [
            ("app", &self.summary.by_app),
            ("kind", &self.summary.by_kind),
            ("difficulty", &self.summary.by_difficulty),
            ("category", &self.summary.by_category),
        ] {
            if groups.is_empty() {
                continue;
            }
            // Difficulties read easy, medium, hard; the rest alphabetically.
            let mut groups: Vec<(&String, &Totals)> = groups.iter().collect();
            groups.sort_by_key(|(name, _)| Difficulty::ALL.iter().position(|d| d.as_str() == name.as_str()));
            let _ = writeln!(md, "\n| {title} | n | score | solved | steps |");
            let _ = writeln!(md, "|---|---:|---:|---:|---:|");
            for (name, t) in groups {
                let _ = writeln!(
                    md,
                    "| {name} | {} | {:.2} | {}/{} | {:.1} |",
                    t.instances, t.mean_score, t.solved, t.instances, t.mean_steps
                );
            }
        }
        let a = &self.summary.all;
        let _ = writeln!(
            md,
            "\n**{} instances of {} templates: mean score {:.3}, {} solved, {} broken** (agent {}, seed {}{}, {:.1} s)",
            a.instances,
            self.summary.by_task.len(),
            a.mean_score,
            a.solved,
            a.broken,
            self.agent,
            self.seed,
            self.conditions(),
            self.wall_ms / 1000.0
        );
        md
    }
}

/// Why shards' results cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("nothing to merge: give two or more results.json files")]
    Nothing,
    #[error("{path} was run with {what} {theirs}, the first file with {ours}: shards of one suite share it")]
    Mismatch { path: PathBuf, what: &'static str, ours: String, theirs: String },
    #[error("instance {0} is in two of the files: are two of them the same shard?")]
    Twice(String),
}

/// The shards of one suite as one result: their instances together, summed up again.
pub fn merge(parts: Vec<(PathBuf, Results)>) -> Result<Results, MergeError> {
    let mut parts = parts.into_iter();
    let (_, mut all) = parts.next().ok_or(MergeError::Nothing)?;
    let mut merged_any = false;
    for (path, part) in parts {
        merged_any = true;
        let checks = [
            ("agent", all.agent.clone(), part.agent.clone()),
            ("model", format!("{:?}", all.model), format!("{:?}", part.model)),
            ("seed", all.seed.to_string(), part.seed.to_string()),
            ("instances", all.instances.to_string(), part.instances.to_string()),
            ("repeat", all.repeat.to_string(), part.repeat.to_string()),
            ("faults", format!("{:?}", all.faults), format!("{:?}", part.faults)),
            ("watchers", all.watchers.clone(), part.watchers.clone()),
            ("strategy", format!("{:?}", all.strategy), format!("{:?}", part.strategy)),
            ("action format", format!("{:?}", all.action_format), format!("{:?}", part.action_format)),
        ];
        for (what, ours, theirs) in checks {
            if ours != theirs {
                return Err(MergeError::Mismatch { path, what, ours, theirs });
            }
        }
        all.wall_ms = all.wall_ms.max(part.wall_ms);
        all.results.extend(part.results);
    }
    if !merged_any {
        return Err(MergeError::Nothing);
    }
    all.results.sort_by(|a, b| (&a.task, a.instance, a.repeat).cmp(&(&b.task, b.instance, b.repeat)));
    if let Some(w) = all.results.windows(2).find(|w| w[0].label() == w[1].label()) {
        return Err(MergeError::Twice(w[0].label()));
    }
    all.shard = None;
    all.summary = summarize(&all.results);
    Ok(all)
}

/// `--compare A B`: the per-template mean scores of two runs and B − A, biggest
/// changes first, then the totals.
pub fn compare(a: &Results, b: &Results, a_name: &str, b_name: &str) -> String {
    let mut tasks: Vec<&String> = a.summary.by_task.keys().chain(b.summary.by_task.keys()).collect();
    tasks.sort();
    tasks.dedup();
    let score = |r: &Results, t: &str| r.summary.by_task.get(t).map(|t| t.mean_score);
    let mut rows: Vec<(&String, Option<f64>, Option<f64>)> =
        tasks.into_iter().map(|t| (t, score(a, t), score(b, t))).collect();
    let delta = |row: &(&String, Option<f64>, Option<f64>)| match (row.1, row.2) {
        (Some(x), Some(y)) => y - x,
        _ => 0.0,
    };
    rows.sort_by(|x, y| delta(y).abs().total_cmp(&delta(x).abs()).then_with(|| x.0.cmp(y.0)));
    let shown = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{v:.2}"));
    let mut md = String::new();
    let _ = writeln!(md, "| task | A | B | Δ |");
    let _ = writeln!(md, "|---|---:|---:|---:|");
    for row in &rows {
        let d = match (row.1, row.2) {
            (Some(_), Some(_)) => format!("{:+.2}", delta(row)),
            _ => "only in one".to_string(),
        };
        let _ = writeln!(md, "| {} | {} | {} | {d} |", row.0, shown(row.1), shown(row.2));
    }
    let (x, y) = (&a.summary.all, &b.summary.all);
    let _ = writeln!(
        md,
        "\nA = {a_name} ({} instances, mean {:.3}, {} solved)\nB = {b_name} ({} instances, mean {:.3}, {} solved)\nΔ mean score {:+.3}",
        x.instances,
        x.mean_score,
        x.solved,
        y.instances,
        y.mean_score,
        y.solved,
        y.mean_score - x.mean_score
    );
    md
}
