//! A run directory written as the run goes: `events.jsonl` (one JSON object per line,
//! flushed per event), `screenshots/NNNN.png` and `ui/NNNN.xml` for actions that
//! captured them, and `summary.json` at the end. A crash or a kill loses at most the
//! event in flight. This module writes files; it does not decide what to record.
//!
//! `junit.rs` turns script outcomes into a JUnit XML report.

pub mod export;
pub mod junit;

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{Value, json};

use crate::sandbox::{Action, ActionSink};

#[derive(Debug, thiserror::Error)]
#[error("trajectory {path}: {source}")]
pub struct TrajectoryError {
    path: PathBuf,
    source: std::io::Error,
}

/// An open run directory.
pub struct Trajectory {
    dir: PathBuf,
    events: File,
    started: Instant,
    /// Files written so far (numbering for screenshots and UI dumps).
    captures: usize,
    /// The first write error, reported at `finish` (recording never stops a run).
    failed: Option<TrajectoryError>,
}

impl Trajectory {
    /// Creates `dir` (and its parents); refuses a directory that already holds a run.
    pub fn create(dir: &Path) -> Result<Self, TrajectoryError> {
        let err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| TrajectoryError { path, source }
        };
        for sub in ["screenshots", "ui"] {
            std::fs::create_dir_all(dir.join(sub)).map_err(err(&dir.join(sub)))?;
        }
        let events_path = dir.join("events.jsonl");
        let events =
            std::fs::OpenOptions::new().write(true).create_new(true).open(&events_path).map_err(|e| {
                match e.kind() {
                    std::io::ErrorKind::AlreadyExists => TrajectoryError {
                        path: events_path.clone(),
                        source: std::io::Error::new(e.kind(), "already exists: pick a new directory for this run"),
                    },
                    _ => err(&events_path)(e),
                }
            })?;
        Ok(Self { dir: dir.to_path_buf(), events, started: Instant::now(), captures: 0, failed: None })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn note_failure(&mut self, path: PathBuf, result: std::io::Result<()>) {
        if let Err(source) = result
            && self.failed.is_none()
        {
            self.failed = Some(TrajectoryError { path, source });
        }
    }

    /// Appends one event: `{"t_ms": .., "event": kind, ...fields}`, flushed at once.
    pub fn event(&mut self, kind: &str, fields: Value) {
        let mut line = json!({ "t_ms": round(self.started.elapsed().as_secs_f64() * 1000.0), "event": kind });
        if let (Some(obj), Value::Object(extra)) = (line.as_object_mut(), fields) {
            obj.extend(extra);
        }
        let result = serde_json::to_writer(&mut self.events, &line)
            .map_err(std::io::Error::other)
            .and_then(|()| self.events.write_all(b"\n"))
            .and_then(|()| self.events.flush());
        self.note_failure(self.dir.join("events.jsonl"), result);
    }

    /// Writes an action's captures to files and appends its event.
    pub fn action(&mut self, step: usize, action: &Action) {
        let mut fields = json!({
            "step": step,
            "tool": action.tool,
            "args": action.args,
            "result": action.result,
            "started_ms": round(action.started_ms),
            "duration_ms": round(action.duration_ms),
        });
        if let Some(target) = &action.capture.target {
            fields["target"] = json!(target);
        }
        if action.capture.screenshot.is_some() || action.capture.ui_xml.is_some() {
            self.captures += 1;
        }
        let n = self.captures;
        if let Some(png) = &action.capture.screenshot {
            let rel = format!("screenshots/{n:04}.png");
            let result = std::fs::write(self.dir.join(&rel), png);
            self.note_failure(self.dir.join(&rel), result);
            fields["screenshot"] = json!(rel);
        }
        if let Some(xml) = &action.capture.ui_xml {
            let rel = format!("ui/{n:04}.xml");
            let result = std::fs::write(self.dir.join(&rel), xml.as_bytes());
            self.note_failure(self.dir.join(&rel), result);
            fields["ui"] = json!(rel);
        }
        self.event("action", fields);
    }

    /// Writes a file into the run directory whole (through a temporary name, so a
    /// reader never sees half of it).
    pub fn write_file(&mut self, name: &str, bytes: &[u8]) {
        let path = self.dir.join(name);
        let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let tmp = path.with_file_name(format!(".{file_name}.tmp"));
        let result = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, &path));
        self.note_failure(path, result);
    }

    /// Writes `summary.json` and reports the first write error of the run, if any.
    pub fn finish(&mut self, summary: &Value) -> Result<PathBuf, TrajectoryError> {
        let text = serde_json::to_vec_pretty(summary).unwrap_or_default();
        self.write_file("summary.json", &text);
        match self.failed.take() {
            Some(e) => Err(e),
            None => Ok(self.dir.clone()),
        }
    }
}

/// A trajectory several owners append to (the sandbox's action sink and the caller).
pub type SharedTrajectory = Arc<Mutex<Trajectory>>;

/// A sink that appends every recorded action to `trajectory` under the step `step()`;
/// without `keep_captures` the actions' screenshots and dumps are not written.
pub fn action_sink(
    trajectory: SharedTrajectory,
    step: Arc<dyn Fn() -> usize + Send + Sync>,
    keep_captures: bool,
) -> ActionSink {
    Box::new(move |action| {
        let mut t = trajectory.lock().unwrap_or_else(|e| e.into_inner());
        if keep_captures {
            t.action(step(), action);
        } else {
            let mut bare = action.clone();
            bare.capture.screenshot = None;
            bare.capture.ui_xml = None;
            t.action(step(), &bare);
        }
    })
}

/// Milliseconds to 0.01 ms: enough for timings, short in JSON.
fn round(ms: f64) -> f64 {
    (ms * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::Capture;

    #[test]
    fn events_and_captures_are_on_disk_as_soon_as_written() {
        let dir = std::env::temp_dir().join(format!("codeact-traj-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut t = Trajectory::create(&dir).unwrap();
        t.event("start", json!({ "script": "a.rhai" }));
        let action = Action {
            tool: "tap".into(),
            args: vec!["1".into()],
            result: "ok".into(),
            started_ms: 1.0,
            duration_ms: 2.0,
            capture: Capture {
                screenshot: Some(Arc::from(&b"png"[..])),
                ui_xml: Some(Arc::from("<x/>")),
                target: None,
            },
        };
        t.action(1, &action);
        let lines = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
        assert_eq!(lines.lines().count(), 2, "written before finish");
        assert!(lines.contains("\"screenshot\":\"screenshots/0001.png\""), "{lines}");
        assert_eq!(std::fs::read(dir.join("ui/0001.xml")).unwrap(), b"<x/>");
        assert!(Trajectory::create(&dir).is_err(), "a run directory is never overwritten");
        let out = t.finish(&json!({ "outcome": "passed" })).unwrap();
        assert!(out.join("summary.json").is_file());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
