//! What an APK says about its app, read from the file: package, version, label, the
//! launcher activity, every activity (exported or not, with its intent filters) and
//! the permissions it asks for — from the binary `AndroidManifest.xml` inside the zip,
//! its references resolved through `resources.arsc`. `codeact apk info` prints it and
//! exploration measures activity coverage against it.
//!
//! The zip is read with the `zip` crate, the binary XML and the resource table with
//! `apk-info-axml` (a parser built for hostile APKs). Everything read is bounded: the
//! entries' sizes are checked before and while they are inflated, so a huge, truncated
//! or crafted file is an [`ApkError`], never unbounded memory or a panic.
//!
//! Not for installing, signing or decompiling; not for talking to a device (that is
//! [`pull`], which fetches an installed app's APK through the [`Device`] trait).
//!
//! [`Device`]: crate::device::Device

mod info;
mod manifest;
pub mod pull;
mod references;

use std::io::{Read, Seek};
use std::path::Path;

pub use info::{Activity, ApkError, ApkInfo, IntentFilter, MAX_MANIFEST, MAX_RESOURCES};
pub use manifest::from_manifest;

/// Reads the APK at `path`.
pub fn read_file(path: &Path) -> Result<ApkInfo, ApkError> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|source| ApkError::Read { path: name.clone(), source })?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        let source = std::io::Error::new(std::io::ErrorKind::IsADirectory, "a folder, not an APK file");
        return Err(ApkError::Read { path: name, source });
    }
    read(std::io::BufReader::new(file), &name)
}

/// Reads an APK from any seekable source; `name` is what messages call it.
pub fn read(source: impl Read + Seek, name: &str) -> Result<ApkInfo, ApkError> {
    let mut zip = zip::ZipArchive::new(source).map_err(|source| ApkError::NotZip { path: name.into(), source })?;
    let manifest = entry(&mut zip, name, "AndroidManifest.xml", MAX_MANIFEST)?
        .ok_or_else(|| ApkError::NoManifest { path: name.into() })?;
    // Without the table the label stays a reference (`@string/app_name`); a broken
    // table is an anomaly, not a reason to refuse the manifest.
    let resources = entry(&mut zip, name, "resources.arsc", MAX_RESOURCES).unwrap_or(None);
    from_manifest(&manifest, resources.as_deref(), name)
}

/// The inflated bytes of `entry`, `None` when the zip has no such entry; at most `max`
/// bytes whatever the header claims.
fn entry<R: Read + Seek>(
    zip: &mut zip::ZipArchive<R>,
    path: &str,
    entry: &'static str,
    max: u64,
) -> Result<Option<Vec<u8>>, ApkError> {
    let mut file = match zip.by_name(entry) {
        Ok(f) => f,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(source) => return Err(ApkError::NotZip { path: path.into(), source }),
    };
    if file.size() > max {
        return Err(ApkError::TooLarge { path: path.into(), entry, size: file.size(), max });
    }
    let mut bytes = Vec::with_capacity(file.size().min(max) as usize);
    (&mut file).take(max + 1).read_to_end(&mut bytes).map_err(|source| ApkError::Inflate {
        path: path.into(),
        entry,
        source,
    })?;
    if bytes.len() as u64 > max {
        return Err(ApkError::TooLarge { path: path.into(), entry, size: bytes.len() as u64, max });
    }
    Ok(Some(bytes))
}

#[cfg(test)]
mod tests;
