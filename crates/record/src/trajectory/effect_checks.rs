//! What an exported replay asserts, so that it cannot pass by accident: after the
//! step that last flipped a toggle, that the toggle is in the state the run left
//! it (when it was still on screen as that step ended); and at the end, before the
//! run's own completion, that the app and activity in front are the ones the run
//! ended on. Built from the run's step records ([`RunEffects`] and what each action
//! recorded); writes Rhai source, runs nothing.

use super::effects::{RunEffects, toggle_words};
use super::step::StepRecord;
use codeact_engine::emit::rhai::string as rhai_string;
use codeact_engine::sandbox::Toggled;

/// The checks a replay of a successful run makes.
#[derive(Debug, Default)]
pub(super) struct EffectChecks {
    /// Statements to run after a step's code, by the step's position in the records.
    after_step: Vec<(usize, String)>,
    /// The statements that check where the run ended (toggles the completing step
    /// flipped, then the screen), to run just before its completion.
    at_end: String,
}

/// `selector` (a map's source, as exported selectors are) narrowed to `checked`.
fn with_state(selector: &str, checked: bool) -> Option<String> {
    let inner = selector.trim().strip_prefix("#{")?.strip_suffix('}')?;
    Some(format!("#{{{inner}, checked: {checked}}}"))
}

/// Whether `toggle` was still on screen when step `record` ended: nothing the step
/// did after its last flip changed the screen (later calls that only read it, or
/// showed no visible change, leave it where it was). Known from what each action
/// recorded, without a screen dump.
fn shown_at_end_of(record: &StepRecord, toggle: &Toggled) -> bool {
    let actions = record.actions();
    let Some(last_flip) = actions.iter().rposition(|a| a.capture.toggled.iter().any(|t| t.same_as(toggle))) else {
        return false;
    };
    actions[last_flip + 1..].iter().all(|a| a.capture.effect.as_deref().is_none_or(|e| e == "no visible change"))
}

impl EffectChecks {
    /// The checks for the successful run `records` make up; `completing` is the
    /// position of the step whose completion ends it.
    pub(super) fn of(records: &[StepRecord], completing: Option<usize>) -> Self {
        let effects = RunEffects::of_records(records);
        let mut checks = Self::default();
        for toggle in &effects.toggles {
            let flipped_in = records
                .iter()
                .rposition(|r| r.actions().iter().any(|a| a.capture.toggled.iter().any(|t| t.same_as(toggle))));
            let Some(step) = flipped_in else { continue };
            let Some(selector) = with_state(&toggle.selector, toggle.checked) else { continue };
            if !shown_at_end_of(&records[step], toggle) {
                continue;
            }
            let said = codeact_engine::emit::rhai::comment(&format!("the recorded run left {}", toggle_words(toggle)));
            let line = format!("assert_visible({selector}); {said}\n");
            match Some(step) == completing {
                true => checks.at_end.push_str(&line),
                false => checks.after_step.push((step, line)),
            }
        }
        if let Some(screen) = &effects.screen {
            // The app, and the screen by its short name, which reads the same on every
            // platform (a platform without screen names, iOS, is held to the app).
            let short = screen.activity.rsplit(['.', '/']).next().unwrap_or("");
            let screen_test = if short.is_empty() {
                String::new()
            } else {
                format!(" || (phone_state.screen != \"\" && phone_state.screen != {})", rhai_string(short))
            };
            let why = format!(" in front, not {screen} as in the recorded run");
            checks.at_end.push_str(&format!(
                "refresh();\nif phone_state.app != {}{screen_test} {{ complete(false, \"the replay ended with \" + phone_state.app + \"/\" + phone_state.screen + {}); }}\n",
                rhai_string(&screen.app),
                rhai_string(&why)
            ));
        }
        checks
    }

    /// The statements to run after step `index`'s code ("" for none).
    pub(super) fn after(&self, index: usize) -> String {
        self.after_step.iter().filter(|(i, _)| *i == index).map(|(_, line)| line.as_str()).collect()
    }

    /// The statements that check the end, before the run's completion.
    pub(super) fn at_end(&self) -> &str {
        &self.at_end
    }
}

/// `code` split around its completion when that is a statement of its own at the
/// top level (a line `complete(...)` with no indentation): what comes before it,
/// and the completion with what follows. `None` when the completion is nested.
pub(super) fn split_at_completion(code: &str) -> Option<(String, String)> {
    let lines: Vec<&str> = code.lines().collect();
    let at = lines.iter().rposition(|l| l.starts_with("complete("))?;
    Some((lines[..at].join("\n"), lines[at..].join("\n")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_narrow_to_a_state_and_completions_split_off() {
        assert_eq!(
            with_state(r#"#{id: "wifi_switch"}"#, false).as_deref(),
            Some(r#"#{id: "wifi_switch", checked: false}"#)
        );
        assert_eq!(with_state("\"Wi-Fi\"", true), None);
        let (before, completion) = split_at_completion("tap(\"a\");\ncomplete(true, \"x\");").unwrap_or_default();
        assert_eq!((before.as_str(), completion.as_str()), ("tap(\"a\");", "complete(true, \"x\");"));
        assert_eq!(split_at_completion("if x {\n    complete(true);\n}"), None);
    }
}
