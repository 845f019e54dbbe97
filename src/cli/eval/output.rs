//! What `codeact eval` prints about one suite: a line per instance as it ends (or
//! JSON lines with --json), then the Markdown table, where the results are, and
//! whether the suite passes. Not the side-by-side table of formats (`formats.rs`).

use std::path::Path;

use codeact::agent::ActionFormat;
use codeact::eval::suite::{SuiteProgress, SuiteRun};
use codeact::terminal::clean;

use codeact::eval::InstanceResult;

use super::flags::{AgentChoice, EvalArgs};

impl EvalArgs {
    /// Says how the suite in `dir` goes: its plan, then each instance as it ends.
    pub(super) fn progress(&self, p: SuiteProgress, agent: &str, format: Option<ActionFormat>, dir: &Path) {
        let format_name = format.map(ActionFormat::as_str);
        match p {
            SuiteProgress::Planned { templates, instances, phones } if self.json => codeact::outln!(
                "{}",
                serde_json::json!({"event": "planned", "templates": templates, "instances": instances,
                    "phones": phones, "agent": agent, "action_format": format_name, "seed": self.seed,
                    "out": dir.display().to_string()})
            ),
            SuiteProgress::Planned { templates, instances, phones } => codeact::errln!(
                "codeact eval: {templates} templates, {instances} instances, agent {agent}{}, seed {}, {phones} phone{}; results in {}",
                format_name.map(|f| format!(" acting by {f}")).unwrap_or_default(),
                self.seed,
                if phones == 1 { "" } else { "s" },
                dir.display()
            ),
            SuiteProgress::Finished { result, done, total } if self.json => {
                let mut line = serde_json::to_value(result).unwrap_or_default();
                if let Some(fields) = line.as_object_mut() {
                    fields.insert("event".into(), "instance".into());
                    fields.insert("action_format".into(), format_name.into());
                    fields.insert("done".into(), done.into());
                    fields.insert("total".into(), total.into());
                }
                codeact::outln!("{line}")
            }
            SuiteProgress::Finished { result, done, total } => {
                codeact::errln!("{}", progress_line(result, done, total))
            }
        }
    }

    /// Prints the suite's table (or its JSON summary) and where its files are;
    /// whether it passes: every template sound, every instance solved by the oracle,
    /// the mean score not below --min-score. An LLM that never answered is an error.
    pub(super) fn report_suite(&self, ran: &SuiteRun, dir: &Path) -> anyhow::Result<bool> {
        let results = &ran.results;
        let all = &results.summary.all;
        let below = self.min_score.filter(|min| all.mean_score < *min);
        if self.json {
            codeact::outln!(
                "{}",
                serde_json::json!({"event": "summary", "totals": all, "planned": ran.planned,
                    "action_format": results.action_format,
                    "min_score": self.min_score, "passed_min_score": below.is_none(),
                    "results": dir.join("results.json").display().to_string(),
                    "report": ran.report.display().to_string()})
            );
        } else {
            codeact::out!("{}", clean(&results.markdown()));
            codeact::errln!("results: {}", codeact::terminal::path(&dir.join("results.json")));
            codeact::errln!("report: {}", codeact::terminal::path(&ran.report));
        }
        if let Some(why) = results.results.iter().find_map(|r| r.stopped_suite.as_ref()) {
            anyhow::bail!(
                "stopped: an instance ended before the LLM answered once ({}); every other instance would too: check --base-url, --model and the key, then run again",
                codeact::terminal::one_line(why)
            );
        }
        let sound = all.broken == 0 && results.results.len() == ran.planned;
        if let Some(min) = below {
            codeact::errln!("codeact: the mean score {:.3} is below --min-score {min}", all.mean_score);
        }
        Ok(sound && (self.agent == AgentChoice::Llm || all.solved == all.instances) && below.is_none())
    }
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
