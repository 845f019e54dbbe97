//! The virtual phone's apps as real APK files: a zip whose `AndroidManifest.xml` is
//! binary XML declaring the app's package, version, label, permissions and one
//! activity per screen — the launcher activity with the MAIN/LAUNCHER intent filter,
//! the activities that open links with their VIEW filters. They are built from the
//! app files when the phone starts and lie where `pm path` says, so `adb pull` and
//! any APK tool read them as they read a phone's.
//!
//! Not an installer: the phone runs only the apps its data files describe (and
//! reads the manifest of an APK someone installs, `manifest_read.rs`, to know
//! whether it is one of the packages it can play).

mod axml;
pub(crate) mod manifest_read;

use std::io::Write;

use axml::{Attr, Element, Value};

use crate::world::AppSpec;

/// The SDK the phone runs (Android 14) and its apps target.
const SDK: u32 = 34;
/// The oldest Android the apps declare they run on.
const MIN_SDK: u32 = 26;

/// Where `pm path` says an app's APK is.
pub(crate) fn path_of(package: &str, system: bool) -> String {
    if system {
        format!("/system/priv-app/{package}/{package}.apk")
    } else {
        format!("/data/app/~~codeact==/{package}-1/base.apk")
    }
}

fn android_name(value: impl Into<String>) -> Attr {
    Attr::android("name", Value::Text(value.into()))
}

fn intent_filter(action: &str, categories: &[&str], data: Option<Element>) -> Element {
    let mut children = vec![Element::new("action", vec![android_name(action)])];
    children.extend(categories.iter().map(|c| Element::new("category", vec![android_name(*c)])));
    children.extend(data);
    Element::new("intent-filter", Vec::new()).with(children)
}

/// `sms:` → scheme `sms`; `https://example.com/x` → scheme `https`, host `example.com`.
fn data_element(prefix: &str) -> Option<Element> {
    let (scheme, rest) = prefix.split_once(':')?;
    let mut attrs = vec![Attr::android("scheme", Value::Text(scheme.to_string()))];
    if let Some(host) = rest.strip_prefix("//").map(|r| r.split('/').next().unwrap_or("")).filter(|h| !h.is_empty()) {
        attrs.push(Attr::android("host", Value::Text(host.to_string())));
    }
    Some(Element::new("data", attrs))
}

/// The app's manifest, as its source XML would say it.
fn manifest(app: &AppSpec) -> Element {
    let launcher = app.launcher.as_deref().map(|a| app.full_activity(a));
    let is_home = app.package == crate::world::LAUNCHER_PACKAGE;
    let mut activities = Vec::new();
    for screen in &app.screens {
        let name = app.full_activity(&screen.activity);
        let mut filters = Vec::new();
        if launcher.as_deref() == Some(name.as_str()) {
            filters.push(if is_home {
                intent_filter(
                    "android.intent.action.MAIN",
                    &["android.intent.category.HOME", "android.intent.category.DEFAULT"],
                    None,
                )
            } else {
                intent_filter("android.intent.action.MAIN", &["android.intent.category.LAUNCHER"], None)
            });
        }
        for link in app.links.iter().filter(|l| app.full_activity(&l.activity) == name) {
            filters.push(intent_filter(
                "android.intent.action.VIEW",
                &["android.intent.category.DEFAULT", "android.intent.category.BROWSABLE"],
                data_element(&link.prefix),
            ));
        }
        // Since Android 12 an activity with an intent filter must say it is exported.
        let exported = !filters.is_empty();
        activities.push(
            Element::new("activity", vec![android_name(name), Attr::android("exported", Value::Bool(exported))])
                .with(filters),
        );
    }
    let mut children = vec![Element::new(
        "uses-sdk",
        vec![Attr::android("minSdkVersion", Value::Int(MIN_SDK)), Attr::android("targetSdkVersion", Value::Int(SDK))],
    )];
    children.extend(app.permissions.iter().map(|p| Element::new("uses-permission", vec![android_name(p.clone())])));
    children.push(
        Element::new("application", vec![Attr::android("label", Value::Text(app.label.clone()))]).with(activities),
    );
    Element::new(
        "manifest",
        vec![
            Attr::android("versionCode", Value::Int(app.version_code)),
            Attr::android("versionName", Value::Text(app.version.clone())),
            Attr::android("compileSdkVersion", Value::Int(SDK)),
            Attr::plain("package", Value::Text(app.package.clone())),
            Attr::plain("platformBuildVersionCode", Value::Int(SDK)),
        ],
    )
    .with(children)
}

/// A system package without screens (`android`, the keyboards…): a manifest that
/// names it and nothing else, so `pm path` always points at a file.
pub(crate) fn build_bare(package: &str) -> Result<Vec<u8>, BuildError> {
    let manifest = Element::new(
        "manifest",
        vec![
            Attr::android("versionCode", Value::Int(SDK)),
            Attr::android("versionName", Value::Text("14".into())),
            Attr::plain("package", Value::Text(package.to_string())),
        ],
    )
    .with(vec![Element::new("application", vec![Attr::android("label", Value::Text(package.to_string()))])]);
    zipped(package, &axml::encode(&manifest))
}

/// Why an APK could not be written (only a bug in the zip writer could cause it).
#[derive(Debug, thiserror::Error)]
#[error("cannot build the APK of {package}")]
pub(crate) struct BuildError {
    package: String,
    #[source]
    source: zip::result::ZipError,
}

/// The app as an APK file's bytes.
pub(crate) fn build(app: &AppSpec) -> Result<Vec<u8>, BuildError> {
    zipped(&app.package, &axml::encode(&manifest(app)))
}

/// An APK holding `manifest`.
fn zipped(package: &str, manifest: &[u8]) -> Result<Vec<u8>, BuildError> {
    let fail = |source| BuildError { package: package.to_string(), source };
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    // A fixed time, so that the same app files give the same bytes.
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default());
    zip.start_file("AndroidManifest.xml", options).map_err(fail)?;
    zip.write_all(manifest).map_err(|e| fail(e.into()))?;
    Ok(zip.finish().map_err(fail)?.into_inner())
}

#[cfg(test)]
mod tests;
