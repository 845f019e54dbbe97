//! An experience: a task done successfully, as steps a replay runs one at a time.
//! Each step keeps its intent (the model's thought), its code (index taps already
//! turned into selectors), and its precondition: the app in front when the step's
//! screen was seen, and a selector that must be visible (the element it acted on).

use serde::{Deserialize, Serialize};

use crate::trajectory::StepRecord;
use crate::trajectory::export::{replay_anchor, replay_code};

/// One replayable step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplayStep {
    /// What the step was for (its thought), for the model when it must redo it.
    pub intent: String,
    pub code: String,
    /// The package in front when the step ran (empty: any; a step that opens an
    /// app needs no particular screen).
    pub app: String,
    pub activity: String,
    /// A selector (Rhai source) that must match on screen before the step runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
}

/// A successful run, as memory keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Experience {
    pub task: String,
    /// The apps its steps ran in, in order of first use.
    pub apps: Vec<String>,
    pub steps: Vec<ReplayStep>,
}

/// The form a task is looked up by: lower case, single spaces, no final period.
pub fn task_key(task: &str) -> String {
    let words: Vec<String> = task.split_whitespace().map(str::to_lowercase).collect();
    words.join(" ").trim_end_matches(['.', '!', '。']).to_string()
}

/// Whether `code`'s first statement opens an app or goes home.
fn opens_an_app(code: &str) -> bool {
    let first = code.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with("//")).unwrap_or("");
    ["start_app(", "open_app(", "open_url(", "home(", "go_home("].iter().any(|c| first.starts_with(c))
}

/// The most of one worked example a prompt shows.
const EXAMPLE_BYTES: usize = 1500;

impl Experience {
    /// The experience as a worked example: its task, then its steps' code.
    pub fn as_example(&self) -> String {
        let mut code = String::new();
        for s in &self.steps {
            if !s.intent.is_empty() {
                code.push_str(&format!("// {}\n", s.intent.lines().next().unwrap_or("")));
            }
            code.push_str(s.code.trim_end());
            code.push('\n');
        }
        let cut = code.floor_char_boundary(EXAMPLE_BYTES);
        let more = if cut < code.len() { "// ...\n" } else { "" };
        format!("Task: {}\n```rhai\n{}{more}```\n", self.task, &code[..cut])
    }

    /// The steps of a finished run that a replay can run (steps that ran nothing
    /// are left out).
    pub fn from_records(task: &str, records: &[StepRecord]) -> Self {
        let mut steps = Vec::new();
        let mut apps: Vec<String> = Vec::new();
        for r in records {
            let Some(code) = replay_code(r) else { continue };
            let (mut app, activity) = r.seen.clone().unwrap_or_default();
            let anchor = replay_anchor(r);
            // A step that starts by opening an app works from any screen.
            if anchor.is_none() && opens_an_app(&code) {
                app.clear();
            }
            if !app.is_empty() && !apps.contains(&app) {
                apps.push(app.clone());
            }
            let thought = r.thought.trim();
            let intent = thought.strip_prefix("Thought:").unwrap_or(thought).trim().to_string();
            steps.push(ReplayStep { intent, code, app, activity, anchor });
        }
        Self { task: task.to_string(), apps, steps }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_are_looked_up_by_their_words() {
        assert_eq!(task_key("  Turn off   Wi-Fi. "), "turn off wi-fi");
        assert_eq!(task_key("Turn off Wi-Fi"), task_key("turn off wi-fi!"));
    }
}
