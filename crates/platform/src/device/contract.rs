//! What every device is held to: the blocking [`Device`] trait. Not its errors
//! (`error.rs`), a backend (`adb/`, `wda/`, `hdc/`, `appium/`) nor choosing one
//! (`connect.rs`).

use std::time::Duration;

use super::errors::{DeviceError, Platform};
use super::observation::Observation;
use super::shell::ShellOutput;

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
