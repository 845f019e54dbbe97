//! Start the virtual device inside this process and drive it through ADB (adb_client's
//! TCP device), exactly as the runtime drives a phone: open Settings, turn Wi-Fi off,
//! read the world's state back.
//!
//! cargo run --example drive_virtual_device

use adb_client::ADBDeviceExt;
use adb_client::tcp::ADBTcpDevice;
use codeact_sim::{SimConfig, VirtualDevice};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sim = VirtualDevice::start(SimConfig::default())?;
    println!("virtual device on {} (also reachable with `adb connect {}`)", sim.addr(), sim.addr());
    let key = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/test_adbkey");
    let mut phone = ADBTcpDevice::new_with_custom_private_key(sim.addr(), key)?;
    let mut sh = |cmd: &str| -> Result<String, Box<dyn std::error::Error>> {
        let mut out = Vec::new();
        phone.shell_command(&cmd, Some(&mut out), None)?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    };
    print!("{}", sh("am start -n com.android.settings/.Settings")?);
    let dump = sh("uiautomator dump /dev/tty")?;
    // Find the Wi-Fi row's bounds in the dump and tap its centre.
    let row = dump.split("<node ").find(|n| n.contains("text=\"Wi-Fi\"")).unwrap_or_default();
    let bounds: Vec<i32> = row
        .split("bounds=\"")
        .nth(1)
        .unwrap_or_default()
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    if let [l, t, r, b] = bounds[..] {
        sh(&format!("input tap {} {}", (l + r) / 2, (t + b) / 2))?;
    }
    print!("{}", sh("simctl state | grep -E '\"(wifi|foreground_package)\"'")?);
    Ok(())
}
