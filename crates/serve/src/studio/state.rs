//! The studio's shared state: where it reads and writes files, its session, what
//! the page is shown, the recording, its run folder, and what a page's call
//! answers. Every part of the studio reads these; nothing here serves, acts or
//! records (`routes.rs`, `act.rs` and `run.rs`, `record.rs`).

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

use axum::http::StatusCode;
use codeact_engine::sandbox::Action;
use codeact_runtime::session::Session;

use crate::served::Record;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::live::Live;

/// Where the studio reads and writes files.
#[derive(Debug, Clone)]
pub struct StudioOptions {
    /// Recordings are saved below this folder (relative paths only).
    pub save_dir: PathBuf,
    /// Run folders (`codeact run`, `exec --trajectory`, `eval`, `explore`, `mcp`)
    /// are listed for replay from below this folder.
    pub runs_dir: PathBuf,
    /// The gallery reference pictures are cut into (`codeact assets`).
    pub assets_dir: PathBuf,
}

/// The studio: its session, what the page is shown, and the recording.
pub struct Studio {
    pub(super) session: Mutex<Session>,
    pub(super) live: Live,
    pub(super) recording: Mutex<Recording>,
    pub(super) options: StudioOptions,
    pub(super) token: String,
    pub(super) port: u16,
    pub(super) stop: CancellationToken,
    /// The studio's own run folder, made at its first act: every act and console
    /// snippet a step, as any mode's (`served.rs`).
    pub(super) record: Mutex<RunFolder>,
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Studio {
    /// Runs `f` with the session (the live thread and the page take turns).
    pub(super) fn with_session<T>(&self, f: impl FnOnce(&mut Session) -> T) -> T {
        f(&mut lock(&self.session))
    }

    pub(super) fn recording(&self) -> MutexGuard<'_, Recording> {
        lock(&self.recording)
    }
}

/// The studio's run folder: not made yet (no act so far), being written, or
/// refused once (said in the log; the studio acts on unrecorded, never asking again).
pub enum RunFolder {
    Unopened,
    Open(Box<Record>),
    Refused,
}

/// The most lines one recording keeps.
const MOST_LINES: usize = 10_000;

/// What has been recorded.
#[derive(Default)]
pub struct Recording {
    pub on: bool,
    pub(super) lines: Vec<String>,
    /// The calls the recorded lines made, for a Maestro flow.
    pub(super) actions: Vec<Action>,
    /// The app the recording started in, or first opened.
    pub app: Option<String>,
    /// The last recorded act changed the screen: the next selector waits for it.
    pub screen_changed: bool,
}

impl Recording {
    /// Adds a line (and the calls it made), when recording.
    pub fn add(&mut self, line: String, actions: &[Action]) -> bool {
        if !self.on || self.lines.len() >= MOST_LINES {
            return false;
        }
        self.lines.push(line);
        self.actions.extend(actions.iter().cloned());
        true
    }

    /// The script as it would be saved.
    pub fn script(&self) -> String {
        let mut out = String::from("// Recorded with codeact studio.\n");
        for line in &self.lines {
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}

/// What a call answers: its JSON, or a status and what went wrong.
pub type CallResult = Result<Value, (StatusCode, String)>;
