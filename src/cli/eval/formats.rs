//! `codeact eval --actions code,json`: which formats run, and their suites set side
//! by side once all ran (`eval::formats::Comparison`): the table on stdout (or as a
//! JSON line), formats.md, formats.json and report.html in --out. Not running a
//! suite (`eval.rs`) nor printing one (`output.rs`).

use std::path::Path;

use codeact::agent::ActionFormat;
use codeact::eval::formats::Comparison;
use codeact::eval::suite::SuiteRun;
use codeact::terminal::clean;

use super::flags::EvalArgs;

/// The formats asked for, each once, in the order given (code when none is).
pub(super) fn chosen(asked: &[ActionFormat]) -> Vec<ActionFormat> {
    let mut out: Vec<ActionFormat> = Vec::new();
    for f in asked {
        if !out.contains(f) {
            out.push(*f);
        }
    }
    if out.is_empty() {
        out.push(ActionFormat::Code);
    }
    out
}

impl EvalArgs {
    /// Sets the formats' suites side by side and writes the comparison into `out_dir`.
    pub(super) fn compare_formats(
        &self,
        runs: &[(Option<ActionFormat>, SuiteRun, anyhow::Result<bool>)],
        out_dir: &Path,
    ) -> anyhow::Result<()> {
        let named: Vec<(String, &codeact::eval::Results)> = runs
            .iter()
            .map(|(f, ran, _)| (f.map_or("oracle", ActionFormat::as_str).to_string(), &ran.results))
            .collect();
        let comparison = Comparison::new(&named, self.price);
        let page = comparison.write(out_dir)?;
        if self.json {
            codeact::outln!(
                "{}",
                serde_json::json!({"event": "formats", "comparison": comparison,
                    "report": page.display().to_string()})
            );
        } else {
            codeact::outln!("\n{}", clean(&comparison.markdown()));
            codeact::errln!("formats side by side: {}", codeact::terminal::path(&page));
        }
        Ok(())
    }
}
