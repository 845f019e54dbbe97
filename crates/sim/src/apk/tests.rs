use super::*;
use crate::world::Catalog;

fn app(package: &str) -> AppSpec {
    let catalog = Catalog::bundled().unwrap();
    catalog.apps.iter().find(|a| a.package == package).unwrap().clone()
}

/// Reads a string from the pool chunk at `at` (UTF-16), for checking the writer by hand.
fn pool_strings(doc: &[u8]) -> Vec<String> {
    let u32_at = |i: usize| u32::from_le_bytes(doc[i..i + 4].try_into().unwrap());
    let pool = 8;
    let count = u32_at(pool + 8) as usize;
    let start = pool + u32_at(pool + 20) as usize;
    (0..count)
        .map(|n| {
            let off = start + u32_at(pool + 28 + 4 * n) as usize;
            let len = u16::from_le_bytes([doc[off], doc[off + 1]]) as usize;
            let units: Vec<u16> =
                (0..len).map(|k| u16::from_le_bytes([doc[off + 2 + 2 * k], doc[off + 3 + 2 * k]])).collect();
            String::from_utf16(&units).unwrap()
        })
        .collect()
}

#[test]
fn the_manifest_is_binary_xml_with_the_attribute_names_mapped_first() {
    let doc = axml::encode(&manifest(&app("com.google.android.apps.messaging")));
    assert_eq!(&doc[..4], &[0x03, 0x00, 0x08, 0x00], "RES_XML_TYPE, header 8");
    assert_eq!(u32::from_le_bytes(doc[4..8].try_into().unwrap()) as usize, doc.len());
    let strings = pool_strings(&doc);
    // The resource map's ids belong to the first strings, in id order.
    assert_eq!(&strings[..3], &["label", "name", "exported"]);
    for s in ["com.google.android.apps.messaging", "android.intent.category.LAUNCHER", "sms", "smsto", "Messages"] {
        assert!(strings.iter().any(|x| x == s), "{s} missing from {strings:?}");
    }
}

#[test]
fn every_bundled_app_builds_an_apk_whose_zip_holds_the_manifest() {
    for app in Catalog::bundled().unwrap().apps {
        let bytes = build(&app).unwrap();
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
        let mut manifest = Vec::new();
        std::io::Read::read_to_end(&mut zip.by_name("AndroidManifest.xml").unwrap(), &mut manifest).unwrap();
        assert_eq!(manifest, axml::encode(&super::manifest(&app)));
        // The same files give the same bytes.
        assert_eq!(build(&app).unwrap(), build(&app).unwrap());
    }
}

#[test]
fn link_prefixes_become_data_elements() {
    let d = data_element("https://example.com/a/b").unwrap();
    let texts: Vec<String> = d.attrs.iter().map(|a| format!("{}={:?}", a.name, a.value)).collect();
    assert_eq!(texts, ["scheme=Text(\"https\")", "host=Text(\"example.com\")"]);
    assert!(data_element("no-scheme").is_none());
}
