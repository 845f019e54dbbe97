use std::io::{Cursor, Write};

use super::*;

fn zip_with(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        zip.start_file(*name, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

fn read_bytes(bytes: Vec<u8>) -> Result<ApkInfo, ApkError> {
    read(Cursor::new(bytes), "test.apk")
}

#[test]
fn what_is_not_an_apk_says_what_is_missing() {
    assert!(matches!(read_bytes(b"hello".to_vec()), Err(ApkError::NotZip { .. })));
    assert!(matches!(read_bytes(Vec::new()), Err(ApkError::NotZip { .. })));
    let err = read_bytes(zip_with(&[("classes.dex", b"dex\n035\0")])).unwrap_err();
    assert!(matches!(err, ApkError::NoManifest { .. }));
    assert!(err.to_string().contains("has no AndroidManifest.xml"), "{err}");
    // A text manifest (an unbuilt project's) is not binary XML.
    let err = read_bytes(zip_with(&[("AndroidManifest.xml", b"<manifest package=\"a.b\"/>")])).unwrap_err();
    assert!(matches!(err, ApkError::Manifest { .. }), "{err:?}");
}

#[test]
fn a_manifest_that_inflates_past_the_limit_is_refused_unread() {
    // 17 MiB of zeros deflate to a few KiB: a zip bomb in miniature.
    let zeros = vec![0u8; (MAX_MANIFEST + (1 << 20)) as usize];
    let bytes = zip_with(&[("AndroidManifest.xml", &zeros)]);
    assert!(bytes.len() < 200_000);
    let err = read_bytes(bytes).unwrap_err();
    assert!(matches!(err, ApkError::TooLarge { entry: "AndroidManifest.xml", .. }), "{err:?}");
}

#[test]
fn a_cut_file_is_an_error_at_every_length() {
    let bytes = zip_with(&[("AndroidManifest.xml", &[3, 0, 8, 0, 0, 1, 0, 0, 1, 0, 28, 0])]);
    for len in 0..bytes.len() {
        assert!(read_bytes(bytes[..len].to_vec()).is_err(), "cut at {len}");
    }
}

#[test]
fn names_are_qualified_as_android_does() {
    let manifest_of = |xml_names: &[&str]| -> Vec<String> {
        xml_names.iter().map(|n| manifest::qualify_for_tests("com.example", n)).collect()
    };
    assert_eq!(
        manifest_of(&[".Main", "Main", "org.other.Main", "com.example.ui.Main"]),
        ["com.example.Main", "com.example.Main", "org.other.Main", "com.example.ui.Main"]
    );
}

#[test]
fn a_folder_or_a_missing_file_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let err = read_file(dir.path()).unwrap_err();
    assert!(matches!(err, ApkError::Read { .. }));
    assert!(matches!(read_file(&dir.path().join("none.apk")), Err(ApkError::Read { .. })));
}
