//! The world inside the virtual device: installed apps (from data files), their
//! state, the task back stacks, dialogs, focus and the keyboard.
//!
//! `World` answers "what is on screen" (`layout.rs` → [`Screen`]) and "what does this
//! input do" (`input.rs`, `actions.rs`). It knows nothing of ADB or shells; the device
//! (`device.rs`) turns command lines into calls on it.

pub(crate) mod actions;
mod canvas;
pub(crate) mod files;
pub(crate) mod input;
pub(crate) mod layout;
pub(crate) mod misbehave;
pub(crate) mod spec;
pub(crate) mod template;
pub(crate) mod variant;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

pub(crate) use input::CLIPBOARD;
pub(crate) use spec::AppSpec;
pub use spec::SpecError;
use spec::WorldSpec;
pub(crate) use template::Record;
pub(crate) use template::Value;
pub use variant::MAX_VARIANT;

use super::screen::Screen;
use crate::shell::MemFs;

/// The device's wall clock when it boots (and after `simctl reset`): Sunday
/// 2023-10-15 15:34:00 UTC, the date AndroidWorld's tasks assume. It runs from there,
/// so tasks that speak of "today" or "tomorrow" mean the same days on every run.
pub(crate) const BOOT_TIME_SECS: i64 = 1_697_384_040;

/// The data files compiled into the binary (`data/world.toml`, `data/apps/*.toml`).
const BUNDLED: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/bundled_world.rs"));

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

/// The parsed, checked data files; shared and never changed at run time.
#[derive(Debug)]
pub(crate) struct Catalog {
    pub(crate) world: WorldSpec,
    pub(crate) apps: Vec<AppSpec>,
    pub(crate) initial_state: BTreeMap<String, Value>,
}

impl Catalog {
    /// The world compiled into the binary.
    pub(crate) fn bundled() -> Result<Self, SpecError> {
        Self::from_files(BUNDLED.iter().map(|(name, text)| (name.to_string(), text.to_string())).collect())
    }

    /// A world from a folder holding `world.toml` and `apps/*.toml`.
    pub(crate) fn from_dir(dir: &Path) -> Result<Self, SpecError> {
        let read = |path: &Path| {
            std::fs::read_to_string(path).map_err(|source| SpecError::Read { file: path.display().to_string(), source })
        };
        let mut files = vec![("world.toml".to_string(), read(&dir.join("world.toml"))?)];
        let apps_dir = dir.join("apps");
        let entries = std::fs::read_dir(&apps_dir)
            .map_err(|source| SpecError::Read { file: apps_dir.display().to_string(), source })?;
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "toml")) {
            let name = format!("apps/{}", path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default());
            files.push((name, read(&path)?));
        }
        Self::from_files(files)
    }

    fn from_files(files: Vec<(String, String)>) -> Result<Self, SpecError> {
        let mut world = None;
        let mut apps: Vec<AppSpec> = Vec::new();
        for (name, text) in files {
            let parse_err = |e: toml::de::Error| SpecError::Parse { file: name.clone(), message: e.to_string() };
            if name == "world.toml" {
                world = Some(toml::from_str::<WorldSpec>(&text).map_err(parse_err)?);
            } else {
                let app: AppSpec = toml::from_str(&text).map_err(parse_err)?;
                app.validate(&name)?;
                if apps.iter().any(|a| a.package == app.package) {
                    return Err(SpecError::Invalid {
                        file: name,
                        message: format!("package {} declared twice", app.package),
                    });
                }
                apps.push(app);
            }
        }
        let world = world.ok_or_else(|| SpecError::Invalid {
            file: "world.toml".into(),
            message: "missing: the world folder needs world.toml beside apps/".into(),
        })?;
        if !apps.iter().any(|a| a.package == LAUNCHER_PACKAGE) {
            return Err(SpecError::Invalid {
                file: "apps/".into(),
                message: format!("no app declares package {LAUNCHER_PACKAGE} (the home screen)"),
            });
        }
        let mut initial_state = BTreeMap::new();
        spec::flatten_state(&world.state, "", &mut initial_state)
            .map_err(|e| SpecError::Invalid { file: "world.toml".into(), message: e.to_string() })?;
        Ok(Self { world, apps, initial_state })
    }

    pub(crate) fn app_index(&self, package: &str) -> Option<usize> {
        self.apps.iter().position(|a| a.package == package)
    }

    /// The app, activity and parameter a link opens: the first declared prefix the
    /// URI starts with (`sms:张三` → Messages' conversation with 张三).
    pub(crate) fn link_for(&self, uri: &str) -> Option<(usize, String, String)> {
        self.apps.iter().enumerate().find_map(|(app, spec)| {
            spec.links.iter().find_map(|link| {
                let rest = uri.strip_prefix(link.prefix.as_str())?;
                Some((app, link.activity.clone(), rest.to_string()))
            })
        })
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

/// What `am start` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ActivityStart {
    Launched,
    /// The activity is the root of an existing task, which came to the front.
    BroughtToFront,
    NotFound,
}

/// The JSON `simctl state` prints.
#[derive(Debug, Serialize)]
pub(crate) struct StateReport {
    pub(crate) foreground_package: String,
    pub(crate) activity: String,
    pub(crate) keyboard_shown: bool,
    /// A slow-ui animation is still settling.
    pub(crate) animating: bool,
    pub(crate) focused: Option<String>,
    pub(crate) dialog: Option<String>,
    pub(crate) ime: String,
    pub(crate) settings: BTreeMap<String, Value>,
    #[serde(flatten)]
    pub(crate) collections: BTreeMap<String, serde_json::Value>,
    pub(crate) values: BTreeMap<String, Value>,
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

    /// `pm clear`: the app stops and forgets its data (its collections emptied, its
    /// state keys back to their first values).
    pub(crate) fn clear_app_data(&mut self, app: usize) {
        self.force_stop(app);
        let Some(spec) = self.catalog.apps.get(app) else { return };
        let data = spec.data.clone();
        for entry in &data {
            if let Some(records) = self.collections.get_mut(entry) {
                records.clear();
                continue;
            }
            let prefix = entry.ends_with('.') || entry.ends_with('_');
            let keys: Vec<String> = self
                .catalog
                .initial_state
                .keys()
                .filter(|k| if prefix { k.starts_with(entry.as_str()) } else { *k == entry })
                .cloned()
                .collect();
            for key in keys {
                if let Some(first) = self.catalog.initial_state.get(&key).cloned() {
                    self.state.insert(key, first);
                }
            }
        }
        self.screen_changed();
    }

    /// `simctl set`: a state value, typed as `set` types it (booleans; a number where
    /// the key holds one).
    pub(crate) fn set_value(&mut self, key: &str, text: &str) {
        let value = match (self.state.get(key), text.parse::<i64>()) {
            (Some(Value::Int(_)), Ok(n)) => Value::Int(n),
            _ => match text {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => Value::Str(text.to_string()),
            },
        };
        self.write(key, value, &None);
    }

    /// `simctl add`: a record at the end of a declared collection (false: no such one).
    pub(crate) fn add_record(&mut self, collection: &str, record: Record) -> bool {
        let Some(records) = self.collections.get_mut(collection) else { return false };
        records.push(record);
        self.screen_changed();
        true
    }

    /// `simctl empty`: a declared collection without records (false: no such one).
    pub(crate) fn empty_collection(&mut self, collection: &str) -> bool {
        let Some(records) = self.collections.get_mut(collection) else { return false };
        records.clear();
        self.screen_changed();
        true
    }

    /// Back to the initial world, keeping geometry and the data files.
    pub(crate) fn reset(&mut self) {
        *self = World::new(self.catalog.clone(), self.geometry, self.fs.clone());
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

    /// Marks a visible change: arms slow-ui animation and the fault dialog.
    pub(crate) fn screen_changed(&mut self) {
        self.changed_at = Some(Instant::now());
        if let Some(kind) = self.fault_dialog_armed.take() {
            let (package, label) = match (kind, self.top()) {
                (FaultDialog::Anr, _) => ("com.android.systemui".to_string(), "System UI".to_string()),
                (FaultDialog::Crash, _) => ("com.google.android.gms".to_string(), "Google Play services".to_string()),
                (_, Some((app, _, _))) => (app.package.clone(), app.label.clone()),
                (_, None) => ("com.android.vending".to_string(), "Google Play Store".to_string()),
            };
            self.dialogs.push(DialogInstance::Fault { kind, package, label });
        }
    }

    fn leave_screen(&mut self) {
        self.focus = None;
        self.keyboard_shown = false;
        // App dialogs belong to the screen; the injected system dialog stays.
        self.dialogs.retain(|d| matches!(d, DialogInstance::Fault { .. }));
    }

    fn new_task(&mut self, app: usize, first: ScreenInstance) {
        let id = self.next_task_id;
        self.next_task_id += 1;
        self.tasks.push(Task { id, app, stack: vec![first] });
    }

    /// Shows the home screen (the launcher task in front).
    pub(crate) fn go_home(&mut self) {
        let Some(launcher) = self.catalog.app_index(LAUNCHER_PACKAGE) else { return };
        self.leave_screen();
        if let Some(pos) = self.tasks.iter().position(|t| t.app == launcher) {
            let task = self.tasks.remove(pos);
            self.tasks.push(task);
        } else if let Some(activity) = self.catalog.apps[launcher].launcher.clone()
            && let Some((screen, _)) = self.catalog.apps[launcher].screen(&activity)
        {
            self.new_task(launcher, ScreenInstance { app: launcher, screen, param: String::new(), scroll: 0 });
        }
        self.screen_changed();
    }

    /// Brings the app's task to the front, starting it at its launcher activity when
    /// it has none. Returns false when the app has no launcher activity.
    pub(crate) fn launch(&mut self, app: usize) -> bool {
        if let Some(pos) = self.tasks.iter().position(|t| t.app == app) {
            self.leave_screen();
            let task = self.tasks.remove(pos);
            self.tasks.push(task);
            self.screen_changed();
            self.arrive(false);
            return true;
        }
        let Some(activity) = self.catalog.apps.get(app).and_then(|a| a.launcher.clone()) else { return false };
        self.start_activity(app, &activity, String::new()) != ActivityStart::NotFound
    }

    /// `am start -n`: the activity in its app's task (created if needed); an activity
    /// that is already its task's root brings that task to the front instead.
    pub(crate) fn start_activity(&mut self, app: usize, activity: &str, param: String) -> ActivityStart {
        let Some(screen) = self.catalog.apps.get(app).and_then(|a| a.screen(activity)).map(|(i, _)| i) else {
            return ActivityStart::NotFound;
        };
        let inst = ScreenInstance { app, screen, param, scroll: 0 };
        match self.tasks.iter().position(|t| t.app == app) {
            Some(pos) if self.tasks[pos].stack.first().is_some_and(|root| root.screen == screen && root.app == app) => {
                self.launch(app);
                return ActivityStart::BroughtToFront;
            }
            Some(pos) => {
                self.leave_screen();
                let mut task = self.tasks.remove(pos);
                task.stack.push(inst);
                self.tasks.push(task);
            }
            None => {
                self.leave_screen();
                self.new_task(app, inst);
            }
        }
        self.screen_changed();
        self.arrive(true);
        ActivityStart::Launched
    }

    /// An app opening a screen (its own or another app's) on the current task.
    pub(crate) fn push_screen(&mut self, app: usize, activity: &str, param: String) -> bool {
        let Some(screen) = self.catalog.apps.get(app).and_then(|a| a.screen(activity)).map(|(i, _)| i) else {
            return false;
        };
        let Some(task) = self.tasks.last_mut() else { return false };
        task.stack.push(ScreenInstance { app, screen, param, scroll: 0 });
        self.leave_screen();
        self.screen_changed();
        self.arrive(true);
        true
    }

    /// What a screen does when it shows: on first arrival its `on_open` actions and
    /// autofocus; every time, its one-time dialog while the condition holds.
    fn arrive(&mut self, fresh: bool) {
        let Some((app, screen, _)) = self.top() else { return };
        if fresh {
            let shown = format!(
                "Displayed {} for user 0: +180ms",
                short_component(&app.package, &app.full_activity(&screen.activity))
            );
            self.log(1000, 'I', "ActivityTaskManager", &shown);
        }
        let Some((app, screen, _)) = self.top() else { return };
        let on_open = screen.on_open.clone();
        let autofocus = screen.autofocus.clone();
        let dialog = match (&screen.dialog, &screen.dialog_when) {
            (Some(name), Some(cond)) if self.scope(None, None).holds(cond) => app.dialog_index(name),
            (Some(name), None) => app.dialog_index(name),
            _ => None,
        };
        let app_index = self.top_app().unwrap_or(0);
        if fresh && let Some(script) = on_open {
            self.run_actions(&script, None);
        }
        if let Some(dialog) = dialog {
            self.dialogs.push(DialogInstance::App { app: app_index, dialog, record: None });
        }
        if fresh
            && let Some(id) = autofocus
            && let Some((_, screen, _)) = self.top()
            && let Some(item) = screen.items.iter().position(|i| i.id == id)
        {
            self.focus = Some(Focus { item });
            self.keyboard_shown = true;
        }
    }

    /// KEYCODE_BACK: hide the keyboard, else close a dialog, else pop the stack; a
    /// root activity goes to the home screen (its task stays, as on Android 12+).
    pub(crate) fn back(&mut self) {
        if self.keyboard_shown {
            self.keyboard_shown = false;
            self.screen_changed();
            return;
        }
        if self.dialogs.pop().is_some() {
            self.screen_changed();
            return;
        }
        self.finish_activity();
    }

    /// Closes the top activity (what an app's own "back"/"up"/"save" does); the root
    /// activity of a task leaves for the home screen (the task stays, as on Android 12+).
    pub(crate) fn finish_activity(&mut self) {
        let launcher = self.catalog.app_index(LAUNCHER_PACKAGE);
        let Some(task) = self.tasks.last_mut() else { return };
        if task.stack.len() > 1 {
            task.stack.pop();
            self.leave_screen();
            self.screen_changed();
            self.arrive(false);
        } else if Some(task.app) != launcher {
            self.go_home();
        }
    }

    /// `am force-stop`: the app's task and its screens in other tasks are gone.
    pub(crate) fn force_stop(&mut self, app: usize) {
        let was_front = self.top_app() == Some(app);
        self.tasks.retain(|t| t.app != app);
        for task in &mut self.tasks {
            task.stack.retain(|i| i.app != app);
        }
        self.tasks.retain(|t| !t.stack.is_empty());
        if was_front {
            self.go_home();
        }
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

    /// A collection's records: the world's own, or for `files` every file and folder
    /// under /sdcard, read from the file system each time (so `adb push` and the Files
    /// app agree).
    pub(crate) fn records(&self, source: &str) -> std::borrow::Cow<'_, [Record]> {
        if source == FILES {
            return std::borrow::Cow::Owned(files::records(&self.fs));
        }
        std::borrow::Cow::Borrowed(self.collections.get(source).map(Vec::as_slice).unwrap_or(&[]))
    }

    /// One record of a collection (computed ones included).
    pub(crate) fn record(&self, source: &str, index: usize) -> Option<Record> {
        self.records(source).get(index).cloned()
    }

    /// For a screen with a `source`: the record its parameter points at.
    pub(crate) fn screen_record(&self) -> Option<(usize, &Record)> {
        let (_, screen, inst) = self.top()?;
        let source = screen.source.as_ref()?;
        let index: usize = inst.param.parse().ok()?;
        self.collections.get(source)?.get(index).map(|r| (index, r))
    }

    /// The JSON report `simctl state` prints.
    pub(crate) fn report(&self) -> StateReport {
        let settings = self
            .state
            .iter()
            .filter_map(|(k, v)| k.strip_prefix("settings.").map(|s| (s.to_string(), v.clone())))
            .collect();
        let values = self
            .state
            .iter()
            .filter(|(k, _)| !k.starts_with("settings."))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let files = (FILES.to_string(), self.records(FILES).into_owned());
        let collections = self
            .collections
            .iter()
            .chain(std::iter::once((&files.0, &files.1)))
            .map(|(name, records)| {
                let json = match self.catalog.world.export_field.get(name) {
                    Some(field) => serde_json::Value::Array(
                        records
                            .iter()
                            .map(|r| serde_json::json!(r.get(field).map(|v| v.to_string()).unwrap_or_default()))
                            .collect(),
                    ),
                    None => serde_json::to_value(records).unwrap_or(serde_json::Value::Null),
                };
                (name.clone(), json)
            })
            .collect();
        let focused =
            self.focus.and_then(|f| self.top().and_then(|(_, s, _)| s.items.get(f.item)).map(|i| i.id.clone()));
        let dialog = self.dialogs.last().map(|d| match d {
            DialogInstance::Fault { kind, .. } => format!("fault:{}", kind.name()),
            DialogInstance::App { app, dialog, .. } => self
                .catalog
                .apps
                .get(*app)
                .and_then(|a| a.dialogs.get(*dialog))
                .map(|d| d.name.clone())
                .unwrap_or_default(),
        });
        StateReport {
            foreground_package: self.foreground_package(),
            activity: self.activity(),
            keyboard_shown: self.keyboard_shown,
            animating: self.animating(),
            focused,
            dialog,
            ime: self.ime.clone(),
            settings,
            collections,
            values,
        }
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
