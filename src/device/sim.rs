//! `--device sim`: the virtual phone (`codeact-sim`) started in this process on a
//! free loopback port and driven over the same ADB client as any phone. The handle
//! keeps the phone running exactly as long as the device is in use; nothing here
//! reaches past the wire protocol.

use std::time::{Duration, Instant};

use codeact_sim::{SimConfig, VirtualDevice};

use super::{AdbDevice, Device, DeviceError, Observation, ShellOutput};

/// A virtual phone of this process, reached over ADB.
pub(crate) struct InProcessSim {
    adb: AdbDevice,
    /// Declared after `adb`: the connection closes before the phone stops.
    _phone: VirtualDevice,
}

impl InProcessSim {
    pub(crate) fn start(timeout: Duration) -> Result<Self, DeviceError> {
        let phone = VirtualDevice::start(SimConfig::default()).map_err(DeviceError::SimStart)?;
        let addr = phone.addr().to_string();
        let adb = AdbDevice::direct(&addr, timeout)?.named(format!("sim ({addr})"));
        Ok(Self { adb, _phone: phone })
    }
}

impl Device for InProcessSim {
    fn name(&self) -> &str {
        self.adb.name()
    }
    fn observe(&mut self) -> Result<Observation, DeviceError> {
        self.adb.observe()
    }
    fn screenshot(&mut self) -> Result<Vec<u8>, DeviceError> {
        self.adb.screenshot()
    }
    fn tap(&mut self, x: i32, y: i32) -> Result<(), DeviceError> {
        self.adb.tap(x, y)
    }
    fn long_press(&mut self, x: i32, y: i32, ms: u32) -> Result<(), DeviceError> {
        self.adb.long_press(x, y, ms)
    }
    fn swipe(&mut self, x1: i32, y1: i32, x2: i32, y2: i32, ms: u32) -> Result<(), DeviceError> {
        self.adb.swipe(x1, y1, x2, y2, ms)
    }
    fn drag(&mut self, x1: i32, y1: i32, x2: i32, y2: i32, ms: u32) -> Result<(), DeviceError> {
        self.adb.drag(x1, y1, x2, y2, ms)
    }
    fn input_text(&mut self, text: &str) -> Result<(), DeviceError> {
        self.adb.input_text(text)
    }
    fn clear_text(&mut self) -> Result<(), DeviceError> {
        self.adb.clear_text()
    }
    fn press_key(&mut self, key: &str) -> Result<(), DeviceError> {
        self.adb.press_key(key)
    }
    fn go_home(&mut self) -> Result<(), DeviceError> {
        self.adb.go_home()
    }
    fn start_app(&mut self, package: &str, activity: Option<&str>) -> Result<(), DeviceError> {
        self.adb.start_app(package, activity)
    }
    fn clear_app_data(&mut self, package: &str) -> Result<(), DeviceError> {
        self.adb.clear_app_data(package)
    }
    fn open_url(&mut self, uri: &str) -> Result<(), DeviceError> {
        self.adb.open_url(uri)
    }
    fn stop_app(&mut self, package: &str) -> Result<(), DeviceError> {
        self.adb.stop_app(package)
    }
    fn list_packages(&mut self, system: bool) -> Result<Vec<String>, DeviceError> {
        self.adb.list_packages(system)
    }
    fn shell(&mut self, command: &str) -> Result<ShellOutput, DeviceError> {
        self.adb.shell(command)
    }
    fn timeout(&self) -> Duration {
        self.adb.timeout()
    }
    fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.adb.set_deadline(deadline);
    }
}
