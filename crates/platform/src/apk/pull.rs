//! An installed app's APK, fetched from a phone as `adb` would: `pm path PACKAGE`
//! says where the base APK lies, the `sync:` service copies it into a private
//! temporary file (bounded), and [`super::read`] reads it there.
//!
//! Not for other platforms' packages: HarmonyOS and iOS apps are not APKs.

use std::io::{Seek, SeekFrom};

use super::info::{ApkError, ApkInfo};
use crate::device::contract::Device;
use crate::device::errors::DeviceError;

/// The largest APK pulled (the Play Store's limit for a base APK is 200 MB; games
/// with their assets inside are larger).
pub const MAX_APK: u64 = 4 << 30;

/// Why an installed app's APK could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PullError {
    #[error("{package:?} is not a package name (letters, digits, _ and dots, like com.example.app)")]
    BadPackage { package: String },
    #[error("{device}: package {package} is not installed (see `codeact devices` and `pm list packages`)")]
    NotInstalled { device: String, package: String },
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error("cannot make a temporary file for the pulled APK")]
    TempFile(#[source] std::io::Error),
    #[error(transparent)]
    Apk(#[from] ApkError),
}

/// What was pulled: where the APK lies on the phone, and what it says.
#[derive(Debug, Clone)]
pub struct Pulled {
    pub path: String,
    pub bytes: u64,
    pub info: ApkInfo,
}

/// Whether `s` is shaped like a package name (and safe to put on a command line).
pub fn is_package_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 255
        && s.split('.').all(|part| {
            part.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// The base APK's path from `pm path`'s lines (`package:/data/app/…/base.apk`, one
/// per split).
fn base_apk(pm_output: &str) -> Option<&str> {
    let paths: Vec<&str> = pm_output.lines().filter_map(|l| l.trim().strip_prefix("package:")).collect();
    paths.iter().find(|p| p.ends_with("/base.apk")).or(paths.first()).copied()
}

/// Pulls `package`'s APK from `device` and reads it.
pub fn from_device(device: &mut dyn Device, package: &str) -> Result<Pulled, PullError> {
    if !is_package_name(package) {
        return Err(PullError::BadPackage { package: package.to_string() });
    }
    let listed = device.shell(&format!("pm path {package}"))?;
    let text = listed.stdout_text();
    let Some(path) = base_apk(&text) else {
        return Err(PullError::NotInstalled { device: device.name().to_string(), package: package.to_string() });
    };
    let path = path.to_string();
    let mut file = tempfile::tempfile().map_err(PullError::TempFile)?;
    let bytes = device.pull_file(&path, &mut file, MAX_APK)?;
    file.seek(SeekFrom::Start(0)).map_err(PullError::TempFile)?;
    let name = format!("{}:{path}", device.name());
    let info = super::read(std::io::BufReader::new(file), &name)?;
    Ok(Pulled { path, bytes, info })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_base_apk_is_chosen_among_splits() {
        let out = "package:/data/app/x/split_config.en.apk\npackage:/data/app/x/base.apk\n";
        assert_eq!(base_apk(out), Some("/data/app/x/base.apk"));
        assert_eq!(base_apk("package:/system/app/A/A.apk\n"), Some("/system/app/A/A.apk"));
        assert_eq!(base_apk(""), None);
    }

    #[test]
    fn package_names_are_checked_before_they_reach_a_shell() {
        assert!(is_package_name("com.example.notes"));
        assert!(is_package_name("android"));
        for bad in ["", "com..x", "1com.x", "com.x;rm -rf /", "com.x y", ".com"] {
            assert!(!is_package_name(bad), "{bad}");
        }
    }
}
