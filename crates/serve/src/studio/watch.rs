//! The studio's live thread: looks at the phone through the studio's session
//! [`FRAMES_PER_SECOND`] times a second (slower while the picture is still or no
//! page looks), and hands what it saw to the live view. Not what the page is shown
//! nor the long poll (`live.rs`).

use std::hash::{Hash as _, Hasher as _};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::live::{FRAMES_PER_SECOND, TREES_PER_SECOND};
use super::state::Studio;
use codeact_platform::device::Platform;

fn digest(bytes: &[u8]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

/// How a device's pictures are taken, in a person's words.
fn screenshot_path(device: &str, platform: Platform) -> &'static str {
    match platform {
        _ if device.starts_with("appium:") => "the Appium server's screenshot",
        Platform::Ios => "WebDriverAgent's screenshot",
        Platform::Harmony => "hdc's snapshot_display",
        Platform::Android => "adb's screencap",
    }
}

/// Looks at the phone until `stop`: the studio's live thread.
pub fn watch(studio: &Studio, stop: &CancellationToken) {
    let (device, platform) = studio.with_session(|s| (s.device_name(), s.platform()));
    studio.live.change(|s| {
        s.screenshots = screenshot_path(&device, platform);
        s.device = device;
        true
    });
    let period = Duration::from_millis(1000 / FRAMES_PER_SECOND);
    let (mut last, mut last_tree) = (None, None::<Instant>);
    let mut tree_due = true;
    let mut changes: std::collections::VecDeque<Instant> = std::collections::VecDeque::new();
    let mut last_change = Instant::now();
    let mut pokes = 0;
    while !stop.is_cancelled() {
        let began = Instant::now();
        let shot = studio.with_session(|s| s.screenshot());
        match shot {
            Ok(png) => {
                let d = digest(&png);
                let new = last != Some(d);
                last = Some(d);
                if new {
                    last_change = Instant::now();
                    changes.push_back(began);
                }
                // What the page calls frames per second is how often the screen
                // changed (not how often it was looked at): 0 on a still screen.
                while changes.front().is_some_and(|t| t.elapsed() > Duration::from_secs(1)) {
                    changes.pop_front();
                }
                let fps = changes.len() as f64;
                tree_due |= new;
                studio.live.change(|s| {
                    let changed = new || s.problem.is_some() || (s.fps - fps).abs() >= 1.0;
                    if new {
                        s.frame = Some(Arc::new(png));
                        s.frame_v += 1;
                    }
                    s.problem = None;
                    s.fps = fps;
                    changed
                });
            }
            Err(e) => {
                let said = codeact_base::error_text::full_message(&e);
                studio.live.change(|s| {
                    let changed = s.problem.as_deref() != Some(said.as_str());
                    s.problem = Some(said);
                    changed
                });
            }
        }
        let stale = last_tree.is_none_or(|t| t.elapsed() > Duration::from_secs(3));
        let allowed = last_tree.is_none_or(|t| t.elapsed() >= Duration::from_millis(1000 / TREES_PER_SECOND));
        if (tree_due && allowed) || stale {
            if let Ok(obs) = studio.with_session(|s| s.observe(false)) {
                studio.live.show_tree(&obs);
            }
            last_tree = Some(Instant::now());
            tree_due = false;
        }
        // Full speed while the picture changes or something just acted; slower while
        // the phone is still, and slower again while no page is looking.
        let poked = studio.live.pokes.load(std::sync::atomic::Ordering::Relaxed);
        if poked != pokes {
            (pokes, last_change) = (poked, Instant::now());
        }
        let still = last_change.elapsed() > Duration::from_secs(2);
        let watched = studio.live.polls.load(std::sync::atomic::Ordering::Relaxed) > 0;
        let pace = match (still, watched) {
            (false, _) => period,
            (true, true) => period * 4,
            (true, false) => Duration::from_secs(1),
        };
        let spent = began.elapsed();
        if spent < pace {
            std::thread::sleep(pace - spent);
        }
    }
}
