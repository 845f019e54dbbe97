//! What an APK someone installs says of itself: its `<manifest>` element's
//! `package`, `android:versionCode` and `android:versionName`, read from the binary
//! `AndroidManifest.xml` inside the zip. Every read is bounded (the entry's size,
//! the string pool's counts, each offset checked against the chunk); anything
//! malformed is "not an APK", never a panic. Not a general AXML reader: the phone
//! only needs to know whether an APK is one of the packages it can play.

use std::io::Read;

pub(crate) use crate::world::Manifest;

/// The most of a manifest entry read.
const MANIFEST_BYTES: u64 = 4 * 1024 * 1024;

/// The manifest of the APK `bytes`, or why they are not an APK.
pub(crate) fn read(bytes: &[u8]) -> Result<Manifest, String> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| format!("not a zip: {e}"))?;
    let entry = zip.by_name("AndroidManifest.xml").map_err(|_| "no AndroidManifest.xml".to_string())?;
    let mut xml = Vec::new();
    entry.take(MANIFEST_BYTES).read_to_end(&mut xml).map_err(|e| format!("unreadable manifest: {e}"))?;
    parse(&xml).ok_or_else(|| "a manifest that is not binary XML with a <manifest package=...>".to_string())
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at.checked_add(2)?)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at.checked_add(4)?)?.try_into().ok()?))
}

/// The string pool's string `index` (UTF-8 or UTF-16, as its flags say).
fn string(pool: &[u8], index: u32) -> Option<String> {
    let count = u32_at(pool, 8)?;
    if index >= count {
        return None;
    }
    let utf8 = u32_at(pool, 16)? & 0x100 != 0;
    let start = u32_at(pool, 20)? as usize;
    let header = u16_at(pool, 2)? as usize;
    let offset = u32_at(pool, header.checked_add(index as usize * 4)?)? as usize;
    let at = start.checked_add(offset)?;
    if utf8 {
        // Two lengths (characters, then bytes), each one or two bytes.
        let skip = |at: usize| if pool.get(at)? & 0x80 != 0 { Some(at + 2) } else { Some(at + 1) };
        let bytes_at = skip(at)?;
        let len = match *pool.get(bytes_at)? {
            b if b & 0x80 != 0 => (((b & 0x7f) as usize) << 8) | *pool.get(bytes_at + 1)? as usize,
            b => b as usize,
        };
        let text_at = skip(bytes_at)?;
        Some(String::from_utf8_lossy(pool.get(text_at..text_at.checked_add(len)?)?).into_owned())
    } else {
        let mut len = u16_at(pool, at)? as usize;
        let mut text_at = at + 2;
        if len & 0x8000 != 0 {
            len = ((len & 0x7fff) << 16) | u16_at(pool, at + 2)? as usize;
            text_at += 2;
        }
        let units: Vec<u16> = (0..len).map(|i| u16_at(pool, text_at + i * 2)).collect::<Option<_>>()?;
        Some(String::from_utf16_lossy(&units))
    }
}

/// The first `<manifest>` element's facts.
fn parse(xml: &[u8]) -> Option<Manifest> {
    if u16_at(xml, 0)? != 0x0003 {
        return None;
    }
    let mut at = u16_at(xml, 2)? as usize;
    let mut pool: Option<&[u8]> = None;
    while at < xml.len() {
        let (kind, size) = (u16_at(xml, at)?, u32_at(xml, at + 4)? as usize);
        let chunk = xml.get(at..at.checked_add(size)?)?;
        if size < 8 {
            return None;
        }
        match kind {
            0x0001 => pool = Some(chunk),
            0x0102 => {
                let pool = pool?;
                // Element: header (16), then ns, name, attributeStart, attributeSize, count.
                if string(pool, u32_at(chunk, 20)?)? != "manifest" {
                    return None;
                }
                let (attr_start, attr_size, count) =
                    (u16_at(chunk, 24)? as usize, u16_at(chunk, 26)? as usize, u16_at(chunk, 28)? as usize);
                let mut found = Manifest { package: String::new(), version_code: 0, version_name: String::new() };
                for i in 0..count.min(256) {
                    let a = 16 + attr_start + i * attr_size.max(20);
                    let name = string(pool, u32_at(chunk, a + 4)?).unwrap_or_default();
                    let raw = u32_at(chunk, a + 8)?;
                    let (data_type, data) = (*chunk.get(a + 15)?, u32_at(chunk, a + 16)?);
                    let text = || {
                        if raw != u32::MAX {
                            string(pool, raw)
                        } else if data_type == 0x03 {
                            string(pool, data)
                        } else {
                            None
                        }
                    };
                    match name.as_str() {
                        "package" => found.package = text()?,
                        "versionCode" => found.version_code = data,
                        "versionName" => found.version_name = text().unwrap_or_else(|| data.to_string()),
                        _ => {}
                    }
                }
                return (!found.package.is_empty()).then_some(found);
            }
            _ => {}
        }
        at += size;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_phones_own_apks_read_back_and_junk_is_no_apk() {
        let built = super::super::build_bare("com.example.notes").expect("an APK");
        let read = read(&built).expect("its manifest");
        assert_eq!(read.package, "com.example.notes");
        for junk in [&b""[..], b"PK\x03\x04", b"not a zip at all"] {
            assert!(super::read(junk).is_err());
        }
        // Cut anywhere, a manifest reads as nothing, never as a panic.
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(&built[..])).expect("zip");
        let mut xml = Vec::new();
        zip.by_name("AndroidManifest.xml").expect("entry").read_to_end(&mut xml).expect("read");
        for cut in 0..xml.len() {
            let _ = parse(&xml[..cut]);
        }
    }
}
