//! What an APK declares, as codeact keeps it: the app ([`ApkInfo`]), its activities
//! and their intent filters, the bounds of what is read, and why a file could not be
//! read ([`ApkError`]). Not the reading itself (`mod.rs`, `manifest.rs`).

use serde::Serialize;

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
