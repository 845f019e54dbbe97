//! The four forms a recorded run is replayed in — (a) coordinates, as macro
//! recorders keep taps; (b) `ui_state` indices; (c) selectors; (d) selectors
//! replayed by memory, a step that no longer fits going to the LLM alone — all made
//! from the same recorded actions (each action keeps where its element was). Not
//! running them (`measure.rs`) or the table (`table.rs`).

use codeact_engine::sandbox::Action;
use codeact_record::memory::{Experience, ReplayStep};
use codeact_tools::call::ToolCall;
use codeact_tools::{ParamKind, Press, Replay, Role, ToolSpec, form_of};

/// The virtual phone's highest layout variant (`codeact sim --variant N`); the
/// table has a row for each from 0.
pub const LAST_VARIANT: u32 = 3;

/// How a recorded run is replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Form {
    Coordinates,
    Indices,
    Selectors,
    /// Selectors replayed from memory, a diverging step healed by the LLM.
    #[serde(rename = "selectors+healing")]
    Healing,
}

impl Form {
    pub const ALL: [Form; 4] = [Form::Coordinates, Form::Indices, Form::Selectors, Form::Healing];

    pub fn as_str(self) -> &'static str {
        match self {
            Form::Coordinates => "coordinates",
            Form::Indices => "indices",
            Form::Selectors => "selectors",
            Form::Healing => "selectors+healing",
        }
    }
}

/// The form of the tool an action called, as the catalog declares it.
fn form(action: &Action) -> Option<&'static ToolSpec> {
    form_of(&action.tool, action.args.len())
}

/// What a replay of this measurement does with the action (the catalog's role).
fn role(action: &Action) -> Role {
    form(action).map_or(Role::Kept, |t| t.role)
}

/// Calls the catalog replays as they were but this measurement leaves out: what
/// `remember` kept and what `shell` ran are the recorded run's own business (a shell
/// command that set up the phone would set it up twice), and the measurement is of
/// how the run's presses survive a changed layout.
const NOT_MEASURED: &[&str] = &["remember", "shell"];

/// Whether the action's form takes a selector first (`tap(sel)` but `tap(x, y)`).
fn takes_selector(action: &Action) -> bool {
    form(action).is_some_and(|t| t.params.first().is_some_and(|p| p.kind == ParamKind::Selector))
}

/// One action as a statement, arguments as recorded (an index-based action by the
/// selector of what it acted on, with the tool its replay calls).
fn as_selector_call(action: &Action) -> String {
    match (form(action).map(|t| t.replay), &action.capture.target) {
        (Some(Replay::IndexAsSelector(by)), Some(sel)) => format!("{by}({sel});"),
        _ => format!("{}({});", action.tool, action.args.join(", ")),
    }
}

/// The actions a replay runs: those that succeeded, reads left out, and so are
/// the watchers' own presses and those a blocker watcher had already made (it makes
/// them again).
fn replayable(actions: &[Action]) -> impl Iterator<Item = &Action> {
    actions.iter().filter(|a| {
        a.succeeded()
            && !a.is_watcher()
            && !a.done_by_watcher()
            && role(a) != Role::Skipped
            && !NOT_MEASURED.contains(&a.tool.as_str())
    })
}

/// The recorded run as a macro: every element press by its point (`by_index`
/// false) or by its `ui_state` index after reading the screen again (`by_index`
/// true), checks left out. A field is tapped, emptied and typed into. A scroll to
/// an element stays as it is: its swipes are not recorded one by one.
fn macro_script(actions: &[Action], by_index: bool) -> String {
    let mut out = String::new();
    for a in replayable(actions) {
        let press = match role(a) {
            Role::Check => continue,
            Role::Press(press) => a.capture.resolved.map(|r| (press, r)),
            Role::Kept | Role::Skipped => None,
        };
        let Some((press, resolved)) = press else {
            out.push_str(&as_selector_call(a));
            out.push('\n');
            continue;
        };
        let (x, y) = resolved.center;
        let at = |long: bool| match (by_index, resolved.index) {
            (true, Some(i)) => {
                format!("{}\n{}\n", ToolCall::refresh().line(), ToolCall::by_index(long, i).line())
            }
            _ if long => format!("{}\n", ToolCall::long_press_point(x.into(), y.into(), None).line()),
            _ => format!("{}\n", ToolCall::tap_point(x.into(), y.into()).line()),
        };
        match press {
            Press::LongPress => out.push_str(&at(true)),
            Press::TapThenType => {
                out.push_str(&at(false));
                let typed = a.args.get(1).map_or("\"\"", String::as_str);
                out.push_str(&format!("clear_text();\ninput_text({typed});\n"));
            }
            Press::Tap => out.push_str(&at(false)),
        }
    }
    out
}

/// The recorded run by coordinates.
pub fn coordinates_script(actions: &[Action]) -> String {
    macro_script(actions, false)
}

/// The recorded run by `ui_state` indices.
pub fn indices_script(actions: &[Action]) -> String {
    macro_script(actions, true)
}

/// The recorded run by selectors, one statement per action.
pub fn selectors_script(actions: &[Action]) -> String {
    replayable(actions).map(|a| as_selector_call(a) + "\n").collect()
}

/// The recorded run as memory keeps a run: one step per action, each with the
/// selector it acts on as its precondition and what it did as its intent.
pub fn experience(goal: &str, actions: &[Action]) -> Experience {
    let steps = replayable(actions)
        .map(|a| {
            let code = as_selector_call(a);
            // A selector names what must be on screen before the step, but for the
            // calls that wait or scroll for it to come.
            let waits_for_it = matches!(a.tool.as_str(), "scroll_until_visible" | "wait_for");
            let anchor = match form(a).map(|t| t.replay) {
                _ if takes_selector(a) && !waits_for_it => a.args.first().cloned(),
                Some(Replay::IndexAsSelector(_)) => a.capture.target.clone(),
                _ => None,
            };
            let intent = match &a.capture.effect {
                Some(effect) => format!("{} (when recorded: {effect})", code.trim_end_matches(';')),
                None => code.trim_end_matches(';').to_string(),
            };
            ReplayStep { intent, code, app: String::new(), activity: String::new(), anchor }
        })
        .collect();
    Experience { task: goal.to_string(), apps: Vec::new(), steps, effects: None }
}

#[cfg(test)]
mod tests {
    use super::*;
    use codeact_engine::sandbox::{Capture, Resolved};

    fn action(tool: &str, args: &[&str], at: Option<(i64, i32, i32)>) -> Action {
        Action {
            tool: tool.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            result: "ok".into(),
            failure: None,
            started_ms: 0.0,
            duration_ms: 0.0,
            capture: Capture {
                resolved: at.map(|(i, x, y)| Resolved { index: Some(i), center: (x, y) }),
                ..Capture::default()
            },
        }
    }

    #[cfg(feature = "sim")]
    #[test]
    fn the_table_has_a_row_for_every_layout_variant() {
        assert_eq!(LAST_VARIANT, codeact_sim::MAX_VARIANT);
    }

    #[test]
    fn one_recorded_run_gives_every_form() {
        let run = vec![
            action("start_app", &["\"com.example.notes\""], None),
            action("find", &["#{id: \"x\"}"], None),
            action("tap", &["#{desc: \"New note\"}"], Some((4, 980, 2100))),
            action("set_text", &["#{id: \"note_title\"}", "\"Milk\""], Some((2, 540, 300))),
            action("wait_for", &["\"Saved\""], Some((1, 10, 10))),
            action("tap", &["500", "600"], None),
            action("complete", &["true", "\"done\""], None),
        ];
        assert_eq!(
            coordinates_script(&run),
            "start_app(\"com.example.notes\");\ntap(980, 2100);\ntap(540, 300);\nclear_text();\ninput_text(\"Milk\");\ntap(500, 600);\ncomplete(true, \"done\");\n"
        );
        assert!(
            indices_script(&run).contains("refresh();\ntap_by_index(4);\nrefresh();\ntap_by_index(2);\nclear_text();")
        );
        let selectors = selectors_script(&run);
        assert!(
            selectors.contains("set_text(#{id: \"note_title\"}, \"Milk\");\nwait_for(\"Saved\");")
                && !selectors.contains("find")
        );
        let memory = experience("Add a note", &run);
        assert_eq!(memory.steps.len(), 6);
        assert_eq!(memory.steps[1].anchor.as_deref(), Some("#{desc: \"New note\"}"));
        assert_eq!((memory.steps[0].anchor.clone(), memory.steps[4].anchor.clone()), (None, None));
    }
}
