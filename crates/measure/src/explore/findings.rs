//! What went wrong while exploring: an app that crashed ("… keeps stopping", or
//! `FATAL EXCEPTION` in the device log) or stopped responding ("… isn't
//! responding", `ANR in`), with the action that did it and the shortest script
//! that does it again from a clean start. Reading the screen and the log is here;
//! replaying the script is the walk's.

use serde::Serialize;

use codeact_engine::emit::rhai::{comment, string as rhai_string, tags_comment};
use codeact_platform::device::Observation;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FindingKind {
    Crash,
    Anr,
}

impl FindingKind {
    pub fn word(self) -> &'static str {
        match self {
            FindingKind::Crash => "crash",
            FindingKind::Anr => "ANR",
        }
    }
}

/// One problem found.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub kind: FindingKind,
    /// What the phone said: the dialog's title, else the exception.
    pub title: String,
    /// The exception and its first frame, from the log.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exception: Option<String>,
    /// Where the action was taken, and the action.
    pub activity: String,
    pub action: String,
    /// The action count when it happened.
    pub at_action: usize,
    /// Seconds into the exploration when it happened.
    #[serde(default)]
    pub at_seconds: f64,
    /// The steps from a clean start, the failing action last.
    pub steps: Vec<String>,
    /// Whether running the steps again from a clean start did it again.
    pub reproduced: Option<bool>,
    /// The reproduction script's file, relative to the run folder.
    pub script: String,
}

impl Finding {
    /// The `n`-th finding of an exploration (its script's number): what failed and
    /// how (`kind`, `title`, `exception`), on which activity after which action, at
    /// which action count and second, and the steps that reproduce it.
    pub fn new(
        (kind, title, exception): (FindingKind, String, Option<String>),
        (activity, action): (String, String),
        (at_action, at_seconds): (usize, f64),
        steps: Vec<String>,
        n: usize,
    ) -> Self {
        let script = format!("findings/{n:02}-{}.rhai", kind.word().to_lowercase());
        Self { kind, title, exception, activity, action, at_action, at_seconds, steps, reproduced: None, script }
    }

    /// Whether `other` is the same problem (same kind, place, action and words).
    pub fn same_as(&self, other: &Finding) -> bool {
        self.kind == other.kind && self.activity == other.activity && self.action == other.action
    }
}

/// The crash or ANR dialog on screen, if one is: its kind and title.
pub fn dialog_in(obs: &Observation) -> Option<(FindingKind, String)> {
    obs.ui.elements.iter().filter(|e| e.visible).find_map(|e| {
        let t = e.text.trim();
        if t.ends_with(" keeps stopping") || t.ends_with(" has stopped") {
            Some((FindingKind::Crash, t.to_string()))
        } else if t.ends_with(" isn't responding")
            || t.ends_with(" isn\u{2019}t responding")
            || t.ends_with(" is not responding")
        {
            Some((FindingKind::Anr, t.to_string()))
        } else {
            None
        }
    })
}

/// A failure the device log tells of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Logged {
    pub kind: FindingKind,
    /// The line that starts it (time and pid included): what makes it new.
    pub id: String,
    /// The package that failed, when the log names it.
    pub package: String,
    /// The exception (a crash) or the reason (an ANR).
    pub detail: String,
}

/// The message of a `logcat -v threadtime` line (after `TAG: `), or the line.
fn message(line: &str) -> &str {
    line.split_once(": ").map_or(line, |(_, m)| m)
}

/// Every `FATAL EXCEPTION` and `ANR in` the log text holds, oldest first.
pub fn logged_failures(log: &str) -> Vec<Logged> {
    let lines: Vec<&str> = log.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let msg = message(line);
        if msg.starts_with("FATAL EXCEPTION") {
            let after = lines.iter().skip(i + 1).take(6).map(|l| message(l));
            let mut package = String::new();
            let mut detail = String::new();
            for m in after {
                if let Some(rest) = m.strip_prefix("Process: ") {
                    package = rest.split(',').next().unwrap_or("").trim().to_string();
                } else if detail.is_empty() && !m.trim_start().starts_with("at ") && !m.starts_with('\t') {
                    detail = m.trim().to_string();
                }
            }
            out.push(Logged { kind: FindingKind::Crash, id: line.to_string(), package, detail });
        } else if let Some(rest) = msg.strip_prefix("ANR in ") {
            let package = rest.split([' ', '(']).next().unwrap_or("").to_string();
            let reason = lines
                .iter()
                .skip(i + 1)
                .take(4)
                .map(|l| message(l))
                .find_map(|m| m.strip_prefix("Reason: "))
                .unwrap_or("")
                .to_string();
            out.push(Logged { kind: FindingKind::Anr, id: line.to_string(), package, detail: reason });
        }
    }
    out
}

/// Taps "Close app" on a crash or ANR dialog when one shows.
pub const CLOSE_DIALOG: &str =
    "if find(#{text: \"Close app\", no_scroll: true}) != () { tap(#{text: \"Close app\", no_scroll: true}) }";

/// The crashes and ANRs the device log reports, each once: what was there before
/// the exploration (see [`LogWatch::note_old`]) is not news.
#[derive(Debug, Default)]
pub struct LogWatch {
    seen: std::collections::HashSet<String>,
}

impl LogWatch {
    /// What the log says failed in `app` since the last look.
    pub fn new_failures(
        &mut self,
        session: &mut codeact_runtime::session::Session,
        app: &str,
        kind: FindingKind,
    ) -> Vec<Logged> {
        let command = match kind {
            FindingKind::Crash => "logcat -d -b crash -t 200",
            FindingKind::Anr => "logcat -d -t 400 ActivityManager:E *:S",
        };
        let Ok(out) = session.device_shell(command) else { return Vec::new() };
        logged_failures(&out.stdout_text())
            .into_iter()
            .filter(|l| self.seen.insert(l.id.clone()))
            .filter(|l| l.package.is_empty() || l.package == app)
            .collect()
    }

    /// The crash or ANR the last action caused, seen on `obs` (its dialog) or, when
    /// the app vanished from the front after an action that was not Back, in the
    /// log: its kind, title (the dialog's, else the exception) and the exception.
    pub fn failure_after(
        &mut self,
        session: &mut codeact_runtime::session::Session,
        obs: &Observation,
        app: &str,
        acted_not_back: bool,
    ) -> Option<(FindingKind, String, Option<String>)> {
        let dialog = dialog_in(obs);
        let left = obs.phone.package != app && acted_not_back;
        let kind = match (&dialog, left) {
            (Some((kind, _)), _) => *kind,
            // The app vanished without a dialog: a crash, if the log says so.
            (None, true) => FindingKind::Crash,
            (None, false) => return None,
        };
        let logged = self.new_failures(session, app, kind);
        let detail = logged.first().map(|l| l.detail.clone()).filter(|d| !d.is_empty());
        let title = match (dialog, &detail) {
            (Some((_, title)), _) => title,
            (None, Some(d)) => d.clone(),
            (None, None) => return None,
        };
        Some((kind, title, detail))
    }

    /// Remembers what the log holds already.
    pub fn note_old(&mut self, session: &mut codeact_runtime::session::Session, app: &str) {
        for kind in [FindingKind::Crash, FindingKind::Anr] {
            let _ = self.new_failures(session, app, kind);
        }
    }
}

/// Does `finding`'s steps again from a start of the app and says whether the same
/// kind of failure showed (its dialog is closed again when it did).
pub fn happens_again(
    session: &mut codeact_runtime::session::Session,
    app: &str,
    clean: bool,
    finding: &Finding,
) -> bool {
    if session.eval(&super::screen::start_line(app, clean)).error.is_some() {
        return false;
    }
    for step in &finding.steps {
        if session.eval(step).error.is_some() {
            return false;
        }
    }
    let again =
        session.observe(false).ok().and_then(|obs| dialog_in(&obs)).is_some_and(|(kind, _)| kind == finding.kind);
    if again {
        let _ = session.eval(CLOSE_DIALOG);
    }
    again
}

/// The reproduction as a test: it does the steps from a clean start and fails
/// while the problem is there (so it passes once it is fixed).
pub fn reproduction_script(app: &str, finding: &Finding, clean: bool) -> String {
    let mut s = String::new();
    let mut line = |text: String| {
        s.push_str(&comment(&text));
        s.push('\n');
    };
    line(format!("codeact explore found a {} in {app}: {}", finding.kind.word(), one_line(&finding.title)));
    if let Some(e) = &finding.exception {
        line(one_line(e));
    }
    line(format!("on {} after: {}", one_line(&finding.activity), one_line(&finding.action)));
    line("This test fails while the problem is there and passes once it is fixed.".into());
    s.push_str(&tags_comment(&["explore".to_string(), finding.kind.word().to_lowercase()]));
    s.push('\n');
    s.push_str(&format!("{};\n", super::screen::start_line(app, clean)));
    for (n, step) in finding.steps.iter().enumerate() {
        s.push_str(&format!("{step}; // step {}\n", n + 1));
    }
    let words = match finding.kind {
        FindingKind::Crash => "keeps stopping",
        FindingKind::Anr => "responding",
    };
    s.push_str(&format!(
        "wait(500);\nrefresh();\nassert_not_visible(#{{text_contains: {}, no_scroll: true}});\n",
        rhai_string(words)
    ));
    s.push_str(&format!(
        "if phone_state.app != {app_lit} {{ complete(false, {gone}); }}\ncomplete(true, \"no {} after the steps\");\n",
        finding.kind.word(),
        app_lit = rhai_string(app),
        gone = rhai_string(&format!("{app} is no longer in front")),
    ));
    s
}

/// Text from the device or the app, made one comment line.
pub fn one_line(text: &str) -> String {
    codeact_base::clip::clip(&text.replace(['\n', '\r'], " "), 200).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crashes_and_anrs_are_read_from_the_log() {
        let log = "--------- beginning of crash\n\
            11-27 00:21:49.123 10000 10000 E AndroidRuntime: FATAL EXCEPTION: main\n\
            11-27 00:21:49.123 10000 10000 E AndroidRuntime: Process: com.example.notes, PID: 10000\n\
            11-27 00:21:49.123 10000 10000 E AndroidRuntime: java.lang.IllegalStateException: boom\n\
            11-27 00:21:49.123 10000 10000 E AndroidRuntime: \tat com.example.A.onClick(A.java:42)\n\
            11-27 00:22:00.000  1000  1000 E ActivityManager: ANR in com.example.notes (com.example.notes/.A)\n\
            11-27 00:22:00.000  1000  1000 E ActivityManager: PID: 10000\n\
            11-27 00:22:00.000  1000  1000 E ActivityManager: Reason: Input dispatching timed out\n";
        let found = logged_failures(log);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].kind, FindingKind::Crash);
        assert_eq!(found[0].package, "com.example.notes");
        assert_eq!(found[0].detail, "java.lang.IllegalStateException: boom");
        assert_eq!(found[1].kind, FindingKind::Anr);
        assert_eq!(found[1].detail, "Input dispatching timed out");
        assert!(logged_failures("nothing here\n").is_empty());
    }

    #[test]
    fn the_reproduction_is_a_test_that_fails_while_the_crash_is_there() {
        let f = Finding {
            kind: FindingKind::Crash,
            title: "Notes keeps stopping".into(),
            exception: Some("java.lang.IllegalStateException: add_note\nwas tapped".into()),
            activity: "com.example.notes.NotesListActivity".into(),
            action: "tap(#{id: \"add_note\"})".into(),
            at_action: 7,
            at_seconds: 0.5,
            steps: vec!["tap(#{id: \"add_note\"})".into()],
            reproduced: None,
            script: "findings/01-crash.rhai".into(),
        };
        let s = reproduction_script("com.example.notes", &f, true);
        assert!(s.contains("start_app(\"com.example.notes\", #{clear: true});"), "{s}");
        assert!(s.contains("tap(#{id: \"add_note\"}); // step 1"), "{s}");
        assert!(s.contains("assert_not_visible(#{text_contains: \"keeps stopping\""), "{s}");
        assert!(!s.contains("add_note\nwas"), "device text stays in one comment line");
    }
}
