//! The world's types: [`World`] itself and what it holds (tasks and their back stacks,
//! dialogs, focus, the screen's geometry, the packages installed besides the apps, the
//! failure triggers and the device log). Not what the world does (`mod.rs` and its
//! siblings' `impl World` blocks) nor the fixed names it uses (`names.rs`).

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::catalog::Catalog;
use super::template::{Record, Value};
use crate::shell::MemFs;

/// One activity on a back stack (of any app: an app may open another's screen).
#[derive(Debug, Clone)]
pub(crate) struct ScreenInstance {
    pub(crate) app: usize,
    pub(crate) screen: usize,
    pub(crate) param: String,
    pub(crate) scroll: i32,
}

/// A task: a back stack, bottom first, started by (and named after) its root app.
#[derive(Debug, Clone)]
pub(crate) struct Task {
    /// Stable id, as `t12` in `dumpsys activity`.
    pub(crate) id: u32,
    pub(crate) app: usize,
    pub(crate) stack: Vec<ScreenInstance>,
}

/// A dialog window over the foreground task.
#[derive(Debug, Clone)]
pub(crate) enum DialogInstance {
    /// A dialog declared by an app, remembering the record it was opened for.
    App { app: usize, dialog: usize, record: Option<(String, usize)> },
    /// The dialog injected by `simctl fault dialog KIND`, over the app it names.
    Fault { kind: FaultDialog, package: String, label: String },
}

/// The blockers `simctl fault dialog` can show, as real phones show them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultDialog {
    /// "System UI isn't responding": Wait, or Close app (goes home).
    Anr,
    /// "Google Play services keeps stopping": Close app, or Send feedback.
    Crash,
    /// The foreground app asks for a runtime permission: Allow or Don't allow
    /// (remembered as `permission.PACKAGE` = granted / denied).
    Permission,
    /// The foreground app asks for a rating: Not now, or Rate now (leaves the app).
    Rate,
    /// The foreground app offers an update: Later, or Update (leaves the app).
    Update,
}

impl FaultDialog {
    pub const ALL: [FaultDialog; 5] =
        [FaultDialog::Anr, FaultDialog::Crash, FaultDialog::Permission, FaultDialog::Rate, FaultDialog::Update];

    pub fn name(self) -> &'static str {
        match self {
            FaultDialog::Anr => "anr",
            FaultDialog::Crash => "crash",
            FaultDialog::Permission => "permission",
            FaultDialog::Rate => "rate",
            FaultDialog::Update => "update",
        }
    }

    pub fn parse(name: &str) -> Option<FaultDialog> {
        FaultDialog::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// What keyboard focus points at: an item of the top screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Focus {
    pub(crate) item: usize,
}

/// Screen size, density and look, fixed for a device's life.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Geometry {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) density: u32,
    pub(crate) look: crate::screen::Look,
}

impl Geometry {
    /// Device-independent pixels to screen pixels.
    pub(crate) fn dp(&self, dp: f32) -> i32 {
        (dp * self.density as f32 / 160.0).round() as i32
    }
}

#[derive(Debug, Clone)]
pub(crate) struct World {
    pub(crate) catalog: Arc<Catalog>,
    pub(crate) geometry: Geometry,
    pub(crate) state: BTreeMap<String, Value>,
    pub(crate) collections: BTreeMap<String, Vec<Record>>,
    /// Tasks, most recently used last; the last one is in the foreground.
    pub(crate) tasks: Vec<Task>,
    pub(crate) dialogs: Vec<DialogInstance>,
    pub(crate) focus: Option<Focus>,
    pub(crate) keyboard_shown: bool,
    pub(crate) ime: String,
    /// Settings the phone does not model, kept as text (`namespace/key`).
    pub(crate) other_settings: BTreeMap<String, String>,
    /// Packages installed on the phone besides its apps: the test frameworks'
    /// own it can play (`commands/android/install.rs`), by package.
    pub(crate) installed: BTreeMap<String, Manifest>,
    /// Appium's settings helper runs its foreground service.
    pub(crate) helper_running: bool,
    /// `simctl fault dialog KIND`: show that dialog at the next screen change.
    pub(crate) fault_dialog_armed: Option<FaultDialog>,
    /// `simctl slow-ui MS`: screen changes animate over this long.
    pub(crate) slow_ui: Duration,
    /// When the last screen change started (for slow-ui).
    pub(crate) changed_at: Option<Instant>,
    pub(super) next_task_id: u32,
    /// `input motionevent DOWN` waiting for its UP: where and when.
    pub(crate) touch_down: Option<(i32, i32, Instant)>,
    /// The focused field's text is selected (Ctrl+A): the next delete or typed text
    /// replaces all of it.
    pub(crate) all_selected: bool,
    /// `simctl fault crash-on|anr-on`: widgets that make their app fail.
    pub(crate) crash_on: Vec<Trigger>,
    /// What `logcat` prints.
    pub(crate) log: LogBuffer,
    /// The phone's files (shared with its shell): the Files app lists and changes them.
    pub(crate) fs: Arc<MemFs>,
    /// When the device clock read [`BOOT_TIME_SECS`](super::BOOT_TIME_SECS).
    pub(super) booted: Instant,
}

/// The manifest facts the phone keeps of an installed package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Manifest {
    pub(crate) package: String,
    pub(crate) version_code: u32,
    pub(crate) version_name: String,
}

/// How an app fails when its trigger is tapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Failure {
    Crash,
    Anr,
}

impl Failure {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Failure::Crash => "crash-on",
            Failure::Anr => "anr-on",
        }
    }
}

/// A widget that makes its app fail: its resource id (bare or `PACKAGE:id/NAME`),
/// its text or its content description, on any screen of the package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Trigger {
    pub(crate) package: String,
    pub(crate) widget: String,
    pub(crate) failure: Failure,
}

/// At most this many triggers: a fault list, not a program.
pub(crate) const MAX_TRIGGERS: usize = 32;

/// One line of the device log.
#[derive(Debug, Clone)]
pub(crate) struct LogLine {
    /// Device clock, milliseconds since the epoch.
    pub(crate) at_ms: i64,
    pub(crate) pid: u32,
    pub(crate) level: char,
    pub(crate) tag: String,
    pub(crate) message: String,
}

/// The device log: the newest [`LogBuffer::CAPACITY`] lines.
#[derive(Debug, Clone, Default)]
pub(crate) struct LogBuffer {
    pub(crate) lines: VecDeque<LogLine>,
}

impl LogBuffer {
    pub(crate) const CAPACITY: usize = 4096;

    pub(crate) fn push(&mut self, line: LogLine) {
        if self.lines.len() == Self::CAPACITY {
            self.lines.pop_front();
        }
        self.lines.push_back(line);
    }
}
