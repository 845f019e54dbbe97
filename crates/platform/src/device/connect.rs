//! Choosing and opening a device from `--device`: `sim` (an in-process virtual
//! device, with the `sim` feature; `sim:ios` and `sim:harmony` the same phone
//! through its iOS or HarmonyOS door), `ios:http://HOST:PORT` (an iPhone's
//! WebDriverAgent), `hdc` / `hdc:KEY` (a HarmonyOS phone through the hdc server,
//! which `OHOS_HDC_SERVER_PORT` locates), `HOST:PORT` (direct TCP), a
//! serial (through the adb server, which `ANDROID_ADB_SERVER_ADDRESS` /
//! `ANDROID_ADB_SERVER_PORT` locate), or nothing (`ANDROID_SERIAL`, else the one
//! device attached).

use std::time::Duration;

use super::adb::open_adb;
pub use super::spec::DeviceSpec;
use crate::device::adb::agent_state::ObserveWith;
use crate::device::contract::Device;
use crate::device::errors::DeviceError;
use crate::device::platform::Platform;

/// Opens the device `spec` names, with `timeout` for every operation (an Android
/// phone observed as `--observe auto` does).
pub fn open(spec: &DeviceSpec, timeout: Duration) -> Result<Box<dyn Device>, DeviceError> {
    open_observing(spec, timeout, ObserveWith::Auto)
}

/// Opens the device `spec` names; an Android phone is observed (and, through an
/// agent, tapped) as `observe` says.
pub fn open_observing(
    spec: &DeviceSpec,
    timeout: Duration,
    observe: ObserveWith,
) -> Result<Box<dyn Device>, DeviceError> {
    match spec {
        DeviceSpec::Sim => Ok(Box::new(sim_android(timeout, observe)?)),
        DeviceSpec::SimIos => open_sim(timeout, Platform::Ios),
        DeviceSpec::SimHarmony => open_sim(timeout, Platform::Harmony),
        DeviceSpec::Ios(url) => Ok(Box::new(crate::device::wda::IosDevice::connect(url, timeout)?)),
        DeviceSpec::Appium(rest) => open_appium(rest, timeout, None),
        DeviceSpec::Hdc(key) => Ok(Box::new(crate::device::hdc::HarmonyDevice::connect(key.as_deref(), timeout)?)),
        other => Ok(Box::new(open_adb(other, timeout)?.observing_with(observe))),
    }
}

/// Opens the phone behind the Appium server `rest` names (what follows `appium:`),
/// creating a session with `caps` (`None`: `$CODEACT_APPIUM_CAPS`, else Android's
/// UiAutomator2) unless the URL names one to attach to.
pub fn open_appium(
    rest: &str,
    timeout: Duration,
    caps: Option<serde_json::Value>,
) -> Result<Box<dyn Device>, DeviceError> {
    let var = |name: &str| std::env::var(name).ok();
    let target = super::appium::AppiumTarget::parse(rest, &var)?;
    let caps = match caps {
        Some(caps) => caps,
        None => super::appium::capabilities(&var)?,
    };
    Ok(Box::new(crate::device::appium::AppiumDevice::connect(&target, caps, timeout)?))
}

#[cfg(feature = "sim")]
fn sim_android(timeout: Duration, observe: ObserveWith) -> Result<impl Device, DeviceError> {
    super::sim::start_android(timeout, observe)
}

#[cfg(not(feature = "sim"))]
fn sim_android(
    _timeout: Duration,
    _observe: ObserveWith,
) -> Result<crate::device::adb::device::AdbDevice, DeviceError> {
    Err(DeviceError::NoSim)
}

#[cfg(feature = "sim")]
fn open_sim(timeout: Duration, platform: Platform) -> Result<Box<dyn Device>, DeviceError> {
    Ok(match platform {
        Platform::Android => Box::new(super::sim::start_android(timeout, ObserveWith::Auto)?),
        Platform::Ios => Box::new(super::sim::start_ios(timeout)?),
        Platform::Harmony => Box::new(super::sim::start_harmony(timeout)?),
    })
}

#[cfg(not(feature = "sim"))]
fn open_sim(_timeout: Duration, _platform: Platform) -> Result<Box<dyn Device>, DeviceError> {
    Err(DeviceError::NoSim)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_device_specs() {
        assert_eq!(DeviceSpec::parse(None), DeviceSpec::Auto);
        assert_eq!(DeviceSpec::parse(Some("sim")), DeviceSpec::Sim);
        assert_eq!(DeviceSpec::parse(Some("sim:ios")), DeviceSpec::SimIos);
        assert_eq!(DeviceSpec::parse(Some("ios:127.0.0.1:8100")), DeviceSpec::Ios("http://127.0.0.1:8100".into()));
        assert_eq!(DeviceSpec::parse(Some("ios:")), DeviceSpec::Ios("http://127.0.0.1:8100".into()));
        assert_eq!(DeviceSpec::parse(Some("127.0.0.1:15037")), DeviceSpec::Direct("127.0.0.1:15037".into()));
        assert_eq!(DeviceSpec::parse(Some("localhost:5555")), DeviceSpec::Direct("localhost:5555".into()));
        assert_eq!(DeviceSpec::parse(Some("emulator-5554")), DeviceSpec::Serial("emulator-5554".into()));
        assert_eq!(DeviceSpec::parse(Some("R58M1234ABC")), DeviceSpec::Serial("R58M1234ABC".into()));
    }
}
