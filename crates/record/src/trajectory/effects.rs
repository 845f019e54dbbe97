//! What a run changed on the phone, as facts a later run can be held to: the
//! toggles it left flipped (each by a selector that finds it, with its final
//! state) and the screen it ended on. Memory keeps them beside an experience (a
//! replay or a heal counts only when it ends with them), and the exported scripts
//! assert them. Built from a run's step records, from what each action recorded;
//! pure. Not the one-line effect of a single action (`tools/effect.rs`).

use serde::{Deserialize, Serialize};

use super::step::{StepOutcome, StepRecord};
use codeact_engine::sandbox::{Action, Screen, Toggled};

/// What a run left changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunEffects {
    /// The toggles whose state at the end differs from the state they had before
    /// the run first flipped them, with that final state, in the order first flipped.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub toggles: Vec<Toggled>,
    /// The app and activity in front at the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen: Option<Screen>,
}

/// A toggle's final state in words: `"Wi-Fi" off (Switch (id wifi_switch))`.
pub(super) fn toggle_words(t: &Toggled) -> String {
    let state = if t.checked { "on" } else { "off" };
    match t.label.is_empty() {
        true => format!("{} {state}", t.name),
        false => format!("{:?} {state} ({})", t.label, t.name),
    }
}

impl RunEffects {
    /// The effects of the run `records` make up.
    pub fn of_records(records: &[StepRecord]) -> Self {
        let mut effects = Self::default();
        // Each toggle once, with the state it had before its first flip.
        let mut seen: Vec<(Toggled, bool)> = Vec::new();
        for record in records {
            if let Some((app, activity)) = &record.seen {
                effects.screen = Some(Screen { app: app.clone(), activity: activity.clone() });
            }
            let StepOutcome::Ran(result) = &record.outcome else { continue };
            for action in &result.actions {
                effects.note(action, &mut seen);
            }
        }
        effects.toggles = seen.into_iter().filter(|(t, was)| t.checked != *was).map(|(t, _)| t).collect();
        effects
    }

    fn note(&mut self, action: &Action, seen: &mut Vec<(Toggled, bool)>) {
        if let Some(screen) = &action.capture.screen {
            self.screen = Some(screen.clone());
        }
        for t in &action.capture.toggled {
            match seen.iter_mut().find(|(known, _)| known.same_as(t)) {
                Some((known, _)) => known.checked = t.checked,
                None => seen.push((t.clone(), !t.checked)),
            }
        }
    }

    /// Whether there is nothing to hold a run to.
    pub fn is_empty(&self) -> bool {
        self.toggles.is_empty() && self.screen.is_none()
    }

    /// What of these effects (a recorded run's) `run` did not end with, one phrase
    /// each: `Switch (id wifi_switch) off`, `ending on com.android.settings/.WifiSettings
    /// (it ended on com.android.launcher3/.Launcher)`. Empty: it reproduced them.
    pub fn missing_in(&self, run: &RunEffects) -> Vec<String> {
        let mut missing: Vec<String> = self
            .toggles
            .iter()
            .filter(|t| !run.toggles.iter().any(|r| r.same_as(t) && r.checked == t.checked))
            .map(toggle_words)
            .collect();
        if let Some(screen) = &self.screen
            && run.screen.as_ref() != Some(screen)
        {
            missing.push(match &run.screen {
                Some(other) => format!("ending on {screen} (it ended on {other})"),
                None => format!("ending on {screen}"),
            });
        }
        missing
    }

    /// The effects in one line, for people: `Switch (id wifi_switch) off; ended on …`.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = self.toggles.iter().map(toggle_words).collect();
        if let Some(screen) = &self.screen {
            parts.push(format!("ended on {screen}"));
        }
        if parts.is_empty() { "nothing recorded".to_string() } else { parts.join("; ") }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use codeact_engine::sandbox::{Capture, RunResult};

    fn toggled(checked: bool) -> Toggled {
        Toggled {
            selector: r#"#{id: "wifi_switch"}"#.into(),
            name: "Switch (id wifi_switch)".into(),
            label: String::new(),
            checked,
        }
    }

    fn step(number: usize, seen: &str, flips: &[bool], after: Option<&str>) -> StepRecord {
        let actions = flips
            .iter()
            .map(|&c| Action {
                tool: "tap".into(),
                args: Vec::new(),
                result: "ok".into(),
                failure: None,
                started_ms: 0.0,
                duration_ms: 1.0,
                capture: Capture {
                    toggled: vec![toggled(c)],
                    screen: after.map(|a| Screen { app: "com.android.settings".into(), activity: a.into() }),
                    ..Capture::default()
                },
            })
            .collect();
        let mut record = StepRecord::new(number);
        record.seen = Some(("com.android.settings".into(), seen.into()));
        record.outcome = StepOutcome::Ran(RunResult { actions, ..RunResult::default() });
        record
    }

    #[test]
    fn a_toggle_counts_by_where_it_ends_and_the_screen_by_the_last_one_read() {
        let flipped_off = RunEffects::of_records(&[
            step(1, "com.android.settings.Settings", &[false], Some("com.android.settings.WifiSettings")),
            step(2, "com.android.settings.WifiSettings", &[], None),
        ]);
        assert_eq!(flipped_off.toggles, vec![toggled(false)]);
        assert_eq!(flipped_off.describe(), "Switch (id wifi_switch) off; ended on com.android.settings/.WifiSettings");
        // Flipped there and back: nothing changed.
        let there_and_back = RunEffects::of_records(&[step(1, "com.android.settings.Settings", &[false, true], None)]);
        assert!(there_and_back.toggles.is_empty());
        assert_eq!(
            flipped_off.missing_in(&there_and_back),
            vec![
                "Switch (id wifi_switch) off".to_string(),
                "ending on com.android.settings/.WifiSettings (it ended on com.android.settings/.Settings)".to_string()
            ]
        );
        assert!(flipped_off.missing_in(&flipped_off).is_empty());
        // Under renamed ids the same row's switch is the same toggle.
        let labelled = |selector: &str| Toggled { selector: selector.into(), label: "Wi-Fi".into(), ..toggled(false) };
        let before = RunEffects { toggles: vec![labelled(r#"#{id: "wifi_switch"}"#)], screen: None };
        let renamed = RunEffects { toggles: vec![labelled(r#"#{id: "switch_wifi"}"#)], screen: None };
        assert!(before.missing_in(&renamed).is_empty());
    }
}
