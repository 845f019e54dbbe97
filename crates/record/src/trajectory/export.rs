//! A finished run as scripts that replay it without an LLM, written from its
//! [`StepRecord`]s: `script.rhai` (the snippets that ran, in order, thoughts as
//! comments, a `refresh()` between steps as the agent observed between them) and
//! `script.selectors.rhai` (the same with every literal `tap_by_index(i)` /
//! `long_press_by_index(i)` rewritten as the selector of the element it hit, so the
//! replay survives a layout change, and every `#{ai: ...}` selector replaced by what
//! answered in the run — the element's selector, the picture, a canvas tap's point —
//! so the replay asks no model). A successful run's scripts also assert what
//! it left changed (`effect_checks.rs`), so a replay cannot pass by accident.
//! This module writes text; it runs nothing.

use regex::Regex;

use super::effect_checks::{EffectChecks, split_at_completion};
use super::step::{StepOutcome, StepRecord};
use codeact_engine::emit::rhai::terminated;
use codeact_engine::sandbox::Action;
use codeact_tools::{Replay, index_tools, replay_of};

fn comment(text: &str, out: &mut String) {
    out.push_str(&codeact_engine::emit::rhai::comment_lines(text));
}

/// The call a replay makes for `action` when the tool acted on an index and the
/// element it hit has a recorded selector (`tap_by_index(3)` → `tap(#{id: "send"})`),
/// or its selector asked the locator model and something else can stand in.
fn as_selector_call(action: &Action) -> Option<String> {
    let asked_model = action.args.first().is_some_and(|s| s.starts_with("#{") && s.contains("\"ai\":"));
    if let Some(with) = action.capture.located.as_ref().and_then(|l| l.replay.as_deref()).filter(|_| asked_model) {
        return Some(format!("{}({with});", action.tool));
    }
    let Some(Replay::IndexAsSelector(by)) = replay_of(&action.tool, action.args.len()) else { return None };
    Some(format!("{by}({});", action.capture.target.as_deref()?))
}

/// Replaces literal index taps with the selectors recorded for them, in order.
fn with_selectors(code: &str, targets: &[(&str, i64, Option<&str>)]) -> String {
    let tools: Vec<(&str, &str)> = index_tools().collect();
    let names: Vec<&str> = tools.iter().map(|(name, _)| *name).collect();
    let Ok(pattern) = Regex::new(&format!(r"\b({})\s*\(\s*(\d+)\s*\)", names.join("|"))) else {
        return code.to_string();
    };
    let mut used = vec![false; targets.len()];
    let literals = codeact_base::literals::literal_spans(code);
    pattern
        .replace_all(code, |caps: &regex::Captures| {
            let whole = caps.get(0).map_or(0..0, |m| m.range());
            if codeact_base::literals::inside_spans(&literals, whole.start, whole.end) {
                // Inside a string or a comment: text, not a call.
                return caps[0].to_string();
            }
            let tool = &caps[1];
            let index: i64 = caps[2].parse().unwrap_or(-1);
            let found = targets
                .iter()
                .enumerate()
                .position(|(i, (t, n, sel))| !used[i] && *t == tool && *n == index && sel.is_some());
            match found.and_then(|i| Some((i, targets[i].2?))) {
                Some((i, selector)) => {
                    used[i] = true;
                    let call = tools.iter().find(|(name, _)| *name == tool).map_or(tool, |(_, by)| *by);
                    format!("{call}({selector})")
                }
                None => caps[0].to_string(),
            }
        })
        .into_owned()
}

/// Replaces the calls whose selector could ask the locator model (a literal map
/// with an `ai` key) with what answered in the recorded run — the element's own
/// selector, the picture, or a canvas tap's point — so a replay asks no model. Only
/// when the code's calls and the recorded ones pair up one to one (a call in a loop
/// records many): otherwise the code is left as it is.
fn with_located(code: &str, located: &[(&str, Option<&str>)]) -> String {
    let Ok(pattern) = Regex::new(r#"\b([a-z_]+)\s*\(\s*(#\{[^{}]*(?:\bai|"ai")\s*:[^{}]*\})\s*\)"#) else {
        return code.to_string();
    };
    let literals = codeact_base::literals::literal_spans(code);
    let in_code = |m: &regex::Match| !codeact_base::literals::inside_spans(&literals, m.start(), m.end());
    let calls: Vec<&str> = pattern
        .captures_iter(code)
        .filter(|c| c.get(0).is_some_and(|m| in_code(&m)))
        .filter_map(|c| c.get(1))
        .map(|m| m.as_str())
        .collect();
    let pairs = calls.len() == located.len() && calls.iter().zip(located).all(|(call, (tool, _))| call == tool);
    if !pairs || located.iter().all(|(_, with)| with.is_none()) {
        return code.to_string();
    }
    let mut next = 0;
    pattern
        .replace_all(code, |caps: &regex::Captures| {
            if !caps.get(0).is_some_and(|m| in_code(&m)) {
                return caps[0].to_string();
            }
            let stand_in = located.get(next).and_then(|(_, with)| *with);
            next += 1;
            match stand_in {
                Some(with) => format!("{}({with})", &caps[1]),
                None => caps[0].to_string(),
            }
        })
        .into_owned()
}

/// The position of the step whose own completion ended the run successfully.
fn completing_step(steps: &[StepRecord]) -> Option<usize> {
    steps.iter().rposition(|s| {
        !s.completion_held
            && s.ran().is_some_and(|r| r.error.is_none() && r.completion.as_ref().is_some_and(|c| c.success))
    })
}

/// The completing step's code with the checks of where the run ended run just
/// before its completion (or, when the completion is nested in a block, the code
/// as it is, saying the end is not checked).
fn with_end_checks(code: &str, checks: &EffectChecks, out: &mut String) {
    match split_at_completion(code) {
        Some((before, completion)) => {
            if !before.trim().is_empty() {
                out.push_str(before.trim_end());
                out.push('\n');
            }
            out.push_str("// The replay must end where the recorded run did:\n");
            out.push_str(checks.at_end());
            out.push_str(completion.trim_end());
            out.push('\n');
        }
        None => {
            out.push_str(code.trim_end());
            out.push_str("\n// (where the run ended is not checked: its completion is inside a block)\n");
        }
    }
}

fn render(header: &str, steps: &[StepRecord], selectors: bool, failed: Option<&str>) -> String {
    let mut out = String::new();
    comment(header, &mut out);
    let mut ran_before = false;
    let completing = completing_step(steps).filter(|_| failed.is_none());
    let checks = match failed {
        None => EffectChecks::of(steps, completing),
        Some(_) => EffectChecks::default(),
    };
    let mut node: Option<&str> = None;
    // A function a later step defines again goes by a new name from there on.
    let mut redefinitions = super::redefined::Redefinitions::default();
    for (index, step) in steps.iter().enumerate() {
        out.push('\n');
        // A `--strategy tree` run keeps its tree: a section per node, as it went.
        if let Some(this) = step.node.as_deref().filter(|n| Some(*n) != node) {
            comment(&format!("── node {this}"), &mut out);
        }
        node = step.node.as_deref().or(node);
        let thought = step.thought.trim_start();
        let thought = thought.strip_prefix("Thought:").map_or(thought, str::trim_start);
        comment(&format!("Step {}: {thought}", step.number), &mut out);
        let Some(code) = &step.code else {
            out.push_str("// (no code in this step)\n");
            continue;
        };
        let code = if selectors {
            with_located(&with_selectors(code, &step.index_targets()), &step.located_targets())
        } else {
            code.clone()
        };
        let code = match &step.outcome {
            StepOutcome::Ran(result) if result.error.is_none() => redefinitions.step(&code),
            _ => code,
        };
        let error = match &step.outcome {
            StepOutcome::NotParsed(why) => {
                comment(&format!("Not run: {why}"), &mut out);
                comment(&code, &mut out);
                continue;
            }
            StepOutcome::Ran(result) => result.error.as_ref(),
            StepOutcome::NoCode => None,
        };
        // The agent observed the screen before each step: indices belong to that.
        if ran_before {
            out.push_str("refresh();\n");
        }
        ran_before = true;
        match error {
            None if step.completion_held => {
                // The run went on past this completion; the replay must too.
                out.push_str(&without_completion(code.trim_end()));
                out.push('\n');
                out.push_str(&checks.after(index));
            }
            None if Some(index) == completing && !checks.at_end().is_empty() => {
                with_end_checks(&code, &checks, &mut out);
            }
            None => {
                out.push_str(&terminated(code.trim_end()));
                out.push('\n');
                out.push_str(&checks.after(index));
            }
            Some(error) => {
                // The code stopped half-way; replaying it would stop there too. What
                // it had done to the device by then is replayed instead.
                comment(&format!("This step failed in the recorded run: {error}"), &mut out);
                out.push_str("// Its code:\n");
                comment(&code, &mut out);
                let done = step.done_before_failing();
                if !done.is_empty() {
                    out.push_str("// What it did before failing:\n");
                }
                for a in done {
                    let call = as_selector_call(a).filter(|_| selectors).unwrap_or_else(|| repeated_call(a));
                    out.push_str(&call);
                    out.push('\n');
                }
            }
        }
    }
    // A replay of a run that did not succeed must not pass: it fails the way the
    // run ended (a completion the run made itself ends the replay before this).
    if let Some(reason) = failed {
        out.push('\n');
        let reason = format!("the recorded run did not succeed: {reason}");
        out.push_str(&format!("complete(false, {});\n", codeact_engine::emit::rhai::string(&reason)));
    }
    out
}

/// A recorded call as a statement that repeats it; a call whose arguments were too
/// long to keep whole fails the replay there, saying so, instead of repeating
/// something else.
fn repeated_call(a: &Action) -> String {
    if a.args_whole() {
        return format!("{}({});", a.tool, a.args.join(", "));
    }
    let why = format!("{}(...) cannot be replayed: its arguments were too long to record whole", a.tool);
    format!("throw {};", codeact_engine::emit::rhai::string(&why))
}

/// `code` with its `complete(...)` statements turned into comments (the gate held
/// them in the recorded run).
fn without_completion(code: &str) -> String {
    code.lines()
        .map(|line| {
            if line.trim_start().starts_with("complete(") {
                format!("// {} // held by the completion gate; the run went on", line.trim())
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// What a replay of `step` runs, on its own: the code with index taps as selectors
/// and a completion the run went past as a comment; for a step that failed, the
/// actions it had done before failing; `None` for a step that ran nothing.
pub fn replay_code(step: &StepRecord) -> Option<String> {
    let code = step.code.as_ref()?;
    let code = with_located(&with_selectors(code, &step.index_targets()), &step.located_targets());
    match &step.outcome {
        StepOutcome::NotParsed(_) | StepOutcome::NoCode => None,
        StepOutcome::Ran(result) if result.error.is_none() => {
            Some(if step.completion_held { without_completion(code.trim_end()) } else { code.trim_end().to_string() })
        }
        StepOutcome::Ran(_) => {
            let done: Vec<String> = step
                .done_before_failing()
                .into_iter()
                .map(|a| as_selector_call(a).unwrap_or_else(|| repeated_call(a)))
                .collect();
            (!done.is_empty()).then(|| done.join("\n"))
        }
    }
}

/// The selector an element the step acted on must match for a replay of it to
/// make sense: the first acting call's target (an index tap's recorded selector,
/// or a selector call's own argument).
/// The anchor must be on the screen the step started on: a step that changed the
/// screen before it aimed at anything (it opened an app, went home, tapped a
/// point) has none — its app in front is its precondition.
pub fn replay_anchor(step: &StepRecord) -> Option<String> {
    let ran = step.ran()?;
    for a in ran.actions.iter().filter(|a| a.succeeded() && !a.done_by_watcher() && a.args_whole()) {
        if let Some(target) = &a.capture.target {
            return Some(target.clone());
        }
        let selector_tool = replay_of(&a.tool, a.args.len()) == Some(Replay::BySelector);
        if let Some(first) = a.args.first()
            && selector_tool
            && a.args.len() <= 2
            && (first.starts_with("#{") || first.starts_with('"'))
        {
            return Some(first.clone());
        }
        let changed_the_screen = a.capture.effect.as_deref().is_some_and(|e| !e.ends_with("no visible change"));
        if changed_the_screen {
            return None;
        }
    }
    None
}

/// `script.rhai`: the run's snippets as they ran; `failed` is why the run did not
/// succeed, when it did not (the script then ends in that failure).
pub fn script(header: &str, steps: &[StepRecord], failed: Option<&str>) -> String {
    render(header, steps, false, failed)
}

/// `script.selectors.rhai`: the same, with index taps turned into selectors.
pub fn selector_script(header: &str, steps: &[StepRecord], failed: Option<&str>) -> String {
    render(header, steps, true, failed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trajectory::StepTiming;
    use codeact_engine::sandbox::{Action, Capture, ErrorKind, RunError, RunResult};

    fn step(number: usize, thought: &str, code: Option<&str>, outcome: StepOutcome) -> StepRecord {
        StepRecord {
            number,
            reply: String::new(),
            thought: thought.into(),
            code: code.map(str::to_string),
            outcome,
            usage: Default::default(),
            timing: StepTiming::default(),
            repeated: false,
            notes: Vec::new(),
            completion_held: false,
            seen: None,
            node: None,
            calls: Vec::new(),
        }
    }

    #[test]
    fn a_held_completion_does_not_end_the_replay() {
        let ok = || StepOutcome::Ran(RunResult::default());
        let mut held = step(1, "batch", Some("tap(\"Save\");\ncomplete(true, \"done\");"), ok());
        held.completion_held = true;
        let next = step(2, "confirm", Some("complete(true, \"done\");"), ok());
        let out = script("h", &[held, next], None);
        assert!(out.contains("tap(\"Save\");\n// complete(true, \"done\"); // held by the completion gate"), "{out}");
        assert!(out.ends_with("refresh();\ncomplete(true, \"done\");\n"), "{out}");
    }

    #[test]
    fn a_tree_run_keeps_a_section_per_node_as_it_went() {
        let ok = || StepOutcome::Ran(RunResult::default());
        let in_node =
            |number, node: &str| StepRecord { node: Some(node.into()), ..step(number, "t", Some("wait(1);"), ok()) };
        let steps =
            [in_node(1, "1.1 Open Settings"), in_node(2, "1.2 Turn off\nWi-Fi"), in_node(3, "1.2 Turn off\nWi-Fi")];
        let out = script("h", &steps, None);
        let sections: Vec<&str> = out.lines().filter(|l| l.starts_with("// ── node") || l == &"// Wi-Fi").collect();
        assert_eq!(sections, ["// ── node 1.1 Open Settings", "// ── node 1.2 Turn off", "// Wi-Fi"], "{out}");
    }

    fn tap(index: i64, target: &str, result: &str) -> Action {
        Action {
            tool: "tap_by_index".into(),
            args: vec![index.to_string()],
            result: result.into(),
            failure: (result != "ok").then_some(codeact_engine::sandbox::FailureKind::Device),
            started_ms: 0.0,
            duration_ms: 0.0,
            capture: Capture { target: Some(target.into()), ..Capture::default() },
        }
    }

    fn failed(message: &str, actions: Vec<Action>) -> StepOutcome {
        StepOutcome::Ran(RunResult {
            error: Some(RunError {
                message: message.into(),
                line: None,
                column: None,
                source_line: None,
                kind: ErrorKind::Script,
            }),
            actions,
            ..RunResult::default()
        })
    }

    #[test]
    fn index_taps_become_selectors_in_order_and_failed_steps_are_kept_safe() {
        let ok = StepOutcome::Ran(RunResult::default());
        let steps = [
            step(1, "Open settings.", Some("start_app(\"s\");\n"), ok),
            step(
                2,
                "Tap Wi-Fi twice.",
                Some("tap_by_index(4);\ntap_by_index( 4 );\nlet i = 2; tap_by_index(i);\n"),
                failed(
                    "boom",
                    vec![
                        tap(4, "#{text: \"Wi-Fi\"}", "ok"),
                        tap(4, "#{id: \"x\"}", "ok"),
                        tap(2, "#{text: \"B\"}", "gone"),
                    ],
                ),
            ),
            step(
                5,
                "A failing step that defines things.",
                Some("fn helper() { 1 }\nlet kept = 2;\nno_such_fn();\n"),
                failed("Function not found: no_such_fn", Vec::new()),
            ),
            step(
                3,
                "Oops.",
                Some("let = ;"),
                StepOutcome::NotParsed(RunError {
                    message: "syntax error".into(),
                    line: None,
                    column: None,
                    source_line: None,
                    kind: ErrorKind::Syntax,
                }),
            ),
            step(4, "Done.", None, StepOutcome::NoCode),
        ];
        let plain = script("codeact run: \"x\"", &steps, None);
        assert!(
            plain.starts_with("// codeact run: \"x\"\n\n// Step 1: Open settings.\nstart_app(\"s\");\n"),
            "{plain}"
        );
        assert!(
            plain.contains(
                "refresh();\n// This step failed in the recorded run: boom\n// Its code:\n// tap_by_index(4);"
            ),
            "{plain}"
        );
        assert!(plain.contains("// What it did before failing:\ntap_by_index(4);\ntap_by_index(4);\n"), "{plain}");
        assert!(!plain.contains("tap_by_index(2);\n"), "a failed call is not replayed: {plain}");
        assert!(plain.contains("// Not run: syntax error\n// let = ;"), "{plain}");
        let sel = selector_script("h", &steps, None);
        assert!(sel.contains("// What it did before failing:\ntap(#{text: \"Wi-Fi\"});\n"), "{sel}");
        assert!(sel.contains("// let i = 2; tap_by_index(i);"), "a variable index stays as it is: {sel}");
        let engine = rhai::Engine::new_raw();
        assert!(engine.compile(&plain).is_ok() && engine.compile(&sel).is_ok(), "both parse");
        // A run that did not succeed: its replay ends in that failure.
        let failed = script("h", &steps, Some("gave up: \"Wi-Fi\" never\nturned off"));
        assert!(
            failed.ends_with(
                "\ncomplete(false, \"the recorded run did not succeed: gave up: \\\"Wi-Fi\\\" never\\nturned off\");\n"
            ),
            "{failed}"
        );
        assert!(engine.compile(&failed).is_ok(), "{failed}");
    }

    #[test]
    fn a_selector_that_asked_the_model_is_replayed_by_what_answered() {
        let asked = |tool: &str, arg: &str, way: &str, replay: Option<&str>| Action {
            tool: tool.into(),
            args: vec![arg.into()],
            result: "ok".into(),
            failure: None,
            started_ms: 0.0,
            duration_ms: 0.0,
            capture: Capture {
                located: Some(codeact_engine::sandbox::Located { way: way.into(), replay: replay.map(str::to_string) }),
                ..Capture::default()
            },
        };
        let code = "tap(#{ai: \"the send button\"});\nwait_for(#{\"text\": \"Sent\", ai: \"a sent tick\"});\ntap(#{ai: \"the star\"});\ncomplete(true, \"sent\");";
        let actions = vec![
            asked("tap", "#{\"ai\": \"the send button\"}", "model", Some("#{id: \"send\"}")),
            asked("wait_for", "#{\"ai\": \"a sent tick\", \"text\": \"Sent\"}", "tree", Some("#{text: \"Sent\"}")),
            asked("tap", "#{\"ai\": \"the star\"}", "model", Some("0.5000, 0.2500")),
        ];
        let run = StepOutcome::Ran(RunResult { actions, ..RunResult::default() });
        let steps = [step(1, "send", Some(code), run)];
        let sel = selector_script("h", &steps, None);
        assert!(sel.contains("tap(#{id: \"send\"});\nwait_for(#{text: \"Sent\"});\ntap(0.5000, 0.2500);"), "{sel}");
        assert!(!sel.contains("ai:"), "{sel}");
        // The plain script keeps what the run ran.
        assert!(script("h", &steps, None).contains("tap(#{ai: \"the send button\"})"));
        // A call the record does not pair with (a loop) is left as it is.
        let looped = "for i in 0..2 { tap(#{ai: \"the star\"}); }";
        let two = vec![
            asked("tap", "#{\"ai\": \"the star\"}", "model", Some("0.5000, 0.2500")),
            asked("tap", "#{\"ai\": \"the star\"}", "model", Some("0.5000, 0.2500")),
        ];
        let steps =
            [step(1, "loop", Some(looped), StepOutcome::Ran(RunResult { actions: two, ..RunResult::default() }))];
        assert!(selector_script("h", &steps, None).contains(looped));
    }
}
