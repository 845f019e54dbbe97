//! The reflector: every N actions, and after a step that failed, a model reads the
//! task and the last steps and writes a short critique; the actor's prompt carries
//! the last [`SHOWN`] of them. This module says when and what to ask, and trims
//! the answer; the asking is the run's (`step.rs`).

use std::fmt::Write as _;

use super::prompt::feedback;
use codeact_record::trajectory::{StepOutcome, StepRecord};
use codeact_runtime::llm::{Message, Role};

/// How many reflections the actor's prompt carries (the newest).
pub const SHOWN: usize = 3;
/// How many past steps the reflector reads.
const STEPS_READ: usize = 4;
/// The most of a reflection kept.
const REFLECTION_BYTES: usize = 600;
/// The most of one step's feedback the reflector reads.
const FEEDBACK_BYTES: usize = 1200;

const SYSTEM: &str = "You review the work of an agent that operates an Android phone by writing small Rhai \
     snippets. Read the task and its last steps, then in two or three sentences say whether it is making \
     progress, what went wrong if anything, and what it should do next. Be concrete (name elements, apps, \
     tools). Do not write code.";

/// Whether a reflection is due after `record`: it failed, or `every` actions ran
/// since the last one (0: never).
pub fn due(every: usize, actions_since: usize, record: &StepRecord) -> bool {
    if every == 0 {
        return false;
    }
    let failed = match &record.outcome {
        StepOutcome::Ran(r) => r.error.is_some() || r.completion.as_ref().is_some_and(|c| !c.success),
        StepOutcome::NotParsed(_) | StepOutcome::NoCode => true,
    };
    failed || actions_since >= every
}

/// What the reflector is asked: the task (and the plan in hand), then the last
/// steps' thoughts, code and results.
pub fn messages(task: &str, focus: Option<&str>, recent: &[StepRecord]) -> Vec<Message> {
    let mut text = format!("Task: {task}\n");
    if let Some(focus) = focus {
        let _ = write!(text, "\n{focus}\n");
    }
    text.push_str("\nThe last steps:\n");
    let from = recent.len().saturating_sub(STEPS_READ);
    for step in &recent[from..] {
        let _ = writeln!(text, "\nStep {}. Thought: {}", step.number, step.thought.trim());
        if let Some(code) = &step.code {
            let _ = writeln!(text, "Code:\n{}", code.trim_end());
        }
        let fb = feedback(step);
        let _ = writeln!(text, "{}", &fb[..fb.floor_char_boundary(FEEDBACK_BYTES)].trim_end());
    }
    text.push_str("\nYour critique (two or three sentences, no code):");
    vec![Message::text(Role::System, SYSTEM.to_string()), Message::text(Role::User, text)]
}

/// The reflection in a reply: code blocks dropped, one paragraph, bounded.
pub fn trimmed(reply: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for line in reply.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if !in_code && !line.trim().is_empty() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(line.trim());
        }
    }
    out[..out.floor_char_boundary(REFLECTION_BYTES)].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflections_drop_code_and_stay_short() {
        assert_eq!(
            trimmed("Progress is slow.\n```rhai\ntap(1);\n```\nTry the search box."),
            "Progress is slow. Try the search box."
        );
        assert!(trimmed(&"word ".repeat(500)).len() <= REFLECTION_BYTES);
    }
}
