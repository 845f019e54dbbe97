//! The platform layer: what a phone is, in platform-neutral words. [`ui`] (the
//! parsed hierarchy, one parser per page-source format, the compact screen text),
//! [`device`] (the `Device` trait, the `Observation`, and its backends: adb, hdc,
//! WebDriverAgent, the virtual phone), [`apk`] (what an APK declares) and
//! [`locate`] (reference pictures found on a screenshot). Not here: Rhai, tools,
//! sessions or records — this crate knows no script.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod apk;
pub mod device;
pub mod locate;
pub mod ui;
