//! The planner of `--strategy llm`: what it is shown — the user it plays, the
//! app's activities (reached or not), the tasks done so far with what each
//! changed, what is known of the widgets, the reflector's notes and the screen the
//! app starts on — and how its answer is read: one task (`TASK: …`) or the end
//! (`DONE: …`). The asking is the cycle's (`mod.rs`).

use std::fmt::Write as _;

use super::super::coverage::Coverage;
use super::super::persona::UserPersona;
use codeact_runtime::llm::{Message, Role};

/// The most bytes of a task the planner may set.
const TASK_BYTES: usize = 300;
/// The most tasks done so far the planner reads (the newest).
const DONE_SHOWN: usize = 20;
/// The most bytes of the screen it reads.
const SCREEN_BYTES: usize = 6000;

const SYSTEM: &str = "You plan the exploration of an Android app. You play the user described below and \
     choose ONE realistic task at a time for an agent that operates the phone; it starts every task on the \
     app's first screen, with the app's data cleared. Prefer tasks that reach activities not reached yet and \
     use widgets whose effect is not known yet, follow the reviewer's notes, and do not repeat a task already \
     done. A task is one sentence a user would say, naming the values to type. Answer with exactly one line: \
     `TASK: <the task>`, or `DONE: <why>` when nothing worth trying is left.";

/// One task done, as the planner reads it.
#[derive(Debug, Clone)]
pub struct DoneTask {
    pub goal: String,
    pub success: bool,
    /// What the observer said it changed.
    pub effects: String,
}

/// Everything the planner is shown.
pub struct PlannerView<'a> {
    pub app: &'a str,
    pub label: Option<&'a str>,
    pub user: &'a UserPersona,
    pub coverage: &'a Coverage,
    pub done: &'a [DoneTask],
    /// Tasks earlier explorations of this app completed (memory).
    pub earlier: &'a [String],
    /// What acting on widgets did (memory and this run): `screen: call → effect`.
    pub widgets: &'a [String],
    /// The reflector's notes, newest first (this run's, then earlier runs').
    pub notes: &'a [String],
    /// The app's first screen, as the agent sees it.
    pub screen: &'a str,
}

fn list(out: &mut String, title: &str, items: &[String], empty: &str) {
    let _ = writeln!(out, "\n{title}:");
    if items.is_empty() {
        let _ = writeln!(out, "- {empty}");
    }
    for item in items {
        let _ = writeln!(out, "- {item}");
    }
}

/// The planner's request.
pub fn messages(view: &PlannerView<'_>) -> Vec<Message> {
    let user = view.user;
    let mut text = format!("App: {}", view.app);
    if let Some(label) = view.label {
        let _ = write!(text, " ({label})");
    }
    let _ = writeln!(text, "\n\nYou are {}.", user.name);
    list(&mut text, "Your goals", &user.goals, "explore the app");
    list(&mut text, "How you act", &user.traits, "as anyone would");
    let data: Vec<String> = user.data.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    list(&mut text, "What you type when asked (field: value)", &data, "anything plausible");

    let c = view.coverage;
    let reached: Vec<String> = c.declared.iter().filter(|a| c.reached.contains_key(*a)).cloned().collect();
    let mut missed: Vec<String> = c.missed().into_iter().map(str::to_string).collect();
    if c.declared.is_empty() {
        missed.push("(the app's activity list is not known)".into());
    }
    list(&mut text, "Activities reached", &reached, "none yet");
    list(&mut text, "Activities not reached yet", &missed, "none: every activity was reached");

    let from = view.done.len().saturating_sub(DONE_SHOWN);
    let done: Vec<String> = view.done[from..]
        .iter()
        .map(|t| format!("{} [{}] — {}", t.goal, if t.success { "done" } else { "failed" }, t.effects))
        .collect();
    list(&mut text, "Tasks done in this exploration (what each changed)", &done, "none yet");
    if !view.earlier.is_empty() {
        list(&mut text, "Tasks completed by earlier explorations", view.earlier, "");
    }
    list(&mut text, "What widgets are known to do", view.widgets, "nothing yet");
    if !view.notes.is_empty() {
        list(&mut text, "The reviewer's notes (newest first)", view.notes, "");
    }
    let screen = codeact_base::clip::clip(view.screen, SCREEN_BYTES);
    let _ = write!(text, "\nThe app's first screen:\n{screen}\n\nThe next task?");
    vec![Message::text(Role::System, SYSTEM.to_string()), Message::text(Role::User, text)]
}

/// What the planner answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    Task(String),
    /// Nothing worth trying is left (why).
    Done(String),
}

/// `text` with control characters (escapes, bells, line breaks) dropped and
/// whitespace runs made one space, cut to at most `max` bytes on a character
/// boundary: a task goes to the agent, the terminal and file names as it is.
pub fn plain(text: &str, max: usize) -> String {
    let flat: String = text.chars().filter(|c| !c.is_control() || c.is_whitespace()).collect();
    let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    flat[..flat.floor_char_boundary(max)].trim_end().to_string()
}

/// `line` without list marks, emphasis or quotes around it.
fn bare(line: &str) -> &str {
    line.trim().trim_start_matches(['-', '*', '>', '#', ' ']).trim_matches(['*', '`', '"', ' '])
}

/// Reads the planner's answer: the first `TASK:` or `DONE:` line (any case), else
/// a reply of one short line taken as the task. `None`: no task can be read.
pub fn parse(reply: &str) -> Option<Plan> {
    let one_line = |s: &str| plain(s, TASK_BYTES);
    for line in reply.lines().map(bare) {
        let lower = line.to_lowercase();
        let rest = |n: usize| line[n..].trim_start_matches(['*', ' ', '`']).trim_end_matches(['*', '`']).trim();
        if lower.starts_with("task:") && !rest(5).is_empty() {
            return Some(Plan::Task(one_line(rest(5))));
        }
        if lower.starts_with("done:") || lower == "done" {
            return Some(Plan::Done(one_line(if line.len() > 5 { rest(5) } else { "" })));
        }
    }
    let lines: Vec<&str> = reply.lines().map(bare).filter(|l| !l.is_empty()).collect();
    match lines.as_slice() {
        [only] if only.len() <= TASK_BYTES => Some(Plan::Task(one_line(only))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_or_the_end_is_read_from_what_models_write() {
        assert_eq!(parse("TASK: Add a note titled Milk"), Some(Plan::Task("Add a note titled Milk".into())));
        assert_eq!(
            parse("Thinking about it.\n**Task:** Open the editor and go back\nmore"),
            Some(Plan::Task("Open the editor and go back".into()))
        );
        assert_eq!(parse("- task: `Delete the note`"), Some(Plan::Task("Delete the note".into())));
        assert_eq!(parse("DONE: all reached"), Some(Plan::Done("all reached".into())));
        assert_eq!(parse("done"), Some(Plan::Done(String::new())));
        assert_eq!(parse("Add a contact named Bob"), Some(Plan::Task("Add a contact named Bob".into())));
        assert_eq!(parse("one\ntwo"), None);
        assert_eq!(parse(""), None);
        assert_eq!(
            parse("TASK: \u{1b}[31mred\u{7}"),
            Some(Plan::Task("[31mred".into())),
            "no escapes reach a terminal"
        );
        let long = format!("TASK: {}", "é".repeat(400));
        let Some(Plan::Task(t)) = parse(&long) else { panic!() };
        assert!(t.len() <= TASK_BYTES);
    }

    #[test]
    fn the_planner_sees_the_user_the_activities_and_what_was_done() {
        let mut coverage = Coverage::new(vec!["a.Main".into(), "a.Edit".into()]);
        coverage.reach("a.Main", 0);
        let user = UserPersona::default_user();
        let done = [DoneTask { goal: "Open the editor".into(), success: true, effects: "opened .Edit".into() }];
        let notes = ["Try the menu next".to_string()];
        let widgets = [".Main: tap(#{id: \"fab\"}) → opened .Edit".to_string()];
        let view = PlannerView {
            app: "a",
            label: Some("A"),
            user: &user,
            coverage: &coverage,
            done: &done,
            earlier: &[],
            widgets: &widgets,
            notes: &notes,
            screen: "[0] button \"New\"",
        };
        let text = &messages(&view)[1].text;
        for part in [&user.name, "Activities not reached yet:\n- a.Edit", "Open the editor [done] — opened .Edit"] {
            assert!(text.contains(part), "{part} in {text}");
        }
        assert!(text.contains("Try the menu next") && text.contains("opened .Edit") && text.contains("button \"New\""));
    }
}
