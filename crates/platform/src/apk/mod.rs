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

mod manifest;
pub mod pull;
mod references;

use std::io::{Read, Seek};
use std::path::Path;

use serde::Serialize;

pub use manifest::from_manifest;

/// The largest `AndroidManifest.xml` read, inflated (real ones are under 1 MiB).
pub const MAX_MANIFEST: u64 = 16 << 20;
/// The largest `resources.arsc` read, inflated (large apps' are tens of MiB).
pub const MAX_RESOURCES: u64 = 128 << 20;

/// An app as its APK declares it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApkInfo {
    pub package: String,
    /// `android:versionCode`, as written (a number).
    pub version_code: Option<String>,
    pub version_name: Option<String>,
    /// The application's label, its string resource resolved when the APK has one.
    pub label: Option<String>,
    /// The activity the launcher starts (MAIN + LAUNCHER), fully qualified.
    pub main_activity: Option<String>,
    pub min_sdk: Option<String>,
    pub target_sdk: Option<String>,
    /// Every `<activity>`, in manifest order.
    pub activities: Vec<Activity>,
    /// Every `<activity-alias>`: another name (and filters) for an activity.
    pub aliases: Vec<Activity>,
    /// `uses-permission` (and `uses-permission-sdk-23`), each once, in manifest order.
    pub permissions: Vec<String>,
    /// Defects the parser recovered from (a crafted manifest has some).
    pub anomalies: Vec<String>,
}

/// One activity (or alias).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Activity {
    /// Fully qualified (`.Main` in the manifest becomes `com.example.Main`).
    pub name: String,
    /// Whether other apps (and `am start`) may start it: `android:exported`, else
    /// true when it has an intent filter (Android's rule before it became required).
    pub exported: bool,
    /// `android:enabled="false"` turns it off.
    pub enabled: bool,
    /// For an alias: the activity it starts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    pub intent_filters: Vec<IntentFilter>,
}

/// One `<intent-filter>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct IntentFilter {
    pub actions: Vec<String>,
    pub categories: Vec<String>,
    /// `<data>` elements as URI patterns (`sms:`, `https://host:port/path`), the parts
    /// given; a MIME type when that is all it says.
    pub data: Vec<String>,
}

impl Activity {
    /// Whether a filter is MAIN + LAUNCHER: the launcher shows it.
    pub fn is_launcher(&self) -> bool {
        self.intent_filters.iter().any(|f| {
            f.actions.iter().any(|a| a == "android.intent.action.MAIN")
                && f.categories.iter().any(|c| c == "android.intent.category.LAUNCHER")
        })
    }
}

/// Why an APK could not be read. Each says what the file is missing or breaks.
#[derive(Debug, thiserror::Error)]
pub enum ApkError {
    #[error("cannot read {path}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not an APK (a zip archive)")]
    NotZip {
        path: String,
        #[source]
        source: zip::result::ZipError,
    },
    #[error("{path} has no AndroidManifest.xml: an APK always does (is it an AAB or a split?)")]
    NoManifest { path: String },
    #[error("{entry} in {path} is {size} bytes inflated, above the {max}-byte limit")]
    TooLarge { path: String, entry: &'static str, size: u64, max: u64 },
    #[error("{entry} in {path} cannot be inflated")]
    Inflate {
        path: String,
        entry: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("AndroidManifest.xml in {path} is not binary XML Android could read")]
    Manifest {
        path: String,
        #[source]
        source: apk_info_axml::errors::AXMLError,
    },
    #[error("AndroidManifest.xml in {path} has no <manifest> root with a package name")]
    NoPackage { path: String },
    #[error("the manifest parser failed on {path}; the file is malformed")]
    ParserFailed { path: String },
    #[error(
        "AndroidManifest.xml in {path} nests elements {depth} deep, past the {max} any real manifest needs; the file is crafted or broken"
    )]
    TooDeep { path: String, depth: usize, max: usize },
}

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
