//! A Maestro flow, however crafted (nesting, aliases, NULs, encodings), becomes a
//! script or an error naming why; never a panic, a stack overflow or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = codeact::maestro::convert(std::path::Path::new("fuzz.yaml"), text);
});
