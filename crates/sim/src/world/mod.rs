//! The world inside the virtual device: installed apps (from data files), their state, the
//! task back stacks, dialogs, focus and the keyboard; here what is on top (the types are
//! `model.rs`'s, the fixed names `names.rs`'s).
//! It answers "what is on screen" (`layout`) and "what does this input do" (`input`,
//! `actions`), and knows nothing of ADB or shells (`device/` turns lines into calls on it).

pub(crate) mod actions;
mod canvas;
mod catalog;
mod data;
pub(crate) mod files;
pub(crate) mod input;
pub(crate) mod layout;
pub(crate) mod misbehave;
mod model;
mod names;
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
pub use model::FaultDialog;
use model::LogBuffer;
pub(crate) use model::{Geometry, Manifest, ScreenInstance, World};
pub(crate) use names::{ADB_KEYBOARD_IME, BOOT_TIME_SECS, LATIN_IME, LAUNCHER_PACKAGE, PORTAL_IME, short_component};
pub(crate) use navigation::ActivityStart;
pub(crate) use spec::AppSpec;
pub use spec::SpecError;
pub(crate) use template::Record;
pub(crate) use template::Value;
pub use variant::MAX_VARIANT;

use super::screen::Screen;
use crate::shell::MemFs;

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
            log: LogBuffer::default(),
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
