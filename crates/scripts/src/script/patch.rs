//! What `codeact exec --heal` writes when the model healed a script: the original
//! text with only the statements that diverged replaced by what the model ran in
//! their place (comments, blank lines and every other statement as they were), and
//! the unified diff between the two. Read from the healing run's own events: which
//! script step each replay was, where a step diverged, and the code the model ran
//! until the replay resumed. This module writes text; it runs nothing.

use std::collections::BTreeMap;

use super::steps::ScriptStep;
use codeact_record::trajectory::Event;
use codeact_tools::{Access, access_of};

/// One step of the healing run, as its events tell it.
#[derive(Default)]
struct RunStep {
    code: Option<String>,
    /// The script step it replayed (1-based), when it was a replay.
    replayed: Option<usize>,
    erred: bool,
    /// The acting calls that succeeded (a failed replay's are kept: they were done).
    done: Vec<String>,
}

/// The healed text of `original` (split into `steps`) after the run whose events
/// are `events`; `None` when a diverged step cannot be found in the text as written
/// (then nothing is patched).
pub fn healed_text(original: &str, steps: &[ScriptStep], events: &[Event<'_>]) -> Option<String> {
    let mut run: BTreeMap<usize, RunStep> = BTreeMap::new();
    // (script step that diverged, the run step in hand when it did)
    let mut diverged: Vec<(usize, usize)> = Vec::new();
    for event in events {
        match event {
            Event::Code { step, code } => run.entry(*step).or_default().code = Some(code.to_string()),
            Event::Replayed { step, of } => run.entry(*step).or_default().replayed = Some(*of),
            Event::Error { step, .. } | Event::ParseError { step, .. } => run.entry(*step).or_default().erred = true,
            Event::Action { step, tool, args, failure: None, .. } if access_of(tool) == Some(Access::Acts) => {
                // Arguments too long to keep whole are no call to write again.
                let whole = !args.iter().any(|a| {
                    codeact_base::clip::was_clipped(a) || a.starts_with(codeact_engine::sandbox::ARGS_NOT_KEPT)
                });
                let line = match whole {
                    true => format!("{tool}({});", args.join(", ")),
                    false => {
                        let why =
                            format!("{tool}(...) cannot be replayed: its arguments were too long to record whole");
                        format!("throw {};", codeact_engine::emit::rhai::string(&why))
                    }
                };
                run.entry(*step).or_default().done.push(line);
            }
            Event::Diverged { step, of, .. } => diverged.push((*of, *step)),
            _ => {}
        }
    }
    let mut replacements: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for (of, after) in diverged {
        let mut lines = Vec::new();
        // A replay that erred did part of its work before the error: kept.
        if let Some(failed) = run.get(&after).filter(|s| s.replayed == Some(of) && s.erred) {
            lines.extend(failed.done.iter().cloned());
        }
        for (_, step) in run.range(after + 1..) {
            if step.replayed.is_some() {
                break;
            }
            match (&step.code, step.erred) {
                (Some(code), false) => lines.push(without_completion(code)),
                (Some(_), true) => lines.extend(step.done.iter().cloned()),
                (None, _) => {}
            }
        }
        replacements.insert(of, lines);
    }
    let mut out = String::with_capacity(original.len());
    let mut cursor = 0;
    for (index, step) in steps.iter().enumerate() {
        let at = cursor + original[cursor..].find(&step.code)?;
        out.push_str(&original[cursor..at]);
        match replacements.get(&(index + 1)) {
            Some(lines) => out.push_str(&indented(&lines.join("\n"), line_indent(original, at))),
            None => out.push_str(&step.code),
        }
        cursor = at + step.code.len();
    }
    out.push_str(&original[cursor..]);
    Some(out)
}

/// The unified diff from `original` to `healed`, with the files' names.
pub fn unified_diff(original: &str, healed: &str, from: &str, to: &str) -> String {
    similar::TextDiff::from_lines(original, healed).unified_diff().context_radius(3).header(from, to).to_string()
}

/// `code` without its `complete(...)` lines: a script ends by running to its end,
/// and the model's completion stood for the task, not for the statement it healed.
fn without_completion(code: &str) -> String {
    let kept: Vec<&str> = code.lines().filter(|l| !l.trim_start().starts_with("complete(")).collect();
    kept.join("\n").trim().to_string()
}

/// The indentation of the line `at` is on.
fn line_indent(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..at];
    &line[..line.len() - line.trim_start().len()]
}

/// `code` with every line after the first indented by `indent` (the first goes
/// where the statement it replaces began).
fn indented(code: &str, indent: &str) -> String {
    let mut lines = code.lines();
    let mut out = lines.next().unwrap_or("").to_string();
    for line in lines {
        out.push('\n');
        if !line.is_empty() {
            out.push_str(indent);
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    #[test]
    fn only_the_diverged_statement_is_replaced_and_the_rest_is_kept() {
        let original = "// Turn Wi-Fi off.\nstart_app(\"com.android.settings\");\n\n// The switch\n    tap(#{id: \"wifi\"});\nprint(\"done\");\n";
        let steps = super::super::steps::split(original);
        assert_eq!(steps.len(), 3);
        let events = vec![
            Event::Code { step: 1, code: Cow::Borrowed("start_app(\"com.android.settings\");") },
            Event::Replayed { step: 1, of: 1 },
            Event::Diverged { step: 1, of: 2, why: Cow::Borrowed("nothing on screen matches") },
            Event::Code { step: 2, code: Cow::Borrowed("tap(#{id: \"wifi_switch\"});\ncomplete(true, \"off\");") },
            Event::Code { step: 3, code: Cow::Borrowed("print(\"done\");") },
            Event::Replayed { step: 3, of: 3 },
        ];
        let healed = healed_text(original, &steps, &events).expect("patched");
        assert_eq!(
            healed,
            "// Turn Wi-Fi off.\nstart_app(\"com.android.settings\");\n\n// The switch\n    tap(#{id: \"wifi_switch\"});\nprint(\"done\");\n"
        );
        let diff = unified_diff(original, &healed, "a.rhai", "a.healed.rhai");
        assert!(diff.contains("-    tap(#{id: \"wifi\"});\n+    tap(#{id: \"wifi_switch\"});"), "{diff}");
        assert_eq!(diff.lines().filter(|l| l.starts_with('+') && !l.starts_with("+++")).count(), 1, "{diff}");
    }
}
