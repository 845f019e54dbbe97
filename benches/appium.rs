//! One action on the virtual phone, three ways: codeact's own adb client
//! (`uiautomator dump` and `input`), uiautomator2's server (`--observe u2`), and the
//! real Appium server with its UiAutomator2 driver (`--device appium:URL`, which
//! reaches the phone's own UiAutomator2 server through adb). Per action: observe
//! the Settings screen, tap, screenshot, and an agent step (observe, then tap). The
//! ratios say what the Appium hop costs; on a real phone each path adds the
//! phone's own time. Needs Appium 3 with its UiAutomator2 driver where
//! `scripts/test.sh` installs it ($CODEACT_APPIUM_DIR, else
//! ~/.cache/codeact/appium) and the stock adb; without them only the first two run.
//! Run with `cargo bench --bench appium`.

use std::hint::black_box;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use codeact::device::{Device, DeviceSpec, ObserveWith, open_observing};
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "common/processes.rs"]
mod processes;
use processes::{Killed, free_port};

fn appium_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("CODEACT_APPIUM_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/codeact/appium")))?;
    dir.join("node_modules/.bin/appium").is_file().then_some(dir)
}

/// A `codeact sim` on the stock adb server, and Appium over it: the phone as an
/// Appium session.
fn through_appium() -> Option<(Box<dyn Device>, Killed)> {
    let dir = appium_dir()?;
    let mut sim = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["sim", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut first = String::new();
    BufReader::new(sim.stdout.take()?).read_line(&mut first).ok()?;
    let serial = first.split_whitespace().find(|w| w.starts_with("127.0.0.1:"))?.to_string();
    let adb_port = free_port()?.to_string();
    let mut children = Killed(vec![sim], adb_port.clone());
    let adb = |args: &[&str]| Command::new("adb").args(["-P", &adb_port]).args(args).output().ok();
    adb(&["start-server"])?;
    adb(&["connect", &serial])?;
    adb(&["-s", &serial, "wait-for-device"])?;
    let port = free_port()?;
    let appium = Command::new(dir.join("node_modules/.bin/appium"))
        .args(["--address", "127.0.0.1", "--port", &port.to_string(), "--log-level", "error"])
        .env("APPIUM_HOME", dir.join("home"))
        .env("ANDROID_HOME", dir.join("sdk"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    children.0.push(appium);
    let caps = serde_json::json!({
        "platformName": "Android", "appium:automationName": "UiAutomator2",
        "appium:udid": serial, "appium:adbPort": adb_port.parse::<u16>().ok()?,
    });
    let url = format!("http://127.0.0.1:{port}");
    let began = Instant::now();
    while began.elapsed() < Duration::from_secs(60) {
        if let Ok(device) = codeact::device::connect::open_appium(&url, Duration::from_secs(30), Some(caps.clone())) {
            return Some((device, children));
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    None
}

fn phone(with: ObserveWith) -> Option<Box<dyn Device>> {
    let mut device = open_observing(&DeviceSpec::Sim, Duration::from_secs(10), with).ok()?;
    device.shell("simctl file /data/local/tmp/u2.jar u2-server-jar").ok()?;
    Some(device)
}

fn per_action(c: &mut Criterion) {
    let mut phones: Vec<(&str, Box<dyn Device>)> = Vec::new();
    for (name, with) in [("adb (dump + input)", ObserveWith::Dump), ("uiautomator2 server", ObserveWith::U2)] {
        match phone(with) {
            Some(d) => phones.push((name, d)),
            None => eprintln!("cannot open the virtual phone observed by {name}; skipping it"),
        }
    }
    let appium = through_appium();
    let _children = match appium {
        Some((device, children)) => {
            phones.push(("Appium (UiAutomator2 driver)", device));
            Some(children)
        }
        None => {
            eprintln!(
                "no Appium with its UiAutomator2 driver (scripts/test.sh --install-only installs it); skipping it"
            );
            None
        }
    };
    for (_, device) in &mut phones {
        let _ = device.start_app("com.android.settings", None);
        let _ = device.observe();
    }
    for (action, act) in [("observe (Settings)", 0), ("tap", 1), ("screenshot", 2), ("step: observe + tap", 3)] {
        let mut group = c.benchmark_group(action);
        for (name, device) in &mut phones {
            group.bench_function(*name, |b| {
                b.iter(|| match act {
                    0 => black_box(device.observe().map(|o| o.ui.len()).ok()),
                    1 => black_box(device.tap(5, 5).ok().map(|_| 0)),
                    2 => black_box(device.screenshot().map(|p| p.len()).ok()),
                    _ => black_box(device.observe().ok().and_then(|o| device.tap(5, 5).ok().map(|_| o.ui.len()))),
                })
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(Duration::from_secs(4));
    targets = per_action
}
criterion_main!(benches);
