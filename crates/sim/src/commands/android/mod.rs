//! Android's command-line tools, one file per kind: `activity.rs` (am, pm, monkey,
//! cmd), `system.rs` (getprop, settings, wm, dumpsys, svc, ime), `input.rs`,
//! `capture.rs` (uiautomator, screencap), `content.rs`, `logcat.rs`, `install.rs`
//! (the packages someone installs) and `agents.rs`
//! (the instrumentation that starts on-device agents), `process.rs` (ps, pidof, kill), `settings_helper.rs` (Appium's settings app's IMEs and receivers). HarmonyOS's are beside them
//! in `harmony/`. The one thing defined here is `token`, the stable id that `system.rs`'s
//! and `install.rs`'s dumpsys records share.

pub(super) mod activity;
pub(super) mod agents;
pub(super) mod capture;
pub(super) mod content;
pub(super) mod input;
pub(crate) mod install;
pub(super) mod logcat;
pub(super) mod process;
pub(super) mod settings_helper;
pub(super) mod system;

/// A stable hash-like id for `Window{...}` and `ActivityRecord{...}` lines (FNV:
/// the same on every run, unlike std's seeded hasher).
pub(crate) fn token(text: &str) -> String {
    use std::hash::Hasher as _;
    let mut h = fnv::FnvHasher::default();
    h.write(text.as_bytes());
    format!("{:x}", h.finish() & 0x0fff_ffff)
}
