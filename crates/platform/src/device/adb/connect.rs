//! Opening an Android phone over ADB from what `--device` named: straight to its
//! adbd (`HOST:PORT`), or through the adb server (a serial, or the one attached),
//! which `ANDROID_ADB_SERVER_ADDRESS` / `ANDROID_ADB_SERVER_PORT` locate. Not the
//! choice between platforms (`device/connect.rs`).

use std::time::Duration;

use super::transport::{Deadline, ListedDevice, ServerConnection};
use crate::device::adb::device::AdbDevice;
use crate::device::errors::DeviceError;
use crate::device::errors::adb::AdbError;
use crate::device::spec::DeviceSpec;

/// The adb server's address, from the environment or the default 127.0.0.1:5037.
pub fn server_address() -> String {
    let host = std::env::var("ANDROID_ADB_SERVER_ADDRESS").ok().filter(|h| !h.is_empty());
    let port = std::env::var("ANDROID_ADB_SERVER_PORT").ok().filter(|p| !p.is_empty());
    let host = host.as_deref().unwrap_or("127.0.0.1");
    // An IPv6 literal needs brackets before the port.
    let host = if host.contains(':') && !host.starts_with('[') { format!("[{host}]") } else { host.to_string() };
    format!("{host}:{}", port.as_deref().unwrap_or("5037"))
}

/// What the adb server sees, or an error saying how to start it.
pub fn list_devices(timeout: Duration) -> Result<Vec<ListedDevice>, DeviceError> {
    let server = server_address();
    ServerConnection::list(&server, Deadline::after(timeout))
        .map_err(|source| AdbError::NoServer { server, source }.into())
}

/// A phone over ADB: straight to its adbd, or through the adb server.
pub fn open_adb(spec: &DeviceSpec, timeout: Duration) -> Result<AdbDevice, DeviceError> {
    match spec {
        DeviceSpec::Sim | DeviceSpec::SimIos | DeviceSpec::SimHarmony => Err(DeviceError::NoSim),
        DeviceSpec::Ios(url) => Err(DeviceError::NotOnPlatform {
            device: url.clone(),
            what: "ADB".into(),
            platform: "iOS",
            instead: "drive it with --device ios:URL".into(),
        }),
        DeviceSpec::Appium(_) => Err(DeviceError::NotOnPlatform {
            device: "appium:".into(),
            what: "ADB".into(),
            platform: "a phone behind an Appium server",
            instead: "drive it with --device appium:URL".into(),
        }),
        DeviceSpec::Hdc(key) => Err(DeviceError::NotOnPlatform {
            device: key.clone().unwrap_or_else(|| "hdc".into()),
            what: "ADB".into(),
            platform: "HarmonyOS",
            instead: "drive it with --device hdc".into(),
        }),
        DeviceSpec::Direct(addr) => AdbDevice::direct(addr, timeout).or_else(|direct_err| {
            // A phone on `adb tcpip` wants authorization, which the adb server holds:
            // if the server knows this address as a device, go through it.
            let known = list_devices(timeout)
                .map(|ds| ds.iter().any(|d| &d.serial == addr && d.state == "device"))
                .unwrap_or(false);
            if known { Ok(AdbDevice::through_server(&server_address(), addr, timeout)) } else { Err(direct_err) }
        }),
        DeviceSpec::Serial(serial) => {
            let devices = list_devices(timeout)?;
            match devices.iter().find(|d| &d.serial == serial) {
                Some(d) if d.state == "device" => Ok(AdbDevice::through_server(&server_address(), serial, timeout)),
                Some(d) => Err(AdbError::NotReady { serial: serial.clone(), state: d.state.clone() }.into()),
                None => Err(DeviceError::NoSuchDevice { serial: serial.clone(), seen: describe(&devices) }),
            }
        }
        DeviceSpec::Auto => {
            if let Ok(serial) = std::env::var("ANDROID_SERIAL")
                && !serial.is_empty()
            {
                return open_adb(&DeviceSpec::parse(Some(&serial)), timeout);
            }
            let devices = list_devices(timeout)?;
            let ready: Vec<&ListedDevice> = devices.iter().filter(|d| d.state == "device").collect();
            match ready.as_slice() {
                [one] => Ok(AdbDevice::through_server(&server_address(), &one.serial, timeout)),
                [] => Err(DeviceError::NoDevice { seen: describe(&devices) }),
                _ => Err(DeviceError::SeveralDevices { seen: describe(&devices) }),
            }
        }
    }
}

fn describe(devices: &[ListedDevice]) -> String {
    if devices.is_empty() {
        return "`adb devices` lists none".into();
    }
    let list: Vec<String> = devices.iter().map(|d| format!("{} ({})", d.serial, d.state)).collect();
    format!("the adb server sees {}", list.join(", "))
}
