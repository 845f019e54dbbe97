//! The reflector of `--strategy llm`: every N tasks a model reads the tasks done
//! so far (each with what it changed), the coverage, and says in a few sentences
//! what the exploration is missing and what to try next; its notes go into the
//! planner's next requests and into memory for later explorations of the app.
//! Not the agent's own reflector (`agent/reflect.rs`), which critiques the steps
//! of one task.

use std::fmt::Write as _;

use super::super::coverage::Coverage;
use super::planner::DoneTask;
use codeact_runtime::llm::{Message, Role};

/// The most bytes of a note kept.
const NOTE_BYTES: usize = 600;
/// How many tasks the reflector reads (the newest).
const TASKS_READ: usize = 12;

const SYSTEM: &str = "You review an exploration of an Android app in which a planner sets one task at a \
     time for an agent. Read the tasks (each with what it changed on the phone) and the coverage, then in two \
     or three sentences say what the exploration keeps missing or repeating, which activities or widgets it \
     should try next, and which tasks failed and why they might have. Be concrete. Do not write code.";

/// The reflector's request.
pub fn messages(app: &str, done: &[DoneTask], coverage: &Coverage) -> Vec<Message> {
    let mut text = format!("App: {app}\n\nTasks so far (oldest first):\n");
    let from = done.len().saturating_sub(TASKS_READ);
    for (n, t) in done.iter().enumerate().skip(from) {
        let outcome = if t.success { "done" } else { "failed" };
        let _ = writeln!(text, "{}. {} [{outcome}] — {}", n + 1, t.goal, t.effects);
    }
    match coverage.ratio() {
        Some(r) => {
            let _ = write!(
                text,
                "\nActivities reached: {} of {} ({:.0} %).",
                coverage.reached_declared(),
                coverage.declared.len(),
                100.0 * r
            );
        }
        None => {
            let _ = write!(text, "\nActivities reached: {}.", coverage.reached.len());
        }
    }
    let missed = coverage.missed();
    if !missed.is_empty() {
        let _ = write!(text, " Not reached: {}.", missed.join(", "));
    }
    vec![Message::text(Role::System, SYSTEM.to_string()), Message::text(Role::User, text)]
}

/// The reply as a note: one paragraph, made safe, at most [`NOTE_BYTES`]; `None`
/// when it says nothing.
pub fn note(reply: &str) -> Option<String> {
    let flat = super::planner::plain(reply, NOTE_BYTES);
    (!flat.is_empty()).then_some(flat)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reflector_reads_the_tasks_and_the_coverage_and_its_note_is_one_paragraph() {
        let mut coverage = Coverage::new(vec!["a.Main".into(), "a.Edit".into()]);
        coverage.reach("a.Main", 0);
        let done = [DoneTask { goal: "Add a note".into(), success: false, effects: "opened .Edit".into() }];
        let text = &messages("a", &done, &coverage)[1].text;
        assert!(text.contains("1. Add a note [failed] — opened .Edit"), "{text}");
        assert!(text.contains("1 of 2 (50 %)") && text.contains("Not reached: a.Edit"), "{text}");
        assert_eq!(note("  Try\n\nthe menu.  "), Some("Try the menu.".into()));
        assert_eq!(note(" \n "), None);
        assert!(note(&"x".repeat(5000)).is_some_and(|n| n.len() == NOTE_BYTES));
    }
}
