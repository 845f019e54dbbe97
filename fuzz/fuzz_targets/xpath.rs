//! An XPath expression (the input's first line), however crafted, on a realistic
//! page source and on a page made of the rest of the input: elements by their
//! places, or an error — never a panic, a stack overflow or a run past its budget
//! of steps (run with `-timeout=5`: an input that takes longer is a finding).
#![no_main]

use libfuzzer_sys::fuzz_target;

const PAGE: &str = r#"<?xml version="1.0" encoding="UTF-8"?><hierarchy index="0" rotation="0"><android.widget.FrameLayout index="0" package="com.android.settings" class="android.widget.FrameLayout" text="" bounds="[0,0][1080,2400]"><android.widget.TextView index="0" text="Network &amp; internet" resource-id="android:id/title" bounds="[0,100][1080,200]"/><android.widget.ListView index="1" scrollable="true"><android.widget.LinearLayout index="0" clickable="true"><android.widget.TextView index="0" text="Wi-Fi" resource-id="android:id/title"/><android.widget.Switch index="1" checkable="true" checked="true" resource-id="com.android.settings:id/switch_widget"/></android.widget.LinearLayout><android.widget.LinearLayout index="1"><android.widget.TextView index="0" text="Bluetooth"/></android.widget.LinearLayout></android.widget.ListView></android.widget.FrameLayout></hierarchy>"#;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (expr, page) = text.split_once('\n').unwrap_or((&text, ""));
    for xml in [PAGE, page] {
        if let Ok(found) = appium_locators::xpath::find(xml, expr, None) {
            for place in found {
                assert!(!place.is_empty(), "a place below the wrapper");
            }
        }
        let _ = appium_locators::xpath::find(xml, expr, Some(&[0, 1]));
    }
});
