//! An experience: a task done successfully, as steps a replay runs one at a time.
//! Each step keeps its intent (the model's thought), its code (index taps already
//! turned into selectors), and its precondition: the app in front when the step's
//! screen was seen, and a selector that must be visible (the element it acted on).

use serde::{Deserialize, Serialize};

use crate::trajectory::export::{replay_anchor, replay_code};
use crate::trajectory::{RunEffects, StepRecord};

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
    /// What the run left changed (`None`: kept before effects were recorded, or
    /// written by hand): a replay counts only when it ends with them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effects: Option<RunEffects>,
}

/// The most steps an experience may have.
pub const MAX_STEPS: usize = 500;

/// The most code one step may have: a model's snippet is a few KiB; a replay shows
/// a diverging step's code to the model.
pub const MAX_STEP_CODE: usize = 64 * 1024;

/// The most text a task or a step's intent may have.
pub const MAX_TEXT: usize = 8 * 1024;

/// The most toggles an experience's effects may name.
pub const MAX_TOGGLES: usize = 64;

/// Why an experience (from an import) cannot be kept.
#[derive(Debug, thiserror::Error)]
pub enum ExperienceProblem {
    #[error("it has no task")]
    NoTask,
    #[error("it has no steps")]
    NoSteps,
    #[error("it has {0} steps; at most {MAX_STEPS} can be kept")]
    TooManySteps(usize),
    #[error("{what} holds {bytes} bytes; at most {max} can be kept")]
    TooLarge { what: String, bytes: usize, max: usize },
    #[error("its effects name {0} toggles; at most {MAX_TOGGLES} can be kept")]
    TooManyToggles(usize),
    #[error("toggle {toggle} of its effects is not a selector")]
    Toggle {
        toggle: usize,
        #[source]
        source: codeact_tools::select::SelectorError,
    },
    #[error("the precondition of step {step} is not a selector")]
    Anchor {
        step: usize,
        #[source]
        source: codeact_tools::select::SelectorError,
    },
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
    /// Whether the experience is one a recorded run could have left: sizes within
    /// bounds, and each precondition a selector literal (read as data).
    pub fn check(&self) -> Result<(), ExperienceProblem> {
        let sized = |what: String, text: &str, max: usize| {
            if text.len() > max { Err(ExperienceProblem::TooLarge { what, bytes: text.len(), max }) } else { Ok(()) }
        };
        if self.task.trim().is_empty() {
            return Err(ExperienceProblem::NoTask);
        }
        sized("its task".into(), &self.task, MAX_TEXT)?;
        match self.steps.len() {
            0 => return Err(ExperienceProblem::NoSteps),
            n if n > MAX_STEPS => return Err(ExperienceProblem::TooManySteps(n)),
            _ => {}
        }
        sized("its apps".into(), &self.apps.concat(), MAX_TEXT)?;
        for (i, step) in self.steps.iter().enumerate() {
            let n = i + 1;
            sized(format!("the code of step {n}"), &step.code, MAX_STEP_CODE)?;
            sized(format!("the intent of step {n}"), &step.intent, MAX_TEXT)?;
            sized(format!("the app of step {n}"), &format!("{}{}", step.app, step.activity), MAX_TEXT)?;
            if let Some(anchor) = &step.anchor {
                codeact_tools::select::Selector::from_source(anchor)
                    .map_err(|source| ExperienceProblem::Anchor { step: n, source })?;
            }
        }
        if let Some(effects) = &self.effects {
            if effects.toggles.len() > MAX_TOGGLES {
                return Err(ExperienceProblem::TooManyToggles(effects.toggles.len()));
            }
            for (n, t) in effects.toggles.iter().enumerate() {
                sized(format!("toggle {} of its effects", n + 1), &format!("{}{}", t.selector, t.name), MAX_TEXT)?;
                codeact_tools::select::Selector::from_source(&t.selector)
                    .map_err(|source| ExperienceProblem::Toggle { toggle: n + 1, source })?;
            }
            if let Some(screen) = &effects.screen {
                sized("its final screen".into(), &format!("{}{}", screen.app, screen.activity), MAX_TEXT)?;
            }
        }
        Ok(())
    }

    /// The experience as a worked example: its task, then its steps' code.
    pub fn as_example(&self) -> String {
        let mut code = String::new();
        for s in &self.steps {
            if !s.intent.is_empty() {
                code.push_str(&codeact_engine::emit::rhai::comment(s.intent.lines().next().unwrap_or("")));
                code.push('\n');
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
        Self { task: task.to_string(), apps, steps, effects: Some(RunEffects::of_records(records)) }
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
