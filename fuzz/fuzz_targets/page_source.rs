//! A page source in each platform's format (uiautomator XML, XCUITest XML, uitest
//! JSON), however crafted, becomes a tree or an error; never a panic, a stack
//! overflow or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let screen = (1080, 2400);
    let _ = codeact::ui::parse(data, screen);
    let _ = codeact::ui::parse_xcui(data, 3.0, screen);
    let _ = codeact::ui::parse_uitest(data, screen);
});
