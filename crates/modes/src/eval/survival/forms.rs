//! The four forms a recorded run is replayed in — (a) coordinates, as macro
//! recorders keep taps; (b) `ui_state` indices; (c) selectors; (d) selectors
//! replayed by memory, a step that no longer fits going to the LLM alone — all made
//! from the same recorded actions (each action keeps where its element was). Not
//! running them (`measure.rs`) or the table (`table.rs`).

use codeact_engine::sandbox::Action;
use codeact_record::memory::{Experience, ReplayStep};

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

/// Tools that only read: a replay of actions leaves them out (the values they read
/// are already literal in the actions that used them).
const READS: &[&str] = &[
    "find",
    "find_all",
    "refresh",
    "screenshot",
    "memory",
    "get_clipboard",
    "list_packages",
    "remember",
    "shell",
    "watcher",
];

/// Checks: a selector script keeps them, a macro has none.
const CHECKS: &[&str] = &["wait_for", "wait_gone", "assert_visible", "assert_not_visible"];

/// Tools whose first argument is a selector when they are called with
/// `selector_arity` arguments or fewer (`tap(sel)` but `tap(x, y)`).
fn takes_selector(action: &Action) -> bool {
    let n = action.args.len();
    match action.tool.as_str() {
        "tap" => n == 1,
        "long_press" => n == 1,
        "set_text" | "scroll" | "swipe_on" => n == 2,
        "scroll_until_visible" | "wait_for" | "wait_gone" => (1..=2).contains(&n),
        "assert_visible" | "assert_not_visible" => n == 1,
        _ => false,
    }
}

/// One action as a statement, arguments as recorded (an index-based action by the
/// selector of what it acted on).
fn as_selector_call(action: &Action) -> String {
    match (action.tool.as_str(), &action.capture.target) {
        ("tap_by_index", Some(sel)) => format!("tap({sel});"),
        ("long_press_by_index", Some(sel)) => format!("long_press({sel});"),
        _ => format!("{}({});", action.tool, action.args.join(", ")),
    }
}

/// The actions a replay runs: those that succeeded, reads left out, and so are
/// presses a blocker watcher had already made (it makes them again).
fn replayable(actions: &[Action]) -> impl Iterator<Item = &Action> {
    actions.iter().filter(|a| a.succeeded() && !a.done_by_watcher() && !READS.contains(&a.tool.as_str()))
}

/// The recorded run as a macro: every element action by its point (`by_index`
/// false) or by its `ui_state` index after reading the screen again (`by_index`
/// true), checks left out. A field is tapped, emptied and typed into. A scroll to
/// an element stays as it is: its swipes are not recorded one by one.
fn macro_script(actions: &[Action], by_index: bool) -> String {
    let mut out = String::new();
    for a in replayable(actions) {
        if CHECKS.contains(&a.tool.as_str()) {
            continue;
        }
        let element =
            matches!(a.tool.as_str(), "tap" | "long_press" | "set_text" | "tap_by_index" | "long_press_by_index")
                && (takes_selector(a) || a.tool.ends_with("_by_index"));
        let Some(resolved) = a.capture.resolved.filter(|_| element) else {
            out.push_str(&as_selector_call(a));
            out.push('\n');
            continue;
        };
        let (x, y) = resolved.center;
        let press = |verb: &str| match (by_index, resolved.index) {
            (true, Some(i)) => format!("refresh();\n{verb}_by_index({i});\n"),
            _ => format!("{verb}({x}, {y});\n"),
        };
        match a.tool.as_str() {
            "long_press" | "long_press_by_index" => out.push_str(&press("long_press")),
            "set_text" => {
                out.push_str(&press("tap"));
                out.push_str(&format!("clear_text();\ninput_text({});\n", a.args[1]));
            }
            _ => out.push_str(&press("tap")),
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
            let anchored = takes_selector(a) && !matches!(a.tool.as_str(), "scroll_until_visible" | "wait_for");
            let anchor = if anchored {
                a.args.first().cloned()
            } else if a.tool.ends_with("_by_index") {
                a.capture.target.clone()
            } else {
                None
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
