//! Apps that misbehave on purpose, for testing what finds crashes: `simctl fault
//! crash-on PACKAGE WIDGET` makes a tap on that widget crash the app (its task dies,
//! "LABEL keeps stopping" shows, and `logcat` has the `FATAL EXCEPTION`), `anr-on`
//! makes it stop responding ("LABEL isn't responding", `ANR in` in the log). The
//! device log itself is here too: a bounded buffer `logcat` reads, written as apps
//! start and fail (its types, with the triggers', are `model.rs`'s).
//!
//! Not a model of Android's process lifecycle: one pid per app, no restarts.

use super::model::{DialogInstance, FaultDialog, World};
pub(crate) use super::model::{Failure, LogLine, MAX_TRIGGERS, Trigger};

/// A stable pid per app (Android's app pids start in the thousands).
pub(crate) fn pid_of(app: usize) -> u32 {
    10_000 + 37 * app as u32
}

impl World {
    /// Appends a log line at the device clock's now.
    pub(crate) fn log(&mut self, pid: u32, level: char, tag: &str, message: &str) {
        let at_ms = self.now_secs() * 1000 + i64::from(self.booted.elapsed().subsec_millis());
        self.log.push(LogLine { at_ms, pid, level, tag: tag.to_string(), message: message.to_string() });
    }

    /// If tapping the top screen's item `index` is a trigger, the app fails now
    /// and the tap does nothing else; returns whether it did.
    pub(crate) fn fails_on_tap(&mut self, index: usize) -> bool {
        let Some((app, screen, inst)) = self.top() else { return false };
        let Some(item) = screen.items.get(index) else { return false };
        let qualified = format!("{}:id/{}", app.package, item.id);
        let trigger = self.crash_on.iter().find(|t| {
            t.package == app.package
                && [item.id.as_str(), qualified.as_str(), item.text.as_str(), item.desc.as_str()]
                    .iter()
                    .any(|w| !w.is_empty() && *w == t.widget)
        });
        let Some(failure) = trigger.map(|t| t.failure) else { return false };
        let (package, label, app_index) = (app.package.clone(), app.label.clone(), inst.app);
        let activity = app.full_activity(&screen.activity);
        let pid = pid_of(app_index);
        match failure {
            Failure::Crash => {
                let exception = format!("java.lang.IllegalStateException: {} was tapped", item.id);
                let lines = [
                    "FATAL EXCEPTION: main".to_string(),
                    format!("Process: {package}, PID: {pid}"),
                    exception,
                    format!("\tat {activity}.onClick({}.java:42)", short_name(&activity)),
                    "\tat android.view.View.performClick(View.java:7659)".to_string(),
                ];
                for line in &lines {
                    self.log(pid, 'E', "AndroidRuntime", line);
                }
                self.log(1000, 'I', "ActivityManager", &format!("Process {package} (pid {pid}) has died: fg  TOP"));
                self.force_stop(app_index);
                self.dialogs.push(DialogInstance::Fault { kind: FaultDialog::Crash, package, label });
            }
            Failure::Anr => {
                self.log(1000, 'E', "ActivityManager", &format!("ANR in {package} ({package}/{activity})"));
                self.log(1000, 'E', "ActivityManager", &format!("PID: {pid}"));
                self.log(
                    1000,
                    'E',
                    "ActivityManager",
                    "Reason: Input dispatching timed out (Waiting to send non-key event because the touched window has not finished processing certain input events)",
                );
                self.dialogs.push(DialogInstance::Fault { kind: FaultDialog::Anr, package, label });
            }
        }
        self.screen_changed();
        true
    }
}

fn short_name(activity: &str) -> &str {
    activity.rsplit('.').next().unwrap_or(activity)
}
