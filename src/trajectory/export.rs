//! A finished run as scripts that replay it without an LLM: `script.rhai` (the
//! snippets that ran, in order, thoughts as comments, a `refresh()` between steps as
//! the agent observed between them) and `script.selectors.rhai` (the same with every
//! literal `tap_by_index(i)` / `long_press_by_index(i)` rewritten as the selector of
//! the element it hit, so the replay survives a layout change). This module writes
//! text; it runs nothing.

use regex::Regex;

/// One agent step, as the export needs it.
#[derive(Debug, Clone, Default)]
pub struct Step {
    pub number: usize,
    pub thought: String,
    /// The code the model wrote (`None` when it wrote none).
    pub code: Option<String>,
    /// Why the code did not run (a syntax error), if it did not.
    pub not_run: Option<String>,
    /// The error the code ended with, if it ran and failed.
    pub error: Option<String>,
    /// Index-based actions in the order they ran: (tool, index, selector of the element).
    pub index_targets: Vec<(String, i64, Option<String>)>,
    /// What a failed step did to the device before it failed, in order.
    pub done: Vec<Done>,
}

/// One device action that succeeded, as a call a replay can make.
#[derive(Debug, Clone, Default)]
pub struct Done {
    pub tool: String,
    /// Arguments as Rhai literals.
    pub args: Vec<String>,
    /// For index taps: the selector of the element hit.
    pub target: Option<String>,
}

/// Tools that only read: a replay of a failed step leaves them out.
pub const READ_ONLY: &[&str] = &[
    "find",
    "find_all",
    "refresh",
    "screenshot",
    "memory",
    "assert_visible",
    "assert_not_visible",
    "wait_for",
    "wait_gone",
    "list_packages",
    "wait",
];

fn comment(text: &str, out: &mut String) {
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        out.push_str("// ");
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

/// Replaces literal index taps with the selectors recorded for them, in order.
fn with_selectors(code: &str, targets: &[(String, i64, Option<String>)]) -> String {
    let Ok(pattern) = Regex::new(r"\b(tap_by_index|long_press_by_index)\s*\(\s*(\d+)\s*\)") else {
        return code.to_string();
    };
    let mut used = vec![false; targets.len()];
    pattern
        .replace_all(code, |caps: &regex::Captures| {
            let tool = &caps[1];
            let index: i64 = caps[2].parse().unwrap_or(-1);
            let found = targets
                .iter()
                .enumerate()
                .position(|(i, (t, n, sel))| !used[i] && t == tool && *n == index && sel.is_some());
            match found {
                Some(i) => {
                    used[i] = true;
                    let selector = targets[i].2.as_deref().unwrap_or_default();
                    let call = if tool == "tap_by_index" { "tap" } else { "long_press" };
                    format!("{call}({selector})")
                }
                None => caps[0].to_string(),
            }
        })
        .into_owned()
}

fn render(header: &str, steps: &[Step], selectors: bool) -> String {
    let mut out = String::new();
    comment(header, &mut out);
    let mut ran_before = false;
    for step in steps {
        out.push('\n');
        let thought = step.thought.trim_start();
        let thought = thought.strip_prefix("Thought:").map_or(thought, str::trim_start);
        comment(&format!("Step {}: {thought}", step.number), &mut out);
        let Some(code) = &step.code else {
            out.push_str("// (no code in this step)\n");
            continue;
        };
        let code = if selectors { with_selectors(code, &step.index_targets) } else { code.clone() };
        if let Some(why) = &step.not_run {
            comment(&format!("Not run: {why}"), &mut out);
            comment(&code, &mut out);
            continue;
        }
        // The agent observed the screen before each step: indices belong to that.
        if ran_before {
            out.push_str("refresh();\n");
        }
        ran_before = true;
        match &step.error {
            None => {
                out.push_str(code.trim_end());
                out.push('\n');
            }
            Some(error) => {
                // The code stopped half-way; replaying it would stop there too. What
                // it had done to the device by then is replayed instead.
                comment(&format!("This step failed in the recorded run: {error}"), &mut out);
                out.push_str("// Its code:\n");
                comment(&code, &mut out);
                if !step.done.is_empty() {
                    out.push_str("// What it did before failing:\n");
                }
                for d in &step.done {
                    match (&d.target, selectors, d.tool.as_str()) {
                        (Some(sel), true, "tap_by_index") => out.push_str(&format!("tap({sel});\n")),
                        (Some(sel), true, "long_press_by_index") => out.push_str(&format!("long_press({sel});\n")),
                        _ => out.push_str(&format!("{}({});\n", d.tool, d.args.join(", "))),
                    }
                }
            }
        }
    }
    out
}

/// `script.rhai`: the run's snippets as they ran.
pub fn script(header: &str, steps: &[Step]) -> String {
    render(header, steps, false)
}

/// `script.selectors.rhai`: the same, with index taps turned into selectors.
pub fn selector_script(header: &str, steps: &[Step]) -> String {
    render(header, steps, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_taps_become_selectors_in_order_and_failed_steps_are_kept_safe() {
        let steps = [
            Step {
                number: 1,
                thought: "Open settings.".into(),
                code: Some("start_app(\"s\");\n".into()),
                ..Step::default()
            },
            Step {
                number: 2,
                thought: "Tap Wi-Fi twice.".into(),
                code: Some("tap_by_index(4);\ntap_by_index( 4 );\nlet i = 2; tap_by_index(i);\n".into()),
                index_targets: vec![
                    ("tap_by_index".into(), 4, Some("#{text: \"Wi-Fi\"}".into())),
                    ("tap_by_index".into(), 4, Some("#{id: \"x\"}".into())),
                    ("tap_by_index".into(), 2, Some("#{text: \"B\"}".into())),
                ],
                error: Some("boom".into()),
                done: vec![Done {
                    tool: "tap_by_index".into(),
                    args: vec!["4".into()],
                    target: Some("#{text: \"Wi-Fi\"}".into()),
                }],
                ..Step::default()
            },
            Step {
                number: 5,
                thought: "A failing step that defines things.".into(),
                code: Some("fn helper() { 1 }\nlet kept = 2;\nno_such_fn();\n".into()),
                error: Some("Function not found: no_such_fn".into()),
                ..Step::default()
            },
            Step {
                number: 3,
                thought: "Oops.".into(),
                code: Some("let = ;".into()),
                not_run: Some("syntax error".into()),
                ..Step::default()
            },
            Step { number: 4, thought: "Done.".into(), code: None, ..Step::default() },
        ];
        let plain = script("codeact run: \"x\"", &steps);
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
        assert!(plain.contains("// What it did before failing:\ntap_by_index(4);\n"), "{plain}");
        assert!(plain.contains("// Not run: syntax error\n// let = ;"), "{plain}");
        let sel = selector_script("h", &steps);
        assert!(sel.contains("// What it did before failing:\ntap(#{text: \"Wi-Fi\"});\n"), "{sel}");
        assert!(sel.contains("// let i = 2; tap_by_index(i);"), "a variable index stays as it is: {sel}");
        let engine = rhai::Engine::new_raw();
        assert!(engine.compile(&plain).is_ok() && engine.compile(&sel).is_ok(), "both parse");
    }
}
