//! What `codeact exec` shows as a suite runs: every print, action and verdict the
//! moment it happens, as text (PASS green and FAIL red at a terminal; no colour
//! when piped, with `NO_COLOR`, or with `TERM=dumb`; `CLICOLOR_FORCE=1` forces it)
//! or as one JSON object per line (`--json`), and the closing count. Lines of
//! scripts running at once carry the script's name. Not here: running them.

use std::io::Write;
use std::sync::Mutex;
use std::time::Instant;

use anstyle::{AnsiColor, Style};
use codeact::sandbox::{Action, LISTED_ACTIONS};
use codeact::script::{ExecEvent, Report, Script};
use codeact::terminal::{clean, one_line};
use codeact::trajectory::junit::Verdict;
use serde_json::json;

/// At most this many notes of an agent giving way to a dump, per script.
const FALLBACK_NOTES: usize = 3;

/// Text or JSON lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// Prints a suite's events; shared by its workers' threads.
pub struct ExecPrinter {
    format: Format,
    /// Name lines with their script (several run at once).
    prefixed: bool,
    /// Several scripts: each one's start gets a line.
    several: bool,
    /// Actions printed so far in each worker's script in hand.
    listed: Mutex<Vec<usize>>,
    /// One line at a time, whole, whatever thread writes it.
    writing: Mutex<()>,
    started: Instant,
}

/// The verdicts that stand (a retried attempt's do not count).
#[derive(Debug, Default, Clone, Copy)]
pub struct Totals {
    pub passed: usize,
    pub failed: usize,
    pub errors: usize,
}

impl Totals {
    pub fn of(reports: &[Report]) -> Self {
        let mut t = Totals::default();
        for r in reports {
            match r.verdict {
                Verdict::Passed => t.passed += 1,
                Verdict::Failed { .. } => t.failed += 1,
                Verdict::Error { .. } => t.errors += 1,
            }
        }
        t
    }
}

fn style(color: AnsiColor) -> Style {
    Style::new().fg_color(Some(color.into())).bold()
}

/// `PASS` in green, `FAIL` in red, `ERROR` in yellow (stripped where colour is off).
fn painted(verdict: &Verdict) -> String {
    let s = match verdict {
        Verdict::Passed => style(AnsiColor::Green),
        Verdict::Failed { .. } => style(AnsiColor::Red),
        Verdict::Error { .. } => style(AnsiColor::Yellow),
    };
    format!("{s}{}{s:#}", verdict.word())
}

impl ExecPrinter {
    pub fn new(format: Format, workers: usize, scripts: usize) -> Self {
        ExecPrinter {
            format,
            prefixed: workers > 1,
            several: scripts > 1,
            listed: Mutex::new(vec![0; workers.max(1)]),
            writing: Mutex::new(()),
            started: Instant::now(),
        }
    }

    /// Hears one event (from any worker).
    pub fn hear(&self, worker: usize, event: &ExecEvent) {
        match self.format {
            Format::Json => self.json_line(&event_json(worker, event)),
            Format::Text => self.text(worker, event),
        }
    }

    fn text(&self, worker: usize, event: &ExecEvent) {
        match event {
            ExecEvent::Started { script, attempt } => {
                if let Some(n) = lock(&self.listed).get_mut(worker) {
                    *n = 0;
                }
                if self.several || *attempt > 1 {
                    let again = if *attempt > 1 { format!(" (attempt {attempt})") } else { String::new() };
                    let dim = Style::new().dimmed();
                    self.err(&format!("{dim}RUN{dim:#}  {}{again}", shown(script)));
                }
            }
            ExecEvent::Printed { script, text } => {
                // One line per print, as the script's output holds it (an empty print too).
                for line in text.split('\n') {
                    self.out(&format!("{}{}", self.prefix(script), clean(line)));
                }
            }
            ExecEvent::Acted { script, action } => {
                let listed = {
                    let mut counts = lock(&self.listed);
                    counts.get_mut(worker).map(|n| std::mem::replace(n, *n + 1)).unwrap_or(0)
                };
                if listed < LISTED_ACTIONS {
                    self.err(&format!(
                        "{}  {:>8.1} ms  {}",
                        self.prefix(script),
                        action.duration_ms,
                        action_line(action)
                    ));
                }
            }
            ExecEvent::Finished { report, .. } => self.verdict_lines(report),
        }
    }

    fn verdict_lines(&self, report: &Report) {
        let (result, script) = (&report.result, &report.script);
        let prefix = self.prefix(script);
        let listed = result.actions.len().min(LISTED_ACTIONS);
        let hidden = result.actions.len() + result.more_actions - listed;
        if hidden > 0 {
            self.err(&format!("{prefix}  … and {hidden} more call{}", if hidden == 1 { "" } else { "s" }));
        }
        let fallbacks = fallback_notes(report);
        for f in fallbacks.iter().take(FALLBACK_NOTES) {
            self.err(&format!("{prefix}  note: {}", clean(f)));
        }
        if fallbacks.len() > FALLBACK_NOTES {
            let more = fallbacks.len() - FALLBACK_NOTES;
            self.err(&format!("{prefix}  note: and {more} more (the trajectory's actions have them all)"));
        }
        let mut verdict = painted(&report.verdict);
        if report.attempt > 1 {
            verdict.push_str(&format!(" (attempt {})", report.attempt));
        }
        let file = shown(script);
        let calls = result.actions.len() + result.more_actions;
        let line = match (&result.error, &result.completion) {
            (Some(e), _) => format!("{verdict} {file}: {}", error_lines(e)),
            (None, Some(c)) if !c.success => format!("{verdict} {file}: completed as failed: {}", one_line(&c.reason)),
            (None, Some(c)) => {
                format!(
                    "{verdict} {file} ({calls} actions, {:.0} ms) completed: {}",
                    result.duration_ms,
                    one_line(&c.reason)
                )
            }
            (None, None) => format!("{verdict} {file} ({calls} actions, {:.0} ms)", result.duration_ms),
        };
        self.err(&line);
        for (what, file) in [
            ("failure screenshot", &report.failure_screenshot),
            ("device log", &report.device_log),
            ("screen recording", &report.recording),
        ] {
            if let Some(file) = file {
                self.err(&format!("  {what}: {}", one_line(&file.display().to_string())));
            }
        }
        if let Some(dir) = &report.trajectory {
            self.err(&format!("  trajectory: {}", one_line(&dir.display().to_string())));
        }
    }

    /// Seconds since the suite began.
    pub fn seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// The closing line: `3 passed, 1 failed, 0 errors (4.2 s)`.
    pub fn summary(&self, totals: Totals, note: Option<&str>) {
        let seconds = self.seconds();
        match self.format {
            Format::Json => self.json_line(&json!({
                "event": "summary",
                "passed": totals.passed,
                "failed": totals.failed,
                "errors": totals.errors,
                "seconds": (seconds * 1000.0).round() / 1000.0,
                "note": note,
            })),
            Format::Text => {
                let count = |n: usize, word: &str, color: AnsiColor| {
                    let s = if n > 0 { style(color) } else { Style::new() };
                    format!("{s}{n} {word}{s:#}")
                };
                let mut line = format!(
                    "{}, {}, {} ({seconds:.1} s)",
                    count(totals.passed, "passed", AnsiColor::Green),
                    count(totals.failed, "failed", AnsiColor::Red),
                    count(totals.errors, if totals.errors == 1 { "error" } else { "errors" }, AnsiColor::Yellow),
                );
                if let Some(note) = note {
                    line.push_str(&format!("; {note}"));
                }
                self.err(&line);
            }
        }
    }

    /// Any other event of the suite, as a JSON line (`--json` only).
    pub fn json_event(&self, value: &serde_json::Value) {
        if self.format == Format::Json {
            self.json_line(value);
        }
    }

    fn prefix(&self, script: &Script) -> String {
        if self.prefixed { format!("[{}] ", one_line(&script.name())) } else { String::new() }
    }

    // Every line goes out with its secrets blotted, as files have them: a script
    // can print back what `type_secret` typed.
    fn out(&self, line: &str) {
        let _guard = lock(&self.writing);
        let _ = anstream::stdout().write_all(format!("{}\n", codeact::secrets::redact(line)).as_bytes());
    }

    fn err(&self, line: &str) {
        let _guard = lock(&self.writing);
        let _ = anstream::stderr().write_all(format!("{}\n", codeact::secrets::redact(line)).as_bytes());
    }

    fn json_line(&self, value: &serde_json::Value) {
        let mut value = value.clone();
        codeact::secrets::redact_json(&mut value);
        let _guard = lock(&self.writing);
        let _ = std::io::stdout().write_all(format!("{value}\n").as_bytes());
    }
}

/// The script as its lines name it: one line, whatever its file is called.
fn shown(script: &Script) -> String {
    one_line(&script.path.display().to_string())
}

/// A script's error on its verdict line: where, and the message as one line (its
/// text may come from the script, a device or a file), then the source line and
/// the caret under the place, each on a line of its own.
fn error_lines(e: &codeact::sandbox::RunError) -> String {
    let mut text = match (e.line, e.column) {
        (Some(l), Some(c)) => format!("line {l}, column {c}: {}", one_line(&e.message)),
        (Some(l), None) => format!("line {l}: {}", one_line(&e.message)),
        _ => one_line(&e.message),
    };
    if let (Some(src), Some(c)) = (&e.source_line, e.column) {
        text.push_str(&format!("\n  {}\n  {}^", one_line(src), " ".repeat(c.saturating_sub(1))));
    }
    text
}

/// A live action line: a failed call says what kind of failure it was (the
/// verdict line says the whole when it ended the script; `--json` and the
/// trajectory always have it).
fn action_line(action: &Action) -> String {
    use codeact::sandbox::FailureKind;
    let kind = match action.failure {
        None => return clean(&action.summary()).into_owned(),
        Some(FailureKind::Assertion) => "assertion failed",
        Some(FailureKind::Stale) => "stale index",
        Some(FailureKind::Device) => "device error",
        Some(FailureKind::BadArgument) => "bad argument",
        Some(FailureKind::NotFound) => "not found",
        Some(FailureKind::TimeLimit) => "time limit",
        Some(FailureKind::Cancelled) => "stopped",
        Some(FailureKind::Refused) => "refused",
    };
    clean(&format!("{}({}) -> failed ({kind})", action.tool, action.args.join(", "))).into_owned()
}

/// The distinct times an on-device agent gave way to a dump (the first note of an
/// agent set aside also says what comes next: later ones are its beginning).
fn fallback_notes(report: &Report) -> Vec<&str> {
    let mut notes: Vec<&str> = Vec::new();
    for f in report.result.actions.iter().filter_map(|a| a.capture.fallback.as_deref()) {
        if !notes.iter().any(|seen| seen.starts_with(f) || f.starts_with(seen)) {
            notes.push(f);
        }
    }
    notes
}

/// One event as a JSON object (text from scripts and devices escaped by JSON).
fn event_json(worker: usize, event: &ExecEvent) -> serde_json::Value {
    match event {
        ExecEvent::Started { script, attempt } => json!({
            "event": "start",
            "script": script.path.display().to_string(),
            "tags": script.tags,
            "attempt": attempt,
            "worker": worker,
        }),
        ExecEvent::Printed { script, text } => json!({
            "event": "print",
            "script": script.path.display().to_string(),
            "text": text,
        }),
        ExecEvent::Acted { script, action } => json!({
            "event": "action",
            "script": script.path.display().to_string(),
            "tool": action.tool,
            "args": action.args,
            "ok": action.succeeded(),
            "result": action.result,
            "effect": action.capture.effect,
            "note": action.capture.fallback,
            "ms": (action.duration_ms * 10.0).round() / 10.0,
        }),
        ExecEvent::Finished { report, last } => {
            let result = &report.result;
            json!({
                "event": "verdict",
                "script": report.script.path.display().to_string(),
                "verdict": report.verdict.word().to_lowercase(),
                "attempt": report.attempt,
                "last": last,
                "actions": result.actions.len() + result.more_actions,
                "ms": result.duration_ms.round(),
                "error": result.error.as_ref().map(|e| json!({
                    "message": e.message, "line": e.line, "column": e.column, "text": e.to_string(),
                })),
                "completion": result.completion,
                "trajectory": report.trajectory.as_ref().map(|d| d.display().to_string()),
                "failure_screenshot": report.failure_screenshot.as_ref().map(|p| p.display().to_string()),
                "device_log": report.device_log.as_ref().map(|p| p.display().to_string()),
                "screen_recording": report.recording.as_ref().map(|p| p.display().to_string()),
            })
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
