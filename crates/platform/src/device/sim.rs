//! `--device sim`: the virtual phone (`codeact-sim`) started in this process on a
//! free loopback port and driven over the same ADB client as any phone; `--device
//! sim:ios`, the same phone through its iOS door, driven by the WebDriverAgent
//! client as any iPhone; `--device sim:harmony`, through its hdc door, driven by the
//! hdc client as any HarmonyOS phone. The handle keeps the phone running exactly as long as the
//! device is in use; nothing here reaches past the wire protocol.

use std::time::{Duration, Instant};

use codeact_sim::{SimConfig, SimPlatform, VirtualDevice};

use crate::device::adb::device::AdbDevice;

use crate::device::contract::Device;

use crate::device::errors::DeviceError;

use crate::device::hdc::HarmonyDevice;

use crate::device::wda::IosDevice;

use crate::device::observation::Observation;

use crate::device::shell::ShellOutput;

/// A virtual phone of this process and the device that drives it through one of
/// its doors.
pub(crate) struct InProcess<D> {
    device: D,
    /// Declared after `device`: the connection closes before the phone stops.
    _phone: VirtualDevice,
}

/// The virtual phone through its ADB door (`--device sim`).
pub(crate) fn start_android(
    timeout: Duration,
    observe: crate::device::adb::agent_state::ObserveWith,
) -> Result<InProcess<AdbDevice>, DeviceError> {
    let phone = VirtualDevice::start(SimConfig::default()).map_err(DeviceError::SimStart)?;
    let addr = phone.addr().to_string();
    let device = AdbDevice::direct(&addr, timeout)?.named(format!("sim ({addr})")).observing_with(observe);
    Ok(InProcess { device, _phone: phone })
}

/// The virtual phone through its iOS door (`--device sim:ios`).
pub(crate) fn start_ios(timeout: Duration) -> Result<InProcess<IosDevice>, DeviceError> {
    let config = SimConfig { platform: SimPlatform::Ios, ..SimConfig::default() };
    let token = config.wda_token.clone();
    let phone = VirtualDevice::start(config).map_err(DeviceError::SimStart)?;
    let addr = phone.addr().to_string();
    let device = IosDevice::connect(&format!("http://{addr}/{token}"), timeout)?.named(format!("sim:ios ({addr})"));
    Ok(InProcess { device, _phone: phone })
}

/// The virtual phone through its HarmonyOS door (`--device sim:harmony`).
pub(crate) fn start_harmony(timeout: Duration) -> Result<InProcess<HarmonyDevice>, DeviceError> {
    let config = SimConfig { platform: SimPlatform::Harmony, ..SimConfig::default() };
    let key = config.serial.clone();
    let phone = VirtualDevice::start(config).map_err(DeviceError::SimStart)?;
    let addr = phone.addr().to_string();
    let device = HarmonyDevice::connect_at(&addr, Some(&key), timeout)?.named(format!("sim:harmony ({addr})"));
    Ok(InProcess { device, _phone: phone })
}

impl<D: Device> Device for InProcess<D> {
    fn name(&self) -> &str {
        self.device.name()
    }
    fn platform(&self) -> crate::device::platform::Platform {
        self.device.platform()
    }
    fn is_installed(&mut self, package: &str) -> Result<bool, DeviceError> {
        self.device.is_installed(package)
    }
    fn observe(&mut self) -> Result<Observation, DeviceError> {
        self.device.observe()
    }
    fn screenshot(&mut self) -> Result<Vec<u8>, DeviceError> {
        self.device.screenshot()
    }
    fn tap(&mut self, x: i32, y: i32) -> Result<(), DeviceError> {
        self.device.tap(x, y)
    }
    fn long_press(&mut self, x: i32, y: i32, ms: u32) -> Result<(), DeviceError> {
        self.device.long_press(x, y, ms)
    }
    fn swipe(&mut self, x1: i32, y1: i32, x2: i32, y2: i32, ms: u32) -> Result<(), DeviceError> {
        self.device.swipe(x1, y1, x2, y2, ms)
    }
    fn drag(&mut self, x1: i32, y1: i32, x2: i32, y2: i32, ms: u32) -> Result<(), DeviceError> {
        self.device.drag(x1, y1, x2, y2, ms)
    }
    fn input_text(&mut self, text: &str) -> Result<(), DeviceError> {
        self.device.input_text(text)
    }
    fn clear_text(&mut self) -> Result<(), DeviceError> {
        self.device.clear_text()
    }
    fn press_key(&mut self, key: &str) -> Result<(), DeviceError> {
        self.device.press_key(key)
    }
    fn go_home(&mut self) -> Result<(), DeviceError> {
        self.device.go_home()
    }
    fn start_app(&mut self, package: &str, activity: Option<&str>) -> Result<(), DeviceError> {
        self.device.start_app(package, activity)
    }
    fn clear_app_data(&mut self, package: &str) -> Result<(), DeviceError> {
        self.device.clear_app_data(package)
    }
    fn open_url(&mut self, uri: &str) -> Result<(), DeviceError> {
        self.device.open_url(uri)
    }
    fn stop_app(&mut self, package: &str) -> Result<(), DeviceError> {
        self.device.stop_app(package)
    }
    fn list_packages(&mut self, system: bool) -> Result<Vec<String>, DeviceError> {
        self.device.list_packages(system)
    }
    fn shell(&mut self, command: &str) -> Result<ShellOutput, DeviceError> {
        self.device.shell(command)
    }
    fn pull_file(&mut self, path: &str, into: &mut dyn std::io::Write, limit: u64) -> Result<u64, DeviceError> {
        self.device.pull_file(path, into, limit)
    }
    fn timeout(&self) -> Duration {
        self.device.timeout()
    }
    fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.device.set_deadline(deadline);
    }
}
