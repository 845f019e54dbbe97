//! The one interface through which the runtime acts on a phone: the blocking
//! [`Device`] trait, what an observation holds, and the typed errors every operation
//! returns. `adb.rs` implements it for Android over ADB; `connect.rs` chooses and
//! opens a device from `--device`.
//!
//! This module knows nothing of Rhai, prompts or the agent loop.

pub mod adb;
pub mod connect;
pub mod transport;

use std::time::Duration;

use serde::Serialize;

pub use adb::AdbDevice;
pub use connect::{DeviceSpec, open};

use crate::ui::UiTree;

/// Foreground app, keyboard and focus, as the device reports them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PhoneState {
    pub package: String,
    /// Fully qualified activity class (`com.android.settings.Settings`).
    pub activity: String,
    pub keyboard_shown: bool,
    /// The focused element's id in the tree, if any element has focus.
    pub focused: Option<usize>,
}

/// Everything one observation reads, in one round trip.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Observation {
    pub ui: UiTree,
    pub phone: PhoneState,
    /// Screen size in pixels (`wm size`, override first).
    pub screen: (u32, u32),
    /// The hierarchy dump as the device printed it (kept for trajectories).
    #[serde(skip)]
    pub dump: String,
}

impl Observation {
    /// The compact screen text the LLM reads (and `observe`, `:state` print):
    /// the phone line, then one indexed line per element `ui_state` lists.
    pub fn screen_text(&self) -> String {
        let p = &self.phone;
        crate::ui::render::render(&self.ui, &p.package, &p.activity, p.keyboard_shown)
    }
}

/// Why a device operation failed: always names the device and the operation.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    #[error("{device}: {op} timed out after {secs:.1} s; the device may be busy or gone (check `adb devices`)")]
    Timeout { device: String, op: String, secs: f64 },
    #[error("{device}: {op} failed: the connection was lost; reconnect the device (`adb devices`), then retry")]
    Disconnected { device: String, op: String },
    #[error("{device}: {op} failed: {message}")]
    Command { device: String, op: String, message: String },
    #[error("{device}: cannot type {text:?}: {reason}")]
    TextInput { device: String, text: String, reason: String },
    #[error("{device}: package {package} is not installed (see `pm list packages`)")]
    NotInstalled { device: String, package: String },
    #[error("unknown key {0:?}; use back, home, enter, delete, tab, space, a KEYCODE_* name or a number")]
    UnknownKey(String),
    #[error("{device}: the hierarchy dump could not be read: {source}")]
    Ui { device: String, source: crate::ui::ParseError },
    #[error("{0}")]
    Connect(String),
}

/// A phone the runtime can observe and act on. Blocking; every call is bounded by
/// the device's timeout.
pub trait Device: Send {
    /// A short name for messages (`127.0.0.1:15037`, a serial, `sim`).
    fn name(&self) -> &str;
    /// UI tree, foreground app, keyboard, focus and screen size in one round trip.
    fn observe(&mut self) -> Result<Observation, DeviceError>;
    /// The screen as PNG bytes.
    fn screenshot(&mut self) -> Result<Vec<u8>, DeviceError>;
    fn tap(&mut self, x: i32, y: i32) -> Result<(), DeviceError>;
    fn long_press(&mut self, x: i32, y: i32, ms: u32) -> Result<(), DeviceError>;
    fn swipe(&mut self, x1: i32, y1: i32, x2: i32, y2: i32, ms: u32) -> Result<(), DeviceError>;
    fn drag(&mut self, x1: i32, y1: i32, x2: i32, y2: i32, ms: u32) -> Result<(), DeviceError>;
    /// Types into the focused field: any Unicode text.
    fn input_text(&mut self, text: &str) -> Result<(), DeviceError>;
    fn clear_text(&mut self) -> Result<(), DeviceError>;
    /// `back`, `home`, `enter`, `delete`, `KEYCODE_*` or a number.
    fn press_key(&mut self, key: &str) -> Result<(), DeviceError>;
    fn go_home(&mut self) -> Result<(), DeviceError> {
        self.press_key("home")
    }
    /// Starts an app (its launcher activity unless one is given).
    fn start_app(&mut self, package: &str, activity: Option<&str>) -> Result<(), DeviceError>;
    /// Force-stops an app (`am force-stop`).
    fn stop_app(&mut self, package: &str) -> Result<(), DeviceError>;
    /// Installed packages; third-party only unless `system`.
    fn list_packages(&mut self, system: bool) -> Result<Vec<String>, DeviceError>;
    /// Runs a raw shell command (for tools and diagnostics), within the timeout.
    fn shell(&mut self, command: &str) -> Result<transport::ShellOutput, DeviceError>;
    /// The per-operation timeout.
    fn timeout(&self) -> Duration;
    /// Until `deadline` (when set) no operation may run past it, whatever its own
    /// timeout: a script's time limit reaches into the device call in flight.
    fn set_deadline(&mut self, _deadline: Option<std::time::Instant>) {}
}
