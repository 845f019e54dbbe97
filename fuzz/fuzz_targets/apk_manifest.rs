//! A binary AndroidManifest.xml (and a resource table), however crafted, is read or
//! refused with an error; never a panic, a stack overflow or a hang. The input is
//! split in two at its first byte's share.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&share, rest)) = data.split_first() else { return };
    let cut = rest.len() * usize::from(share) / 256;
    let (manifest, table) = rest.split_at(cut);
    let table = (!table.is_empty()).then_some(table);
    let _ = codeact::apk::from_manifest(manifest, table, "fuzz.apk");
});
