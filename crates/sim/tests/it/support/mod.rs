//! What the virtual device's tests share: a phone started in-process and driven
//! through adb_client (`phone`), a private stock adb server (`adb_server`), and
//! readers for dumps and PNGs that know nothing of the device's insides.
#![allow(dead_code)]

pub mod adb_server;
pub mod phone;

pub use adb_server::AdbServer;

/// The XML part of `uiautomator dump /dev/tty` output (without the status line).
pub fn dump_xml(raw: &str) -> &str {
    let end = raw.rfind("</hierarchy>").map(|i| i + "</hierarchy>".len()).unwrap_or(raw.len());
    &raw[..end]
}

pub fn parse_bounds(b: &str) -> Option<(i32, i32, i32, i32)> {
    let nums: Vec<i32> = b
        .split(|c: char| !c.is_ascii_digit() && c != '-')
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect();
    match nums.as_slice() {
        [l, t, r, b] => Some((*l, *t, *r, *b)),
        _ => None,
    }
}

pub fn center_of(raw: &str, attr: &str, value: &str) -> Option<(i32, i32)> {
    let doc = roxmltree::Document::parse(dump_xml(raw)).expect("dump parses as XML");
    let node = doc.descendants().find(|n| n.has_tag_name("node") && n.attribute(attr) == Some(value))?;
    let (l, t, r, b) = parse_bounds(node.attribute("bounds")?)?;
    Some(((l + r) / 2, (t + b) / 2))
}

pub fn attr_is(n: &roxmltree::Node, name: &str, value: &str) -> bool {
    n.attribute(name) == Some(value)
}

/// Reads (width, height) from a PNG header.
pub fn png_size(bytes: &[u8]) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let reader = decoder.read_info().expect("a valid PNG");
    let info = reader.info();
    (info.width, info.height)
}
