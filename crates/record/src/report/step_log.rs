//! A run directory's steps as plain text, for the places that take text rather
//! than a page (a JUnit test case's `system-out`): per step its times and tokens,
//! then each action with its result and effect, errors and notes. Built from the
//! same [`RunView`] as `report.html`. Not HTML, and nothing is escaped here: the
//! writer of the format that carries the text escapes it.

use std::fmt::Write as _;

use super::model::RunView;

/// The steps of `view`, a line for each step and one for each thing in it.
pub fn step_log(view: &RunView) -> String {
    let mut log = String::new();
    for step in &view.steps {
        let _ = write!(log, "step {}", step.number);
        if step.wall_ms > 0.0 {
            let _ = write!(log, ": {:.2} s (", step.wall_ms / 1000.0);
            // A script's step has no LLM time to speak of.
            if step.llm_ms > 0.0 {
                let _ = write!(log, "LLM {:.2} s, ", step.llm_ms / 1000.0);
            }
            let _ = write!(log, "device {:.2} s)", step.device_ms / 1000.0);
        }
        if step.prompt_tokens + step.completion_tokens > 0 {
            let _ = write!(log, ", tokens {} in / {} out", step.prompt_tokens, step.completion_tokens);
        }
        log.push('\n');
        for action in &step.actions {
            let _ = write!(log, "  {}({}) -> {}", action.tool, action.args.join(", "), one_line(&action.result));
            if let Some(effect) = &action.effect {
                let _ = write!(log, "; {}", one_line(effect));
            }
            log.push('\n');
        }
        for error in &step.errors {
            let _ = writeln!(log, "  error: {}", one_line(error));
        }
        for note in &step.notes {
            let _ = writeln!(log, "  {}", one_line(note));
        }
    }
    log
}

/// Text on one line (a multi-line result or error would break the layout).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::{ActionView, StepView};

    #[test]
    fn each_step_lists_its_times_tokens_actions_errors_and_notes() {
        let view = RunView {
            steps: vec![
                StepView {
                    number: 1,
                    wall_ms: 1500.0,
                    llm_ms: 1200.0,
                    device_ms: 250.0,
                    prompt_tokens: 2016,
                    completion_tokens: 80,
                    actions: vec![ActionView {
                        tool: "tap".into(),
                        args: vec!["#{text: \"Wi-Fi\"}".into()],
                        result: "ok".into(),
                        effect: Some("opened .WifiSettings".into()),
                        ..ActionView::default()
                    }],
                    ..StepView::default()
                },
                StepView {
                    number: 2,
                    wall_ms: 40.0,
                    device_ms: 30.0,
                    errors: vec!["no element matches\n#{text: \"Off\"}".into()],
                    notes: vec!["complete(false): gave up".into()],
                    ..StepView::default()
                },
            ],
            ..RunView::default()
        };
        assert_eq!(
            step_log(&view),
            "step 1: 1.50 s (LLM 1.20 s, device 0.25 s), tokens 2016 in / 80 out\n\
             \x20 tap(#{text: \"Wi-Fi\"}) -> ok; opened .WifiSettings\n\
             step 2: 0.04 s (device 0.03 s)\n\
             \x20 error: no element matches #{text: \"Off\"}\n\
             \x20 complete(false): gave up\n"
        );
    }
}
