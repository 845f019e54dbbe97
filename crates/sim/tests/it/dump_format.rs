//! The virtual device's dumps against real ones: same attribute set and order on
//! every node, same declaration and root, one line — so any parser that reads a real
//! phone's `uiautomator dump` reads the virtual device's.

use crate::support as common;

use common::phone::Phone;

/// The attribute order of `uiautomator dump` on Android 14 (see the fixture below).
const ATTRIBUTES: &[&str] = &[
    "index",
    "text",
    "resource-id",
    "class",
    "package",
    "content-desc",
    "checkable",
    "checked",
    "clickable",
    "enabled",
    "focusable",
    "focused",
    "scrollable",
    "long-clickable",
    "password",
    "selected",
    "bounds",
];

/// Attribute names of one `<node ...>` tag, in order (values never contain `="`
/// because the serializer escapes `"`).
fn attribute_names(tag: &str) -> Vec<String> {
    let parts: Vec<&str> = tag.split("=\"").collect();
    parts[..parts.len().saturating_sub(1)].iter().map(|p| p.rsplit(' ').next().unwrap_or("").to_string()).collect()
}

fn node_tags(xml: &str) -> Vec<&str> {
    xml.split("<node ")
        .skip(1)
        .map(|rest| &rest[..rest.find('>').unwrap_or(rest.len())])
        .map(|t| t.trim_end_matches(" /"))
        .collect()
}

#[test]
fn every_node_has_the_real_attribute_order() {
    let mut p = Phone::start();
    for setup in ["am start -n com.android.settings/.Settings", "monkey -p com.google.android.apps.messaging 1"] {
        p.sh(setup);
        let raw = p.dump();
        assert!(!raw.trim_end().contains('\n'), "one line plus the status line");
        let xml = common::dump_xml(&raw);
        assert!(
            xml.starts_with("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"><node ")
        );
        let tags = node_tags(xml);
        assert!(tags.len() >= 4, "a real tree, not a stub");
        for tag in tags {
            assert_eq!(attribute_names(tag), ATTRIBUTES, "attribute order of <node {tag:.80}...>");
        }
    }
}

#[test]
fn the_expected_order_is_what_a_real_phone_prints() {
    let fixture =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/fixtures/real-dumps/01-settings-developer-options.xml");
    let Ok(real) = std::fs::read_to_string(fixture) else {
        eprintln!("note: {fixture} not found (the shared/ folder sits beside the repository in CI); skipped");
        return;
    };
    let first = node_tags(&real).into_iter().next().expect("a node in the real dump");
    assert_eq!(attribute_names(first), ATTRIBUTES);
}
