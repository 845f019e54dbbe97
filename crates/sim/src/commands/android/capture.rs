//! `uiautomator dump` and `screencap`: the hierarchy XML and the screen pixels, to a
//! file on the device or straight to stdout, in the formats real devices use.

use std::time::{Duration, Instant};

use crate::device::SimDevice;
use crate::page_source::uiautomator;
use crate::render;
use crate::shell::{Output, ShellEnv};
use crate::shell::{fail, ok};

const DEFAULT_DUMP: &str = "/sdcard/window_dump.xml";

/// uiautomator dumps once the UI is idle and gives up after this long
/// (`UiAutomation.waitForIdle(1000, 10000)` in its dump command).
const IDLE_GIVE_UP: Duration = Duration::from_secs(10);

pub(crate) fn uiautomator(device: &SimDevice, args: &[&str], env: &ShellEnv) -> Output {
    let Some((&"dump", rest)) = args.split_first() else {
        return fail(
            "Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\nhelp: displays help message\n\ndump: creates an XML dump of current UI hierarchy\n",
            1,
        );
    };
    let file = rest.iter().find(|a| !a.starts_with('-')).copied().unwrap_or(DEFAULT_DUMP);
    let latency = device.faults().dump_latency;
    if !latency.is_zero() && !env.sleep(latency) {
        return fail("ERROR: could not get idle state.\n", 1);
    }
    if !wait_for_idle(device, env) {
        return fail("ERROR: could not get idle state.\n", 1);
    }
    let xml = uiautomator::to_xml(&device.world().screen(), rest.contains(&"--windows"));
    let status = format!("UI hierchary dumped to: {file}\n");
    if file == "/dev/tty" || file == "/dev/stdout" {
        let mut out = xml.into_bytes();
        out.extend_from_slice(status.as_bytes());
        return ok(out);
    }
    match env.fs.write(file, xml.as_bytes()) {
        Ok(()) => ok(status),
        Err(e) => fail(&format!("ERROR: could not write {file}: {e}\n"), 1),
    }
}

/// Waits out a slow-ui animation, as uiautomator waits for the accessibility
/// events to stop before it dumps; false when it runs past [`IDLE_GIVE_UP`] (or the
/// host went away).
fn wait_for_idle(device: &SimDevice, env: &ShellEnv) -> bool {
    let started = Instant::now();
    while let Some(left) = device.world().animation_left() {
        let room = IDLE_GIVE_UP.saturating_sub(started.elapsed());
        if room.is_zero() || !env.sleep(left.min(room)) {
            return false;
        }
    }
    true
}

pub(crate) fn screencap(device: &SimDevice, args: &[&str], env: &ShellEnv) -> Output {
    let mut png = false;
    let mut file = None;
    let mut i = 0;
    while i < args.len() {
        match args[i] {
            "-p" => png = true,
            "-d" | "-a" => i += 1,
            "-h" => {
                return ok(
                    "usage: screencap [-hp] [-d display-id] [FILENAME]\n   -h: this message\n   -p: save the file as a png.\n",
                );
            }
            f => file = Some(f),
        }
        i += 1;
    }
    let png = png || file.is_some_and(|f| f.ends_with(".png"));
    let frame = device.frame();
    let bytes = if png {
        match render::encode_png(&frame) {
            Ok(b) => b,
            Err(e) => {
                let cause = std::error::Error::source(&e).map(|c| format!(": {c}")).unwrap_or_default();
                return fail(&format!("Error: {e}{cause}\n"), 1);
            }
        }
    } else {
        let mut raw = Vec::with_capacity(16 + frame.rgba.len());
        for word in [frame.width, frame.height, 1, 0] {
            raw.extend_from_slice(&word.to_le_bytes());
        }
        raw.extend_from_slice(&frame.rgba);
        raw
    };
    match file {
        None => ok(bytes),
        Some(f) => match env.fs.write(f, &bytes) {
            Ok(()) => ok(""),
            Err(e) => fail(&format!("Error opening file: {f} ({e})\n"), 1),
        },
    }
}
