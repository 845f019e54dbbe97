//! The observer of `--strategy llm`: what each action of a task changed, read from
//! the effect check the runtime made right after it (what opened, appeared, went,
//! was checked) — the device's own account, so it costs no model call and cannot
//! be imagined — and what the task reached: the activities its steps were on or
//! opened, the elements it acted on. Not the agent's recording of the task (its
//! run folder) nor what the planner makes of it (`planner.rs`).

use codeact_record::memory::element_call;
use codeact_record::trajectory::StepRecord;

/// The most effect lines one task keeps (a long task's first ones tell the story).
const MAX_LINES: usize = 24;
/// The most bytes of one effect line.
const LINE_BYTES: usize = 200;

/// What one task did, as the observer tells it.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct TaskObservation {
    /// One line per action that did something: `tap(#{id: "add_note"}) → opened .NoteEditorActivity`.
    pub lines: Vec<String>,
    /// (package, activity) the steps were on or opened, in order, once each.
    pub activities: Vec<(String, String)>,
    /// The elements acted on, as the calls that found them (`tap(#{id: "save"})`).
    pub elements: Vec<String>,
    /// Device actions the task took (watchers' included: they cost time too).
    pub actions: usize,
}

impl TaskObservation {
    /// The lines as the planner and the reflector read them.
    pub fn told(&self) -> String {
        if self.lines.is_empty() {
            return "no action changed anything on the screen".to_string();
        }
        self.lines.join("; ")
    }

    fn reached(&mut self, package: &str, activity: &str) {
        let pair = (package.to_string(), activity.to_string());
        if !activity.is_empty() && !self.activities.contains(&pair) {
            self.activities.push(pair);
        }
    }
}

/// `opened .Editor` (same app) or `opened com.x/.Main` (another) in an effect.
fn opened(effect: &str, package: &str) -> Option<(String, String)> {
    let rest = effect.split("; ").find_map(|part| part.strip_prefix("opened "))?;
    match rest.split_once('/') {
        Some((pkg, activity)) => Some((pkg.to_string(), activity.to_string())),
        None if rest.starts_with('.') => Some((package.to_string(), rest.to_string())),
        // A platform without activities: another app in front.
        None => None,
    }
}

/// What the task's steps did, action by action.
pub fn observe(records: &[StepRecord]) -> TaskObservation {
    let mut seen = TaskObservation::default();
    for record in records {
        let package = record.seen.as_ref().map(|(p, _)| p.clone()).unwrap_or_default();
        if let Some((p, activity)) = &record.seen {
            seen.reached(p, activity);
        }
        let Some(ran) = record.ran() else { continue };
        seen.actions += ran.actions.len() + ran.more_actions;
        for a in &ran.actions {
            if !a.succeeded() || a.done_by_watcher() {
                continue;
            }
            let call = element_call(a).unwrap_or_else(|| format!("{}({})", a.tool, a.args.join(", ")));
            if let Some(element) = element_call(a)
                && !seen.elements.contains(&element)
            {
                seen.elements.push(element);
            }
            let Some(effect) = a.capture.effect.as_deref() else { continue };
            if let Some((p, activity)) = opened(effect, &package) {
                seen.reached(&p, &activity);
            }
            if seen.lines.len() < MAX_LINES && !effect.ends_with("no visible change") {
                let line = format!("{call} → {effect}");
                seen.lines.push(codeact_base::clip::clip(&line.replace('\n', " "), LINE_BYTES).into_owned());
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use codeact_engine::sandbox::Action;

    fn action(tool: &str, args: &[&str], effect: &str) -> Action {
        Action::with_effect(tool, args, effect)
    }

    fn step(seen: (&str, &str), actions: Vec<Action>) -> StepRecord {
        StepRecord::ran_for_test("", actions, Some(seen))
    }

    #[test]
    fn each_action_is_told_by_what_it_changed_and_the_activities_it_opened_count() {
        let records = vec![
            step(
                ("com.example.notes", ".NotesListActivity"),
                vec![action("tap", &["#{id: \"add_note\"}"], "opened .NoteEditorActivity; keyboard shown")],
            ),
            step(
                ("com.example.notes", ".NoteEditorActivity"),
                vec![
                    action("set_text", &["#{id: \"note_title\"}", "\"Milk\""], "no visible change"),
                    action("tap", &["#{id: \"save_note\"}"], "opened .NotesListActivity; appeared \"Milk\""),
                    action("open_url", &["\"https://example.org\""], "opened org.chromium/.Main"),
                ],
            ),
        ];
        let seen = observe(&records);
        assert_eq!(seen.actions, 4);
        assert_eq!(seen.lines.len(), 3, "{:?}", seen.lines);
        assert_eq!(seen.lines[0], "tap(#{id: \"add_note\"}) → opened .NoteEditorActivity; keyboard shown");
        assert!(seen.elements.contains(&"set_text(#{id: \"note_title\"})".to_string()), "{:?}", seen.elements);
        let names: Vec<&str> = seen.activities.iter().map(|(_, a)| a.as_str()).collect();
        assert_eq!(names, [".NotesListActivity", ".NoteEditorActivity", ".Main"]);
        assert_eq!(seen.activities[2].0, "org.chromium");
        assert_eq!(observe(&[]).told(), "no action changed anything on the screen");
    }
}
