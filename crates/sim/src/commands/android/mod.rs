//! Android's command-line tools, one file per kind: `activity.rs` (am, pm, monkey,
//! cmd), `system.rs` (getprop, settings, wm, dumpsys, svc, ime), `input.rs`,
//! `capture.rs` (uiautomator, screencap), `content.rs`, `logcat.rs`, `install.rs`
//! (the packages someone installs) and `agents.rs`
//! (the instrumentation that starts on-device agents), `process.rs` (ps, pidof, kill), `settings_helper.rs` (Appium's settings app's IMEs and receivers). HarmonyOS's are beside them
//! in `harmony/`.

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

pub(super) use super::{fail, ok};
