//! Where in a task a crash or an ANR showed: the steps up to it as a replay runs
//! them, and the action after which it showed — what a finding's reproduction
//! repeats, and the finding recorded. Reading the dialog and the log is
//! `findings.rs`'s.

use super::super::findings::{self, Finding, FindingKind};
use super::super::progress::Progress;
use super::super::screen;
use super::Cycle;
use super::observer::TaskObservation;
use codeact_record::trajectory::StepRecord;

impl Cycle<'_, '_> {
    /// Crashes and ANRs the task met: the dialog it left, or the device log.
    pub(super) fn caught_failures(
        &mut self,
        end: &codeact_platform::device::Observation,
        goal: &str,
        records: &[StepRecord],
        seen: &TaskObservation,
    ) {
        let dialog = findings::dialog_in(end);
        for kind in [FindingKind::Crash, FindingKind::Anr] {
            let logged = self.log.new_failures(self.session, &self.options.app, kind);
            let shown = dialog.as_ref().filter(|(k, _)| *k == kind);
            if logged.is_empty() && shown.is_none() {
                continue;
            }
            let detail = logged.first().map(|l| l.detail.clone()).filter(|d| !d.is_empty());
            let title = shown
                .map(|(_, t)| t.clone())
                .or_else(|| detail.clone())
                .unwrap_or_else(|| format!("{} {}", self.label.unwrap_or(self.app()), kind.word()));
            let (steps, action) = steps_until(records, kind, &self.options.app);
            let activity = seen
                .activities
                .iter()
                .rev()
                .find(|(p, _)| p == &self.options.app)
                .map(|(p, a)| screen::qualify(p, a))
                .unwrap_or_default();
            let action = if action.is_empty() { format!("the task \"{goal}\"") } else { action };
            let at = (self.actions, self.started.elapsed().as_secs_f64());
            let mut finding =
                Finding::new((kind, title, detail), (activity, action), at, steps, self.findings.len() + 1);
            if self.findings.iter().any(|f| f.same_as(&finding)) {
                continue;
            }
            self.folder.keep_finding(&mut finding, &self.options.app, self.clean);
            (self.progress)(Progress::Finding(&finding));
            self.findings.push(finding);
        }
        if dialog.is_some() {
            let _ = self.session.eval(findings::CLOSE_DIALOG);
        }
    }
}

/// The task's steps as a replay runs them, up to the step in which the failure
/// showed (an action's effect shows its dialog, or the app gone from the front),
/// and that action; all of them when no effect shows it.
pub(super) fn steps_until(records: &[StepRecord], kind: FindingKind, app: &str) -> (Vec<String>, String) {
    let words = match kind {
        FindingKind::Crash => "keeps stopping",
        FindingKind::Anr => "isn't responding",
    };
    let mut steps = Vec::new();
    for record in records {
        if let Some(code) = codeact_record::trajectory::export::replay_code(record) {
            let code = code.lines().filter(|l| !l.trim_start().starts_with("complete(")).collect::<Vec<_>>();
            let code = code.join("\n");
            let code = code.trim_end().trim_end_matches(';').to_string();
            if !code.trim().is_empty() {
                steps.push(code);
            }
        }
        let Some(ran) = record.ran() else { continue };
        let left = |e: &str| {
            e.split("; ")
                .any(|p| p.strip_prefix("opened ").is_some_and(|to| !to.starts_with('.') && !to.starts_with(app)))
        };
        let showed = |e: &str| e.contains(words) || left(e);
        if let Some(a) = ran.actions.iter().find(|a| a.capture.effect.as_deref().is_some_and(showed)) {
            let action =
                codeact_record::memory::element_call(a).unwrap_or_else(|| format!("{}({})", a.tool, a.args.join(", ")));
            return (steps, action);
        }
    }
    (steps, String::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use codeact_engine::sandbox::Action;

    fn step(code: &str, taps: &[(&str, &str)]) -> StepRecord {
        let actions = taps
            .iter()
            .map(|(id, effect)| Action::with_effect("tap", &[&format!("#{{id: \"{id}\"}}")], effect))
            .collect();
        StepRecord::ran_for_test(code, actions, None)
    }

    #[test]
    fn the_steps_stop_where_the_app_left_the_front() {
        let records = [
            step("tap(#{id: \"a\"});", &[("a", "opened .B")]),
            step("tap(#{id: \"b\"});\ncomplete(false, \"gone\");", &[("b", "opened com.android.launcher3/.Launcher")]),
            step("tap(#{id: \"c\"});", &[("c", "no visible change")]),
        ];
        let (steps, action) = steps_until(&records, FindingKind::Crash, "com.x");
        assert_eq!(steps, ["tap(#{id: \"a\"})", "tap(#{id: \"b\"})"]);
        assert_eq!(action, "tap(#{id: \"b\"})");
        let (all, none) = steps_until(&records[2..], FindingKind::Anr, "com.x");
        assert_eq!((all.len(), none.as_str()), (1, ""));
    }
}
