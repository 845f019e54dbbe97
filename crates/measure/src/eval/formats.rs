//! `codeact eval --actions code,json`: the same instances run once per action
//! format, compared side by side — per template and in total: solved, model calls,
//! prompt and completion tokens, cost, wall time, device actions. Written as
//! `formats.md`, `formats.json` and the suite folder's `report.html`, beside each
//! format's own folder. Not running the suites (`suite.rs`) nor prices (`prices.rs`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::prices::{self, Price};
use super::results::{InstanceResult, Results};

/// One format's figures over a group of instances.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Cell {
    pub instances: usize,
    pub solved: usize,
    pub llm_calls: usize,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// US dollars; `None` when a model's price is not known (give `--price`).
    pub cost_usd: Option<f64>,
    pub wall_ms: f64,
    pub actions: usize,
}

impl Cell {
    fn add(&mut self, r: &InstanceResult, price: Option<Price>, model: Option<&str>) {
        self.instances += 1;
        self.solved += usize::from(r.solved());
        self.llm_calls += r.llm_calls;
        self.prompt_tokens += r.prompt_tokens;
        self.completion_tokens += r.completion_tokens;
        self.wall_ms += r.wall_ms;
        self.actions += r.actions;
        let cost = instance_cost(r, price, model);
        self.cost_usd = match (self.instances, self.cost_usd, cost) {
            (1, _, cost) => cost,
            (_, Some(sum), Some(cost)) => Some(sum + cost),
            _ => None,
        };
    }
}

/// What instance `r` cost: each role's tokens at `price` when one is given, else at
/// the listed price of that role's model (`model`, the actor's, for a result
/// without roles); `None` when a model is not listed.
fn instance_cost(r: &InstanceResult, price: Option<Price>, model: Option<&str>) -> Option<f64> {
    if r.roles.is_empty() {
        let price = price.or_else(|| model.and_then(prices::listed))?;
        return Some(price.cost(r.prompt_tokens, r.completion_tokens));
    }
    r.roles.values().try_fold(0.0, |sum, role| {
        let price = price.or_else(|| prices::listed(&role.model))?;
        Some(sum + price.cost(role.tokens.prompt_tokens, role.tokens.completion_tokens))
    })
}

/// The formats side by side.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// The formats, in the order of every cell list.
    pub formats: Vec<String>,
    pub model: Option<String>,
    /// The price given (`--price`), when one was.
    pub price: Option<Price>,
    /// Per template, one cell per format.
    pub templates: BTreeMap<String, Vec<Cell>>,
    pub totals: Vec<Cell>,
}

impl Comparison {
    /// `runs`: each format's name and its suite's results, over the same instances.
    pub fn new(runs: &[(String, &Results)], price: Option<Price>) -> Self {
        let n = runs.len();
        let mut templates: BTreeMap<String, Vec<Cell>> = BTreeMap::new();
        let mut totals = vec![Cell::default(); n];
        for (i, (_, results)) in runs.iter().enumerate() {
            let model = results.model.as_deref();
            for r in &results.results {
                templates.entry(r.task.clone()).or_insert_with(|| vec![Cell::default(); n])[i].add(r, price, model);
                totals[i].add(r, price, model);
            }
        }
        Self {
            formats: runs.iter().map(|(f, _)| f.clone()).collect(),
            model: runs.first().and_then(|(_, r)| r.model.clone()),
            price,
            templates,
            totals,
        }
    }

    /// The figures of one row, each cell "a / b" across the formats.
    fn row(cells: &[Cell]) -> [String; 7] {
        let join = |f: &dyn Fn(&Cell) -> String| cells.iter().map(f).collect::<Vec<_>>().join(" / ");
        [
            join(&|c| format!("{}/{}", c.solved, c.instances)),
            join(&|c| c.llm_calls.to_string()),
            join(&|c| c.prompt_tokens.to_string()),
            join(&|c| c.completion_tokens.to_string()),
            join(&|c| c.cost_usd.map_or("?".to_string(), |d| format!("{d:.4}"))),
            join(&|c| format!("{:.1}", c.wall_ms / 1000.0)),
            join(&|c| c.actions.to_string()),
        ]
    }

    fn head(&self) -> Vec<String> {
        let order = self.formats.join(" / ");
        let mut head = vec!["template".to_string()];
        for what in ["solved", "model calls", "prompt tokens", "completion tokens", "cost $", "time s", "actions"] {
            head.push(format!("{what} ({order})"));
        }
        head
    }

    /// The table, a row per template and the totals last.
    pub fn markdown(&self) -> String {
        let head = self.head();
        let mut md = format!("| {} |\n|---|{}\n", head.join(" | "), "---:|".repeat(head.len() - 1));
        for (template, cells) in &self.templates {
            let _ = writeln!(md, "| {template} | {} |", Self::row(cells).join(" | "));
        }
        let _ = writeln!(md, "| **total** | {} |", Self::row(&self.totals).join(" | "));
        if self.totals.iter().any(|c| c.cost_usd.is_none()) {
            md.push_str(
                "\n? : the model's price is not listed; give it with --price IN,OUT (dollars per million tokens).\n",
            );
        }
        md
    }

    /// `formats.md`, `formats.json` and `report.html` (the table as a page, each
    /// format's suite report linked from its folder) in `out_dir`.
    pub fn write(&self, out_dir: &Path) -> Result<PathBuf, codeact_record::report::ReportError> {
        // Replaced whole, never written through a link planted at the name.
        let io = |path: PathBuf, bytes: Vec<u8>| {
            codeact_base::files::write_replacing(&path, &bytes)
                .map_err(|source| codeact_record::report::ReportError { path, source })
        };
        io(out_dir.join("formats.md"), self.markdown().into_bytes())?;
        io(out_dir.join("formats.json"), serde_json::to_vec_pretty(self).unwrap_or_default())?;
        let mut rows: Vec<(Option<PathBuf>, Vec<String>)> = self
            .templates
            .iter()
            .map(|(t, cells)| (None, std::iter::once(t.clone()).chain(Self::row(cells)).collect()))
            .collect();
        rows.push((None, std::iter::once("total".to_string()).chain(Self::row(&self.totals)).collect()));
        for f in &self.formats {
            let page = PathBuf::from(f).join("report.html");
            if out_dir.join(&page).is_file() {
                rows.push((Some(page), vec![format!("{f}: every instance's run")]));
            }
        }
        let title = format!(
            "codeact eval: actions as {} side by side{}",
            self.formats.join(" and "),
            self.model.as_deref().map(|m| format!(", model {m}")).unwrap_or_default()
        );
        let head = self.head();
        let head: Vec<&str> = head.iter().map(String::as_str).collect();
        codeact_record::report::write_index(out_dir, &title, &head, &rows)
    }
}
