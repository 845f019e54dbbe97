//! The survival table: per layout variant and replay form, how many instances were
//! solved (and the LLM calls healing took), as Markdown and as JSON. Not the
//! measuring (`measure.rs`).

use std::collections::BTreeMap;

use super::forms::Form;
use crate::eval::results::InstanceResult;

/// One cell of the table: a form under a variant.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Cell {
    pub instances: usize,
    /// Instances scoring 1.
    pub solved: usize,
    pub score: f64,
    pub llm_calls: usize,
}

/// Every cell, by variant then form.
#[derive(Debug, Default, serde::Serialize)]
pub struct Table {
    pub templates: usize,
    pub cells: BTreeMap<u32, BTreeMap<Form, Cell>>,
}

impl Table {
    pub fn add(&mut self, variant: u32, form: Form, results: &[InstanceResult]) {
        let cell = self.cells.entry(variant).or_default().entry(form).or_default();
        for r in results {
            cell.instances += 1;
            cell.solved += usize::from(r.score >= 1.0);
            cell.score += r.score;
            cell.llm_calls += r.llm_calls;
        }
    }

    /// The table as Markdown: a row per variant, per form the share solved (and
    /// the LLM calls, for the form that makes any).
    pub fn markdown(&self) -> String {
        let forms: Vec<Form> =
            Form::ALL.into_iter().filter(|f| self.cells.values().any(|row| row.contains_key(f))).collect();
        let mut out = String::from("| Layout variant |");
        for f in &forms {
            out.push_str(&format!(" {} |", f.as_str()));
        }
        out.push_str("\n|---|");
        out.push_str(&"---|".repeat(forms.len()));
        out.push('\n');
        for (variant, row) in &self.cells {
            out.push_str(&format!("| {variant}: {} |", VARIANT_NAMES.get(*variant as usize).unwrap_or(&"")));
            for f in &forms {
                match row.get(f) {
                    Some(c) if c.instances > 0 => {
                        let share = 100.0 * c.solved as f64 / c.instances as f64;
                        let calls = match (*f, c.llm_calls) {
                            (Form::Healing, 1) => ", 1 LLM call".to_string(),
                            (Form::Healing, n) => format!(", {n} LLM calls"),
                            _ => String::new(),
                        };
                        out.push_str(&format!(" {share:.0}% ({}/{}{calls}) |", c.solved, c.instances));
                    }
                    _ => out.push_str(" – |"),
                }
            }
            out.push('\n');
        }
        out
    }
}

/// What each layout variant adds, for the table's first column.
const VARIANT_NAMES: [&str; 4] = ["as written", "items reordered", "+ ids renamed", "+ a \"What's new\" dialog"];
