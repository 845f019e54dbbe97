//! A binary `AndroidManifest.xml` (and the resource table its references point
//! into) turned into an [`ApkInfo`]: names made fully qualified as Android does,
//! `exported` as Android decides it, permissions once each. Bounded by what
//! [`super::read`] hands it; a panic in the third-party parser is caught and named;
//! it runs on a thread whose stack grows with the manifest (its tree is dropped one
//! level per frame), elements nested deeper than a manifest ever is are refused, and
//! a resource table whose references loop is set aside before anything follows them.

use apk_info_axml::{ARSC, AXML};
use apk_info_xml::Element;

use super::info::{Activity, ApkError, ApkInfo, IntentFilter};

/// `.Main` → `com.example.Main`; `Main` (no dot) → `com.example.Main`; others as they are.
fn qualify(package: &str, name: &str) -> String {
    if name.starts_with('.') {
        format!("{package}{name}")
    } else if !name.contains('.') && !package.is_empty() {
        format!("{package}.{name}")
    } else {
        name.to_string()
    }
}

#[cfg(test)]
pub(super) fn qualify_for_tests(package: &str, name: &str) -> String {
    qualify(package, name)
}

fn truth(value: Option<&str>) -> Option<bool> {
    match value? {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

fn intent_filter(element: &Element) -> IntentFilter {
    let mut filter = IntentFilter::default();
    for child in element.childrens() {
        match child.name() {
            "action" => filter.actions.extend(child.attr("name").map(str::to_string)),
            "category" => filter.categories.extend(child.attr("name").map(str::to_string)),
            "data" => {
                let part = |k: &str| child.attr(k).unwrap_or("");
                let mut uri = String::new();
                if !part("scheme").is_empty() {
                    uri.push_str(part("scheme"));
                    uri.push(':');
                }
                if !part("host").is_empty() {
                    uri.push_str("//");
                    uri.push_str(part("host"));
                }
                if !part("port").is_empty() {
                    uri.push(':');
                    uri.push_str(part("port"));
                }
                for key in ["path", "pathPrefix", "pathPattern"] {
                    uri.push_str(part(key));
                }
                if uri.is_empty() {
                    uri = child.attr("mimeType").unwrap_or("").to_string();
                }
                if !uri.is_empty() {
                    filter.data.push(uri);
                }
            }
            _ => {}
        }
    }
    filter
}

fn activity(package: &str, element: &Element) -> Option<Activity> {
    let name = qualify(package, element.attr("name")?);
    let intent_filters: Vec<IntentFilter> =
        element.childrens().filter(|c| c.name() == "intent-filter").map(intent_filter).collect();
    let exported = truth(element.attr("exported")).unwrap_or(!intent_filters.is_empty());
    Some(Activity {
        name,
        exported,
        enabled: truth(element.attr("enabled")) != Some(false),
        target: element.attr("targetActivity").map(|t| qualify(package, t)),
        intent_filters,
    })
}

/// Reads a manifest's bytes (and the resource table's, if the APK has one); `name`
/// is what messages call the APK.
pub fn from_manifest(manifest: &[u8], resources: Option<&[u8]>, name: &str) -> Result<ApkInfo, ApkError> {
    // The parsers are third-party code on hostile bytes: a panic there is this APK's
    // error, not the process's end. Their tree owns its children, so building and
    // dropping it recurse once per level: the stack is made big enough for the
    // deepest tree these bytes can describe (an element takes at least 60 bytes).
    let stack = PARSER_STACK + manifest.len().saturating_mul(STACK_PER_BYTE);
    let failed = || ApkError::ParserFailed { path: name.to_string() };
    std::thread::scope(|s| {
        let parser = std::thread::Builder::new()
            .name("codeact-apk".into())
            .stack_size(stack)
            .spawn_scoped(s, || parse(manifest, resources, name))
            .map_err(|_| failed())?;
        parser.join().unwrap_or_else(|_| Err(failed()))
    })
}

/// The stack the manifest parser starts with, and what it gets per manifest byte.
const PARSER_STACK: usize = 2 << 20;
const STACK_PER_BYTE: usize = 8;

/// The deepest a manifest's elements may nest (real ones: under ten).
pub const MAX_DEPTH: usize = 64;

/// How deep `root`'s elements nest, counted without recursion.
fn depth_of(root: &Element) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(root, 1usize)];
    while let Some((e, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        stack.extend(e.childrens().map(|c| (c, depth + 1)));
    }
    deepest
}

fn parse(manifest: &[u8], resources: Option<&[u8]>, name: &str) -> Result<ApkInfo, ApkError> {
    let mut table = resources.and_then(|mut bytes| ARSC::new(&mut bytes).ok());
    let mut anomalies = Vec::new();
    if resources.is_some() && table.is_none() {
        anomalies.push("resources.arsc could not be read: references stay unresolved".to_string());
    }
    if table.as_ref().is_some_and(super::references::has_endless_chain) {
        table = None;
        anomalies.push(format!(
            "resources.arsc has references that loop or run more than {} hops: references stay unresolved",
            super::references::MOST_HOPS
        ));
    }
    let mut input = manifest;
    let axml = AXML::new(&mut input, table.as_ref())
        .map_err(|source| ApkError::Manifest { path: name.to_string(), source })?;
    let depth = depth_of(&axml.root);
    if depth > MAX_DEPTH {
        return Err(ApkError::TooDeep { path: name.to_string(), depth, max: MAX_DEPTH });
    }
    anomalies.extend(axml.anomalies().iter().map(|a| format!("{a:?}")));
    anomalies.extend(table.iter().flat_map(|t| t.anomalies().iter().map(|a| format!("resources: {a:?}"))));
    let root = &axml.root;
    let package = match (root.name(), root.attr("package")) {
        ("manifest", Some(p)) if !p.is_empty() => p.to_string(),
        _ => return Err(ApkError::NoPackage { path: name.to_string() }),
    };
    let get = |tag: &str, attr: &str| axml.get_attribute_value(tag, attr, table.as_ref());
    let application = root.childrens().find(|c| c.name() == "application");
    let components = |tag: &'static str| {
        application
            .into_iter()
            .flat_map(move |a| a.childrens())
            .filter(move |c| c.name() == tag)
            .filter_map(|c| activity(&package, c))
            .collect::<Vec<_>>()
    };
    let activities = components("activity");
    let aliases = components("activity-alias");
    let mut permissions: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for p in root
        .childrens()
        .filter(|c| matches!(c.name(), "uses-permission" | "uses-permission-sdk-23"))
        .filter_map(|c| c.attr("name"))
    {
        if seen.insert(p) {
            permissions.push(p.to_string());
        }
    }
    let main_activity = axml.get_main_activities().next().map(|a| qualify(&package, a));
    Ok(ApkInfo {
        version_code: get("manifest", "versionCode"),
        version_name: get("manifest", "versionName"),
        label: get("application", "label"),
        main_activity,
        min_sdk: get("uses-sdk", "minSdkVersion"),
        target_sdk: get("uses-sdk", "targetSdkVersion"),
        activities,
        aliases,
        permissions,
        anomalies,
        package,
    })
}
