//! The world inside the virtual device: installed apps (from data files), their state, the
//! task back stacks, dialogs, focus and the keyboard; here the types and what is on top.
//! It answers "what is on screen" (`layout`) and "what does this input do" (`input`,
//! `actions`), and knows nothing of ADB or shells (`device.rs` turns lines into calls on it).

pub(crate) mod actions;
mod canvas;
mod catalog;
mod data;
pub(crate) mod files;
pub(crate) mod input;
pub(crate) mod layout;
pub(crate) mod misbehave;
mod navigation;
mod report;
pub(crate) mod spec;
pub(crate) mod template;
pub(crate) mod variant;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub(crate) use catalog::Catalog;
pub(crate) use input::CLIPBOARD;
pub(crate) use navigation::ActivityStart;
pub(crate) use spec::AppSpec;
pub use spec::SpecError;
pub(crate) use template::Record;
pub(crate) use template::Value;
pub use variant::MAX_VARIANT;

use super::screen::Screen;
use crate::shell::MemFs;

/// The device's wall clock when it boots (and after `simctl reset`): Sunday
/// 2023-10-15 15:34:00 UTC, the date AndroidWorld's tasks assume. It runs from there,
/// so tasks that speak of "today" or "tomorrow" mean the same days on every run.
pub(crate) const BOOT_TIME_SECS: i64 = 1_697_384_040;

/// The computed collection of files under /sdcard (see `files.rs`).
pub(crate) const FILES: &str = "files";
pub(crate) const LAUNCHER_PACKAGE: &str = "com.android.launcher3";
pub(crate) const ADB_KEYBOARD_IME: &str = "com.android.adbkeyboard/.AdbIME";
pub(crate) const LATIN_IME: &str = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME";
/// The mobilerun Portal's keyboard (its `/keyboard/*` endpoints type through it).
pub(crate) const PORTAL_IME: &str = "com.droidrun.portal/.DroidrunKeyboardIME";

/// `com.pkg/.Act` as ActivityRecord prints a component (short form when the class is
/// inside the package).
pub(crate) fn short_component(package: &str, activity: &str) -> String {
    match activity.strip_prefix(package) {
        Some(rest) if rest.starts_with('.') => format!("{package}/{rest}"),
        _ => format!("{package}/{activity}"),
    }
}

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
    pub(crate) installed: BTreeMap<String, crate::apk::manifest_read::Manifest>,
    /// Appium's settings helper runs its foreground service.
    pub(crate) helper_running: bool,
    /// `simctl fault dialog KIND`: show that dialog at the next screen change.
    pub(crate) fault_dialog_armed: Option<FaultDialog>,
    /// `simctl slow-ui MS`: screen changes animate over this long.
    pub(crate) slow_ui: Duration,
    /// When the last screen change started (for slow-ui).
    pub(crate) changed_at: Option<Instant>,
    next_task_id: u32,
    /// `input motionevent DOWN` waiting for its UP: where and when.
    pub(crate) touch_down: Option<(i32, i32, Instant)>,
    /// The focused field's text is selected (Ctrl+A): the next delete or typed text
    /// replaces all of it.
    pub(crate) all_selected: bool,
    /// `simctl fault crash-on|anr-on`: widgets that make their app fail.
    pub(crate) crash_on: Vec<misbehave::Trigger>,
    /// What `logcat` prints.
    pub(crate) log: misbehave::LogBuffer,
    /// The phone's files (shared with its shell): the Files app lists and changes them.
    pub(crate) fs: Arc<MemFs>,
    /// When the device clock read [`BOOT_TIME_SECS`].
    booted: Instant,
}

impl World {
    pub(crate) fn new(catalog: Arc<Catalog>, geometry: Geometry, fs: Arc<MemFs>) -> Self {
        let collections =
            catalog.world.collections.iter().map(|(k, v)| (k.clone(), v.clone())).collect::<BTreeMap<_, _>>();
        let state = catalog.initial_state.clone();
        let mut world = Self {
            catalog,
            geometry,
            state,
            collections,
            tasks: Vec::new(),
            dialogs: Vec::new(),
            focus: None,
            keyboard_shown: false,
            ime: ADB_KEYBOARD_IME.to_string(),
            other_settings: BTreeMap::new(),
            installed: BTreeMap::new(),
            helper_running: false,
            fault_dialog_armed: None,
            slow_ui: Duration::ZERO,
            changed_at: None,
            next_task_id: 10,
            touch_down: None,
            all_selected: false,
            crash_on: Vec::new(),
            log: misbehave::LogBuffer::default(),
            fs,
            booted: Instant::now(),
        };
        world.go_home();
        world
    }

    /// Back to the initial world, keeping geometry and the data files.
    pub(crate) fn reset(&mut self) {
        // Packages installed stay installed, as on a phone whose data is reset.
        let installed = std::mem::take(&mut self.installed);
        *self = World::new(self.catalog.clone(), self.geometry, self.fs.clone());
        self.installed = installed;
    }

    pub(crate) fn top(&self) -> Option<(&AppSpec, &spec::ScreenSpec, &ScreenInstance)> {
        let inst = self.tasks.last()?.stack.last()?;
        let app = self.catalog.apps.get(inst.app)?;
        Some((app, app.screens.get(inst.screen)?, inst))
    }

    /// The app index of the screen on top.
    pub(crate) fn top_app(&self) -> Option<usize> {
        self.tasks.last()?.stack.last().map(|i| i.app)
    }

    pub(crate) fn foreground_package(&self) -> String {
        self.top().map(|(a, _, _)| a.package.clone()).unwrap_or_default()
    }

    /// The full class name of the resumed activity.
    pub(crate) fn activity(&self) -> String {
        self.top().map(|(a, s, _)| a.full_activity(&s.activity)).unwrap_or_default()
    }

    /// The template scope of the top screen (optionally for one record of a list).
    pub(crate) fn scope<'a>(&'a self, record: Option<&'a Record>, index: Option<usize>) -> template::Scope<'a> {
        let param = self.top().map(|(_, _, i)| i.param.as_str()).unwrap_or("");
        let record = record.or_else(|| self.screen_record().map(|(_, r)| r));
        let index = index.or_else(|| self.screen_record().map(|(i, _)| i));
        template::Scope { state: &self.state, record, index, param, now: self.now_secs() }
    }

    /// The device clock: seconds since the Unix epoch, starting at [`BOOT_TIME_SECS`].
    pub(crate) fn now_secs(&self) -> i64 {
        BOOT_TIME_SECS + i64::try_from(self.booted.elapsed().as_secs()).unwrap_or(0)
    }

    /// What is on screen now, laid out (with the slow-ui animation applied).
    pub(crate) fn screen(&self) -> Screen {
        layout::build(self)
    }

    /// True while a slow-ui animation is still running.
    pub(crate) fn animating(&self) -> bool {
        self.animation_left().is_some()
    }

    /// How long the slow-ui animation running now has left, if one runs.
    pub(crate) fn animation_left(&self) -> Option<Duration> {
        let at = self.changed_at?;
        Some(self.slow_ui.checked_sub(at.elapsed())?).filter(|left| !left.is_zero())
    }
}
