//! The one interface through which the runtime acts on a phone: the blocking
//! [`Device`] trait, what an observation holds, and the typed errors every operation
//! returns. `adb/` implements it for Android over ADB (on our client in
//! `adb/transport/`), `wda/` for iOS over WebDriverAgent's HTTP API, `hdc/` for
//! HarmonyOS over an hdc server; `connect.rs` chooses and opens a device from
//! `--device`; with the `sim` feature, `sim.rs` starts the virtual phone in-process
//! and reaches it through the door of the platform asked for (ADB; WDA for
//! `sim:ios`; hdc for `sim:harmony`). Another platform is another folder beside them.
//!
//! This module knows nothing of Rhai, prompts or the agent loop.

pub mod adb;
pub mod appium;
pub mod connect;
pub mod hdc;
mod observation;
pub mod shell;
#[cfg(feature = "sim")]
mod sim;
pub mod w3c;
pub mod wda;

use std::time::Duration;

pub use adb::agents::{AgentError, ObserveWith};
pub use adb::{ADB_KEYBOARD, AdbDevice, AdbError};
pub use appium::AppiumDevice;
pub use connect::{DeviceSpec, open, open_observing};
pub use hdc::HarmonyDevice;
pub use observation::{Observation, ObservedVia, PhoneState};
pub use shell::{ShellOutput, quote};
pub use wda::IosDevice;

/// What a device said, as an error shows it: cut at 2 KiB (a device can answer
/// with megabytes where a line is expected), saying how big the whole was.
pub(crate) fn shown(said: &str) -> std::borrow::Cow<'_, str> {
    codeact_base::clip::clip(said, SAID_BYTES)
}

/// The most of a device's own words an error quotes.
const SAID_BYTES: usize = 2048;

/// Why a device operation failed: always names the device (and the operation), and
/// says what to try.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// A screenshot was not taken: a secret typed with `type_secret` is on screen.
    #[error("withheld: a secret typed with type_secret is on screen (pixels cannot be redacted)")]
    SecretOnScreen,
    /// `simctl` asked of a device that is not the built-in virtual phone.
    #[error("this is not the built-in virtual phone (it said: {})", shown(.said))]
    NotVirtual { said: String },
    /// `check` is the platform's way to see whether the phone is still there.
    #[error("{device}: {op} timed out after {secs:.1} s; the device may be busy or gone ({check})")]
    Timeout { device: String, op: String, secs: f64, check: &'static str },
    #[error("{device}: {op} failed: the connection was lost; {check}, then retry")]
    Disconnected { device: String, op: String, check: &'static str },
    /// The device ran the command and reported a failure (its own words).
    #[error("{device}: {op} failed: {}", shown(.output))]
    Command { device: String, op: String, output: String },
    /// `check` is how that platform lists what is installed.
    #[error("{device}: package {package} is not installed (see `{check}`)")]
    NotInstalled { device: String, package: String, check: &'static str },
    #[error("{device}: {package} has no launcher activity; give one: start_app(package, activity)")]
    NoLauncherActivity { device: String, package: String },
    #[error("{device}: {:?} is not a valid Android {what} name", shown(.name))]
    InvalidName { device: String, name: String, what: &'static str },
    #[error("unknown key {:?}; use back, home, enter, delete, tab, space, a KEYCODE_* name or a number", shown(.0))]
    UnknownKey(String),
    /// The hdc server or the exchange with it failed (the source says how to fix it).
    #[error("{device}: {op} failed")]
    Hdc {
        device: String,
        op: String,
        #[source]
        source: hdc::client::HdcError,
    },
    /// What the platform cannot do (iOS has no shell, no Back key...).
    #[error("{device}: {what} is not possible on {platform}; {instead}")]
    NotOnPlatform { device: String, what: String, platform: &'static str, instead: String },
    #[error("{device}: the hierarchy dump could not be read")]
    Ui {
        device: String,
        #[source]
        source: crate::ui::ParseError,
    },
    #[error("{device}: {op} printed something unexpected: {:?}", shown(.output))]
    Unexpected { device: String, op: String, output: String },
    #[error("{device}: the screenshot is not a PNG ({bytes} bytes)")]
    NotAPng {
        device: String,
        bytes: usize,
        #[source]
        source: png::DecodingError,
    },
    #[error("{device}: the screenshot PNG is cut off after {bytes} bytes")]
    CutPng { device: String, bytes: usize },
    #[error("{device}: a {}x{} screenshot for a {}x{} screen", .image.0, .image.1, .screen.0, .screen.1)]
    WrongSize { device: String, image: (u32, u32), screen: (u32, u32) },
    #[error("no device {serial}; {}", shown(.seen))]
    NoSuchDevice { serial: String, seen: String },
    #[error("no device is attached ({}); connect a phone, or use the virtual device with `--device sim`", shown(.seen))]
    NoDevice { seen: String },
    #[error("several devices are attached; pick one with --device: {seen}")]
    SeveralDevices { seen: String },
    /// Android over ADB failed in a way only ADB has (the error says how to fix it).
    #[error(transparent)]
    Adb(#[from] adb::AdbError),
    /// A WebDriver server (WebDriverAgent, Appium) answered with an error, did not
    /// answer, or lost the session (the error says which, and what to do).
    #[error(transparent)]
    W3c(Box<w3c::W3cError>),
    #[error(
        "this codeact was built without the virtual device; rebuild with the default `sim` feature, or name a phone with --device"
    )]
    NoSim,
    #[error(transparent)]
    AppiumTarget(#[from] appium::AppiumTargetError),
    #[cfg(feature = "sim")]
    #[error("cannot start the virtual device")]
    SimStart(#[source] codeact_sim::SimError),
}

impl From<w3c::W3cError> for DeviceError {
    fn from(e: w3c::W3cError) -> Self {
        // Boxed: a W3C error carries the server's words, and every device call
        // returns a `DeviceError`.
        DeviceError::W3c(Box::new(e))
    }
}

/// The platform a device runs: what its packages are called and which tools it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    #[default]
    Android,
    Ios,
    Harmony,
}

impl Platform {
    /// `Android`, `iOS`, `HarmonyOS`: the name in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Android => "Android",
            Self::Ios => "iOS",
            Self::Harmony => "HarmonyOS",
        }
    }

    /// `android`, `ios`, `harmony`: the name scripts read (`phone_state.platform`).
    pub fn id(self) -> &'static str {
        match self {
            Self::Android => "android",
            Self::Ios => "ios",
            Self::Harmony => "harmony",
        }
    }
}

/// A phone the runtime can observe and act on. Blocking; every call is bounded by
/// the device's timeout.
pub trait Device: Send {
    /// A short name for messages (`127.0.0.1:15037`, a serial, `sim`).
    fn name(&self) -> &str;
    /// What the phone runs (Android unless the backend says otherwise).
    fn platform(&self) -> Platform {
        Platform::Android
    }
    /// Whether an app with this package (bundle) id is installed.
    fn is_installed(&mut self, package: &str) -> Result<bool, DeviceError> {
        Ok(self.list_packages(true)?.iter().any(|p| p == package))
    }
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
    /// Stops an app and deletes its data.
    fn clear_app_data(&mut self, package: &str) -> Result<(), DeviceError>;
    /// Opens a link in the app that handles it.
    fn open_url(&mut self, uri: &str) -> Result<(), DeviceError>;
    /// Installed packages; third-party only unless `system`.
    fn list_packages(&mut self, system: bool) -> Result<Vec<String>, DeviceError>;
    /// Runs a raw shell command (for tools and diagnostics), within the timeout.
    fn shell(&mut self, command: &str) -> Result<ShellOutput, DeviceError>;
    /// Copies the file at `path` on the phone into `into`, at most `limit` bytes, and
    /// says how many there were. Android only.
    fn pull_file(&mut self, path: &str, into: &mut dyn std::io::Write, limit: u64) -> Result<u64, DeviceError> {
        let _ = (path, into, limit);
        Err(DeviceError::NotOnPlatform {
            device: self.name().to_string(),
            what: "pulling a file".into(),
            platform: self.platform().name(),
            instead: "APKs and their files are Android's; use an Android phone or `--device sim`".into(),
        })
    }
    /// The per-operation timeout.
    fn timeout(&self) -> Duration;
    /// Until `deadline` (when set) no operation may run past it, whatever its own
    /// timeout: a script's time limit reaches into the device call in flight.
    fn set_deadline(&mut self, _deadline: Option<std::time::Instant>) {}
}
