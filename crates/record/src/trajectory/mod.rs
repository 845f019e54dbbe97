//! A run directory written as the run goes: `events.jsonl` (one typed [`Event`] per
//! line, flushed per event), `screenshots/NNNN.png` and `ui/NNNN.xml`, other files
//! written whole, and `summary.json` at the end. A crash or a kill loses at most the
//! event in flight. This module writes files; it does not decide what to record.
//!
//! Whoever follows a run as it goes (the report, the trace exporter) is an
//! [`EventObserver`]: it gets each typed event as the file holds it, so every view
//! of a run agrees with `events.jsonl`. `read.rs` reads a run directory back into
//! the same types.
//!
//! `step.rs` is the record of one agent step, from which `export.rs` writes replay
//! scripts; `effects.rs` is what a run left changed (held against its replays);
//! `junit.rs` writes JUnit reports, `junit_merge.rs` joins shards' into one; `run_dir.rs` names run directories.

mod effect_checks;
mod effects;
mod event;
pub mod export;
pub mod junit;
pub mod junit_merge;
mod read;
pub mod redefined;
mod run_dir;
mod step;

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

pub use effects::RunEffects;
pub use event::{Event, PlanItem, round_ms};
pub use read::{RunFacts, events_of, read_events};
pub use run_dir::{new_run_dir, run_dir_name};
pub use step::{StepOutcome, StepRecord, StepTiming};

use codeact_engine::sandbox::{Action, ActionSink};

#[derive(Debug, thiserror::Error)]
pub enum TrajectoryError {
    #[error("cannot write the run directory at {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0} already holds a run; pick a new directory for this one")]
    Exists(PathBuf),
}

/// Something that follows a run's events as they are appended (the report, the
/// trace exporter): it gets each event as `events.jsonl` holds it (its secrets
/// redacted), with the wall-clock time it was written at.
pub trait EventObserver: Send {
    fn event(&mut self, event: &Event, at: SystemTime);
    /// The messages of the LLM request whose `llm_request` event comes next; not
    /// written to the directory (prompts are large, and rebuilt from the events).
    fn prompt(&mut self, _messages: &[codeact_runtime::llm::Message]) {}
}

/// An open run directory.
pub struct Trajectory {
    dir: PathBuf,
    events: File,
    started: Instant,
    /// `started` on the wall clock (observers get wall-clock times).
    started_at: SystemTime,
    observers: Vec<Box<dyn EventObserver>>,
    /// Files written so far (numbering for screenshots and UI dumps).
    captures: usize,
    /// The first write error, reported at `finish` (recording never stops a run).
    failed: Option<TrajectoryError>,
}

fn write_error(path: &Path) -> impl FnOnce(std::io::Error) -> TrajectoryError + '_ {
    move |source| TrajectoryError::Write { path: path.to_path_buf(), source }
}

impl Trajectory {
    /// Creates `dir` (and its parents); refuses a directory that already holds a run,
    /// and one that is a symbolic link. Everything inside is created new: no file
    /// or folder a run writes can be a link planted beforehand.
    pub fn create(dir: &Path) -> Result<Self, TrajectoryError> {
        codeact_base::files::create_run_folder(dir).map_err(write_error(dir))?;
        let events_path = dir.join("events.jsonl");
        let events = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
            .open(&events_path)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => TrajectoryError::Exists(dir.to_path_buf()),
                _ => write_error(&events_path)(e),
            })?;
        for sub in ["screenshots", "ui"] {
            let path = dir.join(sub);
            std::fs::create_dir(&path).map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => TrajectoryError::Exists(dir.to_path_buf()),
                _ => write_error(&path)(e),
            })?;
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            events,
            started: Instant::now(),
            started_at: SystemTime::now(),
            observers: Vec::new(),
            captures: 0,
            failed: None,
        })
    }

    /// Hands every event from now on to `observer` too.
    pub fn add_observer(&mut self, observer: Box<dyn EventObserver>) {
        self.observers.push(observer);
    }

    /// Tells the observers the messages of the LLM request about to be made.
    pub fn prompt(&mut self, messages: &[codeact_runtime::llm::Message]) {
        for observer in &mut self.observers {
            observer.prompt(messages);
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn note_failure(&mut self, path: PathBuf, result: std::io::Result<()>) {
        if let Err(source) = result
            && self.failed.is_none()
        {
            self.failed = Some(TrajectoryError::Write { path, source });
        }
    }

    /// Appends one event with its time (`t_ms` since the directory was opened),
    /// flushed at once, and hands it to the observers as written.
    pub fn append(&mut self, event: &Event) {
        let elapsed = self.started.elapsed();
        let t_ms = event::round_ms(elapsed.as_secs_f64() * 1000.0);
        let mut line = redacted_line(event);
        let result = match &mut line {
            Ok(line) => write_line(&mut self.events, line, t_ms),
            Err(e) => Err(std::io::Error::other(e.to_string())),
        };
        self.note_failure(self.dir.join("events.jsonl"), result);
        if !self.observers.is_empty() {
            let seen = line.ok().and_then(|line| as_written(&line));
            let at = self.started_at + elapsed;
            for observer in &mut self.observers {
                observer.event(seen.as_ref().unwrap_or(event), at);
            }
        }
    }

    /// Writes an action's captures to files (unless `keep_captures` is off) and
    /// appends its event.
    pub fn action(&mut self, step: usize, action: &Action, keep_captures: bool) {
        let named = action.capture.name.as_deref();
        let shot = action.capture.screenshot.as_ref().filter(|_| keep_captures || named.is_some());
        let xml = action.capture.ui_xml.as_ref().filter(|_| keep_captures);
        if shot.is_some() || xml.is_some() {
            self.captures += 1;
        }
        let n = self.captures;
        let screenshot = shot.map(|png| {
            let rel = match named {
                Some(name) => format!("screenshots/{n:04}-{name}.png"),
                None => format!("screenshots/{n:04}.png"),
            };
            let result = codeact_base::files::write_new(&self.dir.join(&rel), png);
            self.note_failure(self.dir.join(&rel), result);
            rel
        });
        let ui = xml.map(|xml| {
            let rel = format!("ui/{n:04}.xml");
            let result = codeact_base::files::write_new(
                &self.dir.join(&rel),
                codeact_base::secrets::redact_dump(xml).as_bytes(),
            );
            self.note_failure(self.dir.join(&rel), result);
            rel
        });
        self.append(&Event::action(step, action, screenshot, ui));
    }

    /// Writes a file into the run directory whole (through a temporary name, so a
    /// reader never sees half of it).
    pub fn write_file(&mut self, name: &str, bytes: &[u8]) {
        // Text files (dumps, scripts) lose their secrets, each in the
        // way that keeps its format; images are withheld upstream when a secret is
        // on screen.
        let redacted;
        let bytes = match std::str::from_utf8(bytes) {
            Ok(_) if name.ends_with(".png") => bytes,
            Ok(text) => {
                redacted = redacted_file(name, text);
                redacted.as_bytes()
            }
            Err(_) => bytes,
        };
        self.write_whole(name, bytes);
    }

    /// Writes `name` as given (renamed into place), noting a failure.
    fn write_whole(&mut self, name: &str, bytes: &[u8]) {
        let path = self.dir.join(name);
        let result = codeact_base::files::write_replacing(&path, bytes);
        self.note_failure(path, result);
    }

    /// Writes `summary.json` (its strings redacted, its numbers and keys as they
    /// are) and reports the first write error of the run, if any.
    pub fn finish(&mut self, summary: &serde_json::Value) -> Result<PathBuf, TrajectoryError> {
        let mut summary = summary.clone();
        codeact_base::secrets::redact_json(&mut summary);
        let text = serde_json::to_vec_pretty(&summary).unwrap_or_default();
        self.write_whole("summary.json", &text);
        match self.failed.take() {
            Some(e) => Err(e),
            None => Ok(self.dir.clone()),
        }
    }
}

/// An event as `events.jsonl` holds it: whatever it quotes (a screen, a reply, an
/// error) loses its secrets, value by value; a number or a key is never touched.
fn redacted_line(event: &Event) -> Result<serde_json::Value, serde_json::Error> {
    let mut line = serde_json::to_value(event)?;
    codeact_base::secrets::redact_json(&mut line);
    Ok(line)
}

/// Writes `line` with its time `t_ms` as one line of `events.jsonl`, flushed; the
/// line is left as it was (without `t_ms`).
fn write_line(events: &mut File, line: &mut serde_json::Value, t_ms: f64) -> std::io::Result<()> {
    let Some(fields) = line.as_object_mut() else { return Err(std::io::Error::other("an event is not a map")) };
    fields.insert("t_ms".into(), serde_json::json!(t_ms));
    let text = serde_json::to_string(&line);
    if let Some(fields) = line.as_object_mut() {
        fields.remove("t_ms");
    }
    events.write_all(text.map_err(std::io::Error::other)?.as_bytes())?;
    events.write_all(b"\n")?;
    events.flush()
}

/// The written line read back as the event observers get (`None` only if
/// redaction made a field unreadable; they then get the event as it was).
fn as_written(line: &serde_json::Value) -> Option<Event<'static>> {
    serde::Deserialize::deserialize(line).ok()
}

/// A text file of the run without its secrets: a dump in what a person reads of
/// it, a script as code (it stays runnable), anything else as text.
fn redacted_file(name: &str, text: &str) -> String {
    if name.ends_with(".xml") {
        return codeact_base::secrets::redact_dump(text).into_owned();
    } else if name.ends_with(".rhai") {
        return codeact_base::secrets::redact_code(text).into_owned();
    }
    codeact_base::secrets::redact(text).into_owned()
}

/// A run's events handed to an observer alone, nothing written to disk: how a
/// script run without `--trajectory` is still traced. Times are taken the way
/// [`Trajectory::append`] takes them, so a trace looks the same either way.
pub struct ObservedOnly {
    started: Instant,
    started_at: SystemTime,
    observer: Box<dyn EventObserver>,
}

impl ObservedOnly {
    pub fn new(observer: Box<dyn EventObserver>) -> Self {
        Self { started: Instant::now(), started_at: SystemTime::now(), observer }
    }

    pub fn append(&mut self, event: &Event) {
        let at = self.started_at + self.started.elapsed();
        let seen = redacted_line(event).ok().and_then(|line| as_written(&line));
        self.observer.event(seen.as_ref().unwrap_or(event), at);
    }
}

/// A sink that hands every recorded action to `observed` under step `step` (no
/// captures: nothing is kept).
pub fn observed_action_sink(observed: Arc<Mutex<ObservedOnly>>, step: usize) -> ActionSink {
    Box::new(move |action| lock(&observed).append(&Event::action(step, action, None, None)))
}

/// A trajectory several owners append to (the sandbox's action sink and the caller).
pub type SharedTrajectory = Arc<Mutex<Trajectory>>;

/// Locks a shared trajectory, or the events of a run traced without one (a
/// poisoned lock still holds a usable writer).
pub fn lock<T>(t: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    t.lock().unwrap_or_else(|e| e.into_inner())
}

/// A sink that appends every recorded action to `trajectory` under the step
/// `step()`; without `keep_captures` the actions' screenshots and dumps are not
/// written.
pub fn action_sink(
    trajectory: SharedTrajectory,
    step: Arc<dyn Fn() -> usize + Send + Sync>,
    keep_captures: bool,
) -> ActionSink {
    Box::new(move |action| lock(&trajectory).action(step(), action, keep_captures))
}

#[cfg(test)]
mod tests {
    use super::*;
    use codeact_engine::sandbox::Capture;

    #[test]
    fn events_and_captures_are_on_disk_as_soon_as_written() {
        let dir = std::env::temp_dir().join(format!("codeact-traj-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut t = Trajectory::create(&dir).unwrap();
        t.append(&Event::Start { script: "a.rhai".into(), device: "sim".into() });
        let action = Action {
            tool: "tap".into(),
            args: vec!["1".into()],
            result: "ok".into(),
            failure: None,
            started_ms: 1.0,
            duration_ms: 2.0,
            capture: Capture {
                screenshot: Some(Arc::from(&b"png"[..])),
                ui_xml: Some(Arc::from("<x/>")),
                target: None,
                name: None,
                effect: None,
                resolved: None,
                ..Capture::default()
            },
        };
        t.action(1, &action, true);
        let lines = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
        assert_eq!(lines.lines().count(), 2, "written before finish");
        assert!(lines.contains("\"screenshot\":\"screenshots/0001.png\""), "{lines}");
        assert!(lines.lines().all(|l| l.contains("\"t_ms\":")), "{lines}");
        assert_eq!(std::fs::read(dir.join("ui/0001.xml")).unwrap(), b"<x/>");
        assert!(matches!(Trajectory::create(&dir), Err(TrajectoryError::Exists(_))), "never overwritten");
        let out = t.finish(&serde_json::json!({ "outcome": "passed" })).unwrap();
        assert!(out.join("summary.json").is_file());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
