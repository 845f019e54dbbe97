//! Putting an APK's bytes on the phone, as both ways of installing do (`pm install FILE`
//! in `commands/android/install.rs`, and an APK streamed through the adb door): only the
//! packages the phone knows how to play are installed; any other is refused in the
//! words `pm` prints. Not the `pm`/`cmd package` command lines themselves.

use super::SimDevice;
use crate::apk::manifest_read;
use crate::shell::{Output, fail, ok};

/// The packages the phone plays besides its apps.
pub(crate) const PLAYABLE: [&str; 3] =
    ["io.appium.settings", "io.appium.uiautomator2.server", "io.appium.uiautomator2.server.test"];

/// The most an installed APK may weigh.
pub(crate) const MAX_APK: usize = 256 * 1024 * 1024;

/// The size a streamed install announces (`-S SIZE`), when `words` are one
/// (`cmd package install ...` or `pm install ... -S SIZE`).
pub(crate) fn streamed_size(words: &[&str]) -> Option<usize> {
    let is_install = matches!(words, ["cmd", "package", "install", ..] | ["pm", "install", ..]);
    let at = words.iter().position(|w| *w == "-S")?;
    is_install.then(|| words.get(at + 1)?.parse().ok()).flatten()
}

/// Installs the APK `bytes`: one of the packages the phone plays is installed (or
/// replaced); any other is refused.
pub(crate) fn install(device: &SimDevice, bytes: &[u8]) -> Output {
    let manifest = match manifest_read::read(bytes) {
        Ok(m) => m,
        Err(why) => return fail(&format!("Failure [INSTALL_PARSE_FAILED_NOT_APK: {why}]\n"), 1),
    };
    if !PLAYABLE.contains(&manifest.package.as_str()) {
        return fail(
            &format!(
                "Failure [INSTALL_FAILED_INVALID_APK: {} is not a package the virtual phone can play: it runs the apps of its data files (crates/sim/data/apps/*.toml, or codeact sim --world DIR) and {}]\n",
                manifest.package,
                PLAYABLE.join(", ")
            ),
            1,
        );
    }
    let mut world = device.world();
    if world.catalog.app_index(&manifest.package).is_some() {
        return fail("Failure [INSTALL_FAILED_DUPLICATE_PACKAGE]\n", 1);
    }
    world.installed.insert(manifest.package.clone(), manifest);
    ok("Success\n")
}
