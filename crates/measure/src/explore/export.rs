//! The tests an exploration found, written as scripts `codeact exec` runs: for
//! every activity reached (every screen where the platform names no activities),
//! a way there from a clean start — the shortest when it passes on the phone, else
//! the way the walk actually took (what it did on a screen before leaving it, like
//! putting an item in a cart, included) — each step a selector action on its own
//! line (`// step N`, so a failure names the step that diverged), then what the
//! walk saw there asserted: the screen's anchor element and the activity in front
//! (another one FAILs the test). A suite folder with an index beside them.

use serde::Serialize;

use super::graph::Graph;
use codeact_engine::emit::rhai::{comment, string as rhai_string, tags_comment};
use codeact_tools::call::ToolCall;

/// One test written.
#[derive(Debug, Clone, Serialize)]
pub struct TestFound {
    /// Its file, relative to the run folder (`tests/03-note-editor-activity.rhai`).
    pub file: String,
    /// What it checks: reaching this activity.
    pub goal: String,
    pub steps: usize,
}

/// `com.example.notes.NoteEditorActivity` → `note-editor-activity`.
fn slug(activity: &str) -> String {
    let short = activity.rsplit('.').next().unwrap_or(activity);
    let mut out = String::new();
    for (i, c) in short.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('-');
        }
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        }
    }
    if out.is_empty() { "screen".into() } else { out }
}

/// One step of a way to a screen: its code and what it does, in words.
pub type WayStep = (String, String);

/// The test that takes `way` from a clean start to `state` of `graph` and checks
/// what the walk saw there; `None` when nothing tells the screen apart.
pub fn test_text(
    graph: &Graph,
    state: usize,
    way: &[WayStep],
    app: &str,
    strategy: &str,
    clean: bool,
) -> Option<String> {
    let target = graph.states.get(state)?;
    let place = if target.activity.is_empty() { &target.name } else { &target.activity };
    let mut s = comment(&format!("codeact explore ({strategy}) found the way to {place} in {app}"));
    s.push('\n');
    s.push_str(&tags_comment(&["explore", app]));
    s.push('\n');
    s.push_str(&format!("{};\n", super::screen::start_line(app, clean)));
    for (n, (code, label)) in way.iter().enumerate() {
        let said = comment(&format!("step {}: {}", n + 1, super::findings::one_line(label)));
        s.push_str(&format!("{code}; {said}\n"));
    }
    if let Some(anchor) = &target.anchor {
        let (wait, check) = (ToolCall::wait_for(anchor, Some(5000)), ToolCall::assert_visible(anchor));
        s.push_str(&format!("{}\n{}\n", wait.line(), check.line()));
    } else if target.activity.is_empty() {
        // Nothing tells this screen apart: a test that checks nothing is not written.
        return None;
    }
    if !target.activity.is_empty() {
        let short = target.activity.rsplit('.').next().unwrap_or(&target.activity);
        // Another screen in front is the test's failure (FAIL), not an error.
        s.push_str(&format!(
            "if phone_state.activity != {want} {{ complete(false, {expected} + phone_state.activity); }}\n",
            want = rhai_string(&target.activity),
            expected = rhai_string(&format!("expected {short} in front, found ")),
        ));
    }
    s.push_str(&format!("{}\n", ToolCall::complete(true, &format!("reached {place}")).line()));
    Some(s)
}

/// The graph's shortest way from its start to `state` (it leaves out what was
/// done on a screen without leaving it).
pub fn shortest_way(graph: &Graph, state: usize) -> Option<Vec<WayStep>> {
    let path = graph.path(graph.start?, state)?;
    Some(path.iter().map(|e| (graph.edges[*e].code.clone(), graph.edges[*e].label.clone())).collect())
}

/// How a suite finds its ways and checks them.
pub struct Ways<'a> {
    /// The ways the walk actually took to a screen the first time, from a clean
    /// start, what it did on each screen before leaving it (an item put in a cart)
    /// included — shortest first (its visits that came straight back left out),
    /// then as lived. Empty where the strategy keeps no such way.
    pub lived: &'a dyn Fn(usize) -> Vec<Vec<WayStep>>,
    /// Runs a test's text on the phone: `Some(true)` when it passed, `None` when
    /// tests are not checked.
    pub check: &'a mut dyn FnMut(&str) -> Option<bool>,
}

/// One test per activity reached (the first screen of each), written by `write`:
/// the shortest way when it passes on the phone, else the way the walk actually
/// took; one that passes neither way is left out and said so in the index.
/// Unchecked, the way the walk took is written where it differs. Returns what
/// was written and the index text.
pub fn suite(
    graph: &Graph,
    app: &str,
    strategy: &str,
    clean: bool,
    ways: Ways<'_>,
    mut write: impl FnMut(&str, &[u8]) -> bool,
) -> (Vec<TestFound>, String) {
    let mut seen_activities = std::collections::HashSet::new();
    let mut tests = Vec::new();
    let mut unreplayed = Vec::new();
    let mut order: Vec<usize> = (0..graph.states.len()).collect();
    order.sort_by_key(|s| graph.states[*s].first_seen);
    for state in order {
        // One test per activity; where the platform names none (iOS), per screen.
        let state_ref = &graph.states[state];
        let activity = if state_ref.activity.is_empty() { state_ref.name.clone() } else { state_ref.activity.clone() };
        if !seen_activities.insert(activity.clone()) {
            continue;
        }
        let mut tried: Vec<Vec<WayStep>> = Vec::new();
        for way in shortest_way(graph, state).into_iter().chain((ways.lived)(state)) {
            if !tried.contains(&way) {
                tried.push(way);
            }
        }
        let (mut chosen, mut meaningful) = (None, false);
        for (i, way) in tried.iter().enumerate() {
            let Some(text) = test_text(graph, state, way, app, strategy, clean) else { break };
            meaningful = true;
            match (ways.check)(&text) {
                Some(true) => {
                    chosen = Some((text, way.len()));
                    break;
                }
                Some(false) => continue,
                // Unchecked: the way the walk took, when there is one (the last tried).
                None if i + 1 == tried.len() => chosen = Some((text, way.len())),
                None => continue,
            }
        }
        let Some((text, steps)) = chosen else {
            if meaningful {
                unreplayed.push(activity);
            }
            continue;
        };
        let file = format!("tests/{:02}-{}.rhai", tests.len() + 1, slug(&activity));
        if write(&file, text.as_bytes()) {
            tests.push(TestFound { file, goal: format!("reach {activity}"), steps });
        }
    }
    let mut index = index_text(
        app,
        &tests,
        "Each script starts the app clean, takes a way the exploration found to one activity (the shortest \
         that passes on the phone, else the one the walk took), and checks what it saw there.",
    );
    if !unreplayed.is_empty() {
        index.push_str(&format!(
            "\nReached, but no way found replays from a clean start (no test written): {}.\n",
            unreplayed.iter().map(|a| super::findings::one_line(a)).collect::<Vec<_>>().join(", ")
        ));
    }
    (tests, index)
}

/// `tests/index.md`: what the scripts are, how to run them, and the table.
pub fn index_text(app: &str, tests: &[TestFound], what: &str) -> String {
    let mut index = format!(
        "# Tests found exploring {app}\n\n{what} Run them all:\n\n    codeact exec tests/*.rhai --device sim\n\n\
         (or `--device SERIAL` on a phone with the same build). A failure names the step whose element \
         is no longer there.\n\n| test | goal | steps |\n|---|---|---|\n"
    );
    for t in tests {
        index.push_str(&format!(
            "| `{}` | {} | {} |\n",
            t.file.trim_start_matches("tests/"),
            super::findings::one_line(&t.goal).replace('|', "\\|"),
            t.steps
        ));
    }
    index
}

/// `Add a note titled "Milk"` → `add-a-note-titled-milk` (at most 40 bytes).
fn goal_slug(goal: &str) -> String {
    let words: Vec<String> = goal
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let mut out = String::new();
    for w in words {
        if out.len() + w.len() + 1 > 40 {
            break;
        }
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&w);
    }
    if out.is_empty() { "task".into() } else { out }
}

/// The agent's selector script without its own header (which names its run folder
/// and how to replay it from there), each line of code marked with its step
/// (`// step N`), so a failure under `codeact exec` names the step that diverged.
fn steps_marked(selector_script: &str) -> String {
    let body = selector_script.trim_start();
    let body = match body.find("\n\n") {
        Some(end) if body[..end].lines().all(|l| l.starts_with("//")) => &body[end + 2..],
        _ => body,
    };
    let mut out = String::new();
    let mut step: Option<String> = None;
    let mut in_text = false;
    for line in body.lines() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("// Step ") {
            step = rest.split(':').next().map(str::to_string);
        }
        // A line inside a multi-line backtick string is left as it is.
        let backticks = line.matches('`').count();
        let code = !trimmed.is_empty() && !trimmed.starts_with("//") && !in_text && backticks == 0;
        if backticks % 2 == 1 {
            in_text = !in_text;
        }
        out.push_str(line);
        if let (true, Some(n)) = (code && !line.contains("//"), &step) {
            out.push_str(&format!(" // step {n}"));
        }
        out.push('\n');
    }
    out
}

/// A completed task (`--strategy llm`) as a test: the app started as the task
/// started (clean), then the agent's run as its selector script — each step's
/// code, and the assertions its observed effects justify — so `codeact exec`
/// replays it without a model. Returns its file name and text.
pub fn task_test(n: usize, app: &str, goal: &str, clean: bool, selector_script: &str) -> (String, String) {
    let file = format!("tests/{n:02}-{}.rhai", goal_slug(goal));
    let mut s = comment(&format!("codeact explore (llm) did this task in {app}: {}", super::findings::one_line(goal)));
    s.push('\n');
    s.push_str(&tags_comment(&["explore", app, "task"]));
    s.push('\n');
    s.push_str(&format!("{};\nwait(500);\n\n", super::screen::start_line(app, clean)));
    s.push_str(&steps_marked(selector_script));
    (file, s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::screen::{Candidate, Kind};

    #[test]
    fn each_activity_gets_the_shortest_way_and_its_checks() {
        let mut g = Graph::default();
        let tap = |k: u64, code: &str| Candidate {
            key: k,
            kind: Kind::Tap,
            code: code.into(),
            widget: k,
            label: code.into(),
        };
        let (a, _) = g.visit(1, "com.x.MainActivity", vec![], 0);
        let (b, _) = g.visit(2, "com.x.EditActivity", vec![], 1);
        g.start = Some(a);
        g.states[b].anchor = Some("#{id: \"com.x:id/save\"}".into());
        g.add_edge(a, &tap(5, "tap(#{id: \"com.x:id/add\"})"), b);
        let mut files = Vec::new();
        let none = |_: usize| Vec::new();
        let mut unchecked = |_: &str| None;
        let ways = Ways { lived: &none, check: &mut unchecked };
        let (tests, index) = suite(&g, "com.x", "systematic", true, ways, |name, bytes| {
            files.push((name.to_string(), String::from_utf8(bytes.to_vec()).unwrap()));
            true
        });
        assert_eq!(tests.len(), 2);
        assert_eq!(tests[1].file, "tests/02-edit-activity.rhai");
        let edit = &files[1].1;
        assert!(edit.contains("start_app(\"com.x\", #{clear: true});"), "{edit}");
        assert!(edit.contains("tap(#{id: \"com.x:id/add\"}); // step 1"), "{edit}");
        assert!(edit.contains("assert_visible(#{id: \"com.x:id/save\"});"), "{edit}");
        assert!(edit.contains("if phone_state.activity != \"com.x.EditActivity\""), "{edit}");
        assert!(index.contains("| `02-edit-activity.rhai` | reach com.x.EditActivity | 1 |"), "{index}");

        // Checked on the phone: the shortest way fails, the way the walk took passes.
        let lived = |state: usize| match state == b {
            true => vec![vec![
                ("tap(\"fill\")".to_string(), "fill".to_string()),
                ("tap(#{id: \"com.x:id/add\"})".into(), "add".into()),
            ]],
            false => Vec::new(),
        };
        let mut check = |text: &str| Some(text.contains("tap(\"fill\")") || !text.contains("EditActivity"));
        files.clear();
        let ways = Ways { lived: &lived, check: &mut check };
        let (tests, _) = suite(&g, "com.x", "systematic", true, ways, |name, bytes| {
            files.push((name.to_string(), String::from_utf8(bytes.to_vec()).unwrap()));
            true
        });
        assert_eq!(tests[1].steps, 2, "the way the walk took");
        assert!(files[1].1.contains("tap(\"fill\"); // step 1: fill"), "{}", files[1].1);
        // Neither passes: no test, and the index says so.
        let mut never = |text: &str| Some(!text.contains("EditActivity"));
        let ways = Ways { lived: &lived, check: &mut never };
        let (tests, index) = suite(&g, "com.x", "systematic", true, ways, |_, _| true);
        assert_eq!(tests.len(), 1);
        assert!(index.contains("no way found replays") && index.contains("com.x.EditActivity"), "{index}");
    }

    #[test]
    fn a_task_becomes_a_test_that_starts_as_the_task_did() {
        let script = "// codeact run \"x\"\n// Replay from: codeact exec runs/a/script.selectors.rhai\n\n\
            // Step 1: open it\ntap(\"a\");\nlet t = `two\nlines`;\n\n// Step 2: check\nrefresh();\n\
            if x { complete(false, \"no\"); } // kept\ncomplete(true, \"ok\");\n";
        let (file, text) = task_test(3, "com.x", "Add a note titled \"Milk\" | now\nplease", true, script);
        assert_eq!(file, "tests/03-add-a-note-titled-milk-now-please.rhai");
        assert!(
            text.starts_with(
                "// codeact explore (llm) did this task in com.x: Add a note titled \"Milk\" | now please\n"
            )
        );
        assert!(!text.contains("runs/a"), "the agent's header is not the test's: {text}");
        assert!(
            text.contains(
                "start_app(\"com.x\", #{clear: true});\nwait(500);\n\n// Step 1: open it\ntap(\"a\"); // step 1\n"
            ),
            "{text}"
        );
        assert!(text.contains("let t = `two\nlines`;\n"), "inside a string nothing is added: {text}");
        assert!(
            text.contains(
                "refresh(); // step 2\nif x { complete(false, \"no\"); } // kept\ncomplete(true, \"ok\"); // step 2\n"
            ),
            "{text}"
        );
        assert_eq!(goal_slug("¿?"), "task");
    }
}
