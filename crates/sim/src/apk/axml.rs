//! Android's binary XML ("AXML"), written: the chunk format `aapt` compiles an
//! `AndroidManifest.xml` into (a UTF-16 string pool, the resource map that ties the
//! `android:` attribute names to their framework ids, then namespace and element
//! chunks), so the virtual phone's APKs are read by the same parsers as a phone's.
//!
//! Only what a manifest needs: one namespace, string, integer and boolean attribute
//! values. Not a reader: codeact's runtime reads APKs with a parser of its own choosing,
//! which is the point of writing the format here.

use std::collections::BTreeMap;

/// The `android:` namespace.
pub(crate) const ANDROID_NS: &str = "http://schemas.android.com/apk/res/android";

const RES_STRING_POOL_TYPE: u16 = 0x0001;
const RES_XML_TYPE: u16 = 0x0003;
const RES_XML_START_NAMESPACE_TYPE: u16 = 0x0100;
const RES_XML_END_NAMESPACE_TYPE: u16 = 0x0101;
const RES_XML_START_ELEMENT_TYPE: u16 = 0x0102;
const RES_XML_END_ELEMENT_TYPE: u16 = 0x0103;
const RES_XML_RESOURCE_MAP_TYPE: u16 = 0x0180;

const TYPE_STRING: u8 = 0x03;
const TYPE_INT_DEC: u8 = 0x10;
const TYPE_INT_BOOLEAN: u8 = 0x12;

/// "No string" in an index field.
const NONE: u32 = u32::MAX;

/// The framework's resource id of each `android:` attribute a manifest here uses
/// (from `android.R.attr`): Android finds attributes by these ids, not by name.
fn android_attr_id(name: &str) -> Option<u32> {
    Some(match name {
        "label" => 0x0101_0001,
        "icon" => 0x0101_0002,
        "name" => 0x0101_0003,
        "exported" => 0x0101_0010,
        "scheme" => 0x0101_0027,
        "host" => 0x0101_0028,
        "minSdkVersion" => 0x0101_020c,
        "versionCode" => 0x0101_021b,
        "versionName" => 0x0101_021c,
        "targetSdkVersion" => 0x0101_0270,
        "compileSdkVersion" => 0x0101_0572,
        _ => return None,
    })
}

/// An attribute's value as the manifest types it.
#[derive(Debug, Clone)]
pub(crate) enum Value {
    Text(String),
    Int(u32),
    Bool(bool),
}

/// One attribute: `android:NAME` when `android` is set, else a plain `NAME` (as
/// `package` on `<manifest>`).
#[derive(Debug, Clone)]
pub(crate) struct Attr {
    pub(crate) android: bool,
    pub(crate) name: &'static str,
    pub(crate) value: Value,
}

impl Attr {
    pub(crate) fn android(name: &'static str, value: Value) -> Self {
        Self { android: true, name, value }
    }
    pub(crate) fn plain(name: &'static str, value: Value) -> Self {
        Self { android: false, name, value }
    }
}

/// An element and what it holds.
#[derive(Debug, Clone)]
pub(crate) struct Element {
    pub(crate) name: &'static str,
    pub(crate) attrs: Vec<Attr>,
    pub(crate) children: Vec<Element>,
}

impl Element {
    pub(crate) fn new(name: &'static str, attrs: Vec<Attr>) -> Self {
        Self { name, attrs, children: Vec::new() }
    }
    pub(crate) fn with(mut self, children: Vec<Element>) -> Self {
        self.children = children;
        self
    }
}

/// The string pool: the `android:` attribute names first, in the order of the
/// resource map (the map's n-th id belongs to the n-th string), then the rest.
struct Strings {
    list: Vec<String>,
    index: BTreeMap<String, u32>,
    ids: Vec<u32>,
}

impl Strings {
    fn of(root: &Element) -> Self {
        let mut attr_names: BTreeMap<u32, &'static str> = BTreeMap::new();
        let mut others: Vec<String> = vec![ANDROID_NS.into(), "android".into()];
        fn walk(e: &Element, attr_names: &mut BTreeMap<u32, &'static str>, others: &mut Vec<String>) {
            others.push(e.name.into());
            for a in &e.attrs {
                match android_attr_id(a.name).filter(|_| a.android) {
                    Some(id) => {
                        attr_names.insert(id, a.name);
                    }
                    None => others.push(a.name.into()),
                }
                if let Value::Text(t) = &a.value {
                    others.push(t.clone());
                }
            }
            for c in &e.children {
                walk(c, attr_names, others);
            }
        }
        walk(root, &mut attr_names, &mut others);
        let mut strings = Strings { list: Vec::new(), index: BTreeMap::new(), ids: Vec::new() };
        for (id, name) in attr_names {
            strings.ids.push(id);
            strings.add(name);
        }
        for s in others {
            strings.add(&s);
        }
        strings
    }

    fn add(&mut self, s: &str) {
        if !self.index.contains_key(s) {
            self.index.insert(s.to_string(), self.list.len() as u32);
            self.list.push(s.to_string());
        }
    }

    fn at(&self, s: &str) -> u32 {
        self.index.get(s).copied().unwrap_or(NONE)
    }

    /// The pool chunk, UTF-16 as aapt writes manifests.
    fn chunk(&self) -> Vec<u8> {
        let mut data = Vec::new();
        let mut offsets = Vec::new();
        for s in &self.list {
            offsets.push(data.len() as u32);
            let units: Vec<u16> = s.encode_utf16().collect();
            // Lengths of 0x8000 units or more take two u16s, high bit set on the first.
            let n = units.len();
            if n >= 0x8000 {
                data.extend_from_slice(&((((n >> 16) as u16) | 0x8000).to_le_bytes()));
            }
            data.extend_from_slice(&((n & 0xFFFF) as u16).to_le_bytes());
            for u in units {
                data.extend_from_slice(&u.to_le_bytes());
            }
            data.extend_from_slice(&[0, 0]);
        }
        while data.len() % 4 != 0 {
            data.push(0);
        }
        let header_size = 28u32;
        let strings_start = header_size + 4 * self.list.len() as u32;
        let mut chunk = Vec::new();
        push_header(&mut chunk, RES_STRING_POOL_TYPE, header_size as u16, strings_start + data.len() as u32);
        for word in [self.list.len() as u32, 0, 0, strings_start, 0] {
            chunk.extend_from_slice(&word.to_le_bytes());
        }
        for o in offsets {
            chunk.extend_from_slice(&o.to_le_bytes());
        }
        chunk.extend_from_slice(&data);
        chunk
    }

    fn resource_map(&self) -> Vec<u8> {
        let mut chunk = Vec::new();
        push_header(&mut chunk, RES_XML_RESOURCE_MAP_TYPE, 8, 8 + 4 * self.ids.len() as u32);
        for id in &self.ids {
            chunk.extend_from_slice(&id.to_le_bytes());
        }
        chunk
    }
}

fn push_header(out: &mut Vec<u8>, kind: u16, header_size: u16, size: u32) {
    out.extend_from_slice(&kind.to_le_bytes());
    out.extend_from_slice(&header_size.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
}

fn push_words(out: &mut Vec<u8>, words: &[u32]) {
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
    }
}

/// `<root>` as a binary XML document, `xmlns:android` declared on it.
pub(crate) fn encode(root: &Element) -> Vec<u8> {
    let strings = Strings::of(root);
    let ns = strings.at(ANDROID_NS);
    let prefix = strings.at("android");
    let mut body = strings.chunk();
    body.extend(strings.resource_map());
    let mut line = 1u32;
    push_header(&mut body, RES_XML_START_NAMESPACE_TYPE, 16, 24);
    push_words(&mut body, &[line, NONE, prefix, ns]);
    fn element(e: &Element, strings: &Strings, ns: u32, line: &mut u32, out: &mut Vec<u8>) {
        *line += 1;
        // Sorted by resource id (plain names last), as aapt does: Android looks
        // attributes up by id.
        let mut attrs: Vec<&Attr> = e.attrs.iter().collect();
        attrs.sort_by_key(|a| android_attr_id(a.name).filter(|_| a.android).unwrap_or(u32::MAX));
        let size = 36 + 20 * attrs.len() as u32;
        push_header(out, RES_XML_START_ELEMENT_TYPE, 16, size);
        push_words(out, &[*line, NONE, NONE, strings.at(e.name)]);
        // attributeStart, attributeSize, count, idIndex, classIndex, styleIndex.
        for half in [20u16, 20, attrs.len() as u16, 0, 0, 0] {
            out.extend_from_slice(&half.to_le_bytes());
        }
        for a in attrs {
            let (raw, kind, data) = match &a.value {
                Value::Text(t) => (strings.at(t), TYPE_STRING, strings.at(t)),
                Value::Int(n) => (NONE, TYPE_INT_DEC, *n),
                Value::Bool(b) => (NONE, TYPE_INT_BOOLEAN, if *b { u32::MAX } else { 0 }),
            };
            push_words(out, &[if a.android { ns } else { NONE }, strings.at(a.name), raw]);
            out.extend_from_slice(&8u16.to_le_bytes());
            out.push(0);
            out.push(kind);
            out.extend_from_slice(&data.to_le_bytes());
        }
        for c in &e.children {
            element(c, strings, ns, line, out);
        }
        push_header(out, RES_XML_END_ELEMENT_TYPE, 16, 24);
        push_words(out, &[*line, NONE, NONE, strings.at(e.name)]);
    }
    element(root, &strings, ns, &mut line, &mut body);
    push_header(&mut body, RES_XML_END_NAMESPACE_TYPE, 16, 24);
    push_words(&mut body, &[line, NONE, prefix, ns]);
    let mut doc = Vec::with_capacity(body.len() + 8);
    push_header(&mut doc, RES_XML_TYPE, 8, 8 + body.len() as u32);
    doc.extend(body);
    doc
}
