//! The fixed names and numbers the world uses: the launcher's package, the input methods,
//! the computed `files` collection, the clock at boot, and how ActivityRecord prints a
//! component. Not the apps of the data files (`catalog.rs`).

/// The device's wall clock when it boots (and after `simctl reset`): Sunday
/// 2023-10-15 15:34:00 UTC, the date AndroidWorld's tasks assume. It runs from there,
/// so tasks that speak of "today" or "tomorrow" mean the same days on every run.
pub(crate) const BOOT_TIME_SECS: i64 = 1_697_384_040;

/// The computed collection of files under /sdcard (see `files.rs`).
pub(crate) const FILES: &str = "files";
pub(crate) const LAUNCHER_PACKAGE: &str = "com.android.launcher3";
pub(crate) const ADB_KEYBOARD_IME: &str = "com.android.adbkeyboard/.AdbIME";
pub(crate) const LATIN_IME: &str = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME";
/// The mobilerun Portal's keyboard (its `/keyboard/*` endpoints type through it).
pub(crate) const PORTAL_IME: &str = "com.droidrun.portal/.DroidrunKeyboardIME";

/// `com.pkg/.Act` as ActivityRecord prints a component (short form when the class is
/// inside the package).
pub(crate) fn short_component(package: &str, activity: &str) -> String {
    match activity.strip_prefix(package) {
        Some(rest) if rest.starts_with('.') => format!("{package}/{rest}"),
        _ => format!("{package}/{activity}"),
    }
}
