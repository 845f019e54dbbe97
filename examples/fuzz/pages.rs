//! Fuzz targets for page sources: the uiautomator dump parser (`dump`, seeded with
//! the virtual phone's dumps), HarmonyOS's `uitest dumpLayout` JSON
//! (`uitest-layout`) and WebDriverAgent's iOS source (`wda-source`).

use std::time::Duration;

use crate::*;

pub(crate) fn fuzz_dump(
    rng: &mut Rng,
    budget: Duration,
    seeds: Option<&std::path::Path>,
    findings: &std::path::Path,
) -> Stats {
    let mut corpus: Vec<Vec<u8>> = Vec::new();
    if let Some(dir) = seeds {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            if let Ok(bytes) = std::fs::read(entry.path()) {
                corpus.push(bytes);
            }
        }
    }
    corpus.extend(sim_dumps());
    let dict: &[&[u8]] = &[
        b"<node ",
        b"</node>",
        b"bounds=\"[0,0][1080,2400]\" ",
        b"text=\"",
        b"&amp;",
        b"&#x1F600;",
        b"<!DOCTYPE x [<!ENTITY a \"aaaa\">]>",
        b"<![CDATA[",
        b"\"",
        b"checked=\"true\" ",
        b"\xef\xbb\xbf",
        b"\xff\xfe",
        b"[-2147483648,99999999999][",
    ];
    drive("dump", rng, budget, corpus, dict, findings, |input| match codeact::ui::parse(input, (1080, 2400)) {
        Ok(tree) => format!("ok {}", tree.elements.len().min(64)),
        Err(e) => format!("err {}", e.to_string().chars().take(40).collect::<String>()),
    })
}

/// A few screens of the virtual phone, dumped.
pub(crate) fn sim_dumps() -> Vec<Vec<u8>> {
    let Ok(mut device) = codeact::device::open(&codeact::device::DeviceSpec::Sim, Duration::from_secs(10)) else {
        return Vec::new();
    };
    let mut dumps = Vec::new();
    for package in ["", "com.android.settings", "com.android.messaging", "com.android.contacts"] {
        if !package.is_empty() {
            let _ = device.start_app(package, None);
        }
        if let Ok(obs) = device.observe() {
            dumps.push(obs.dump.into_bytes());
        }
    }
    dumps
}

pub(crate) fn fuzz_uitest_layout(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
    let corpus = vec![
        br#"DumpLayout saved to:/data/local/tmp/l.json
{"attributes":{"bounds":"[0,0][1260,2720]","type":""},"children":[{"attributes":{"bundleName":"com.example","bounds":"[0,123][1260,2720]","type":"root"},"children":[{"attributes":{"bounds":"[1080,250][1212,330]","checkable":"true","checked":"true","id":"wifi_switch","type":"Toggle","text":"WLAN"},"children":[]}]}]}"#
            .to_vec(),
    ];
    let dict: &[&[u8]] = &[
        b"{\"attributes\":{",
        b"\"children\":[",
        b"]}",
        b"\"bounds\":\"[0,0][1,1]\",",
        b"\"type\":\"TextInput\",",
        b"\"checked\":\"true\",",
        b"\\u0000",
        b"\\ud800",
        b"1e999",
        b"[-2147483648,99999999999][",
    ];
    drive("uitest-layout", rng, budget, corpus, dict, findings, |input| {
        match codeact::ui::parse_uitest(input, (1260, 2720)) {
            Ok(tree) => format!("ok {}", tree.elements.len().min(64)),
            Err(e) => format!("err {}", e.to_string().chars().take(40).collect::<String>()),
        }
    })
}

pub(crate) fn fuzz_wda_source(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
    let corpus = vec![
        br#"<?xml version="1.0" encoding="UTF-8"?>
<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Settings" label="Settings" enabled="true" visible="true" x="0" y="0" width="393" height="852" index="0" traits="" bundleId="com.apple.Preferences">
  <XCUIElementTypeCell type="XCUIElementTypeCell" name="Wi-Fi" label="Wi-Fi" enabled="true" visible="true" x="16" y="123" width="361" height="52" index="0" traits="Button, Selected">
    <XCUIElementTypeSwitch type="XCUIElementTypeSwitch" value="1" name="wifi_switch" label="Wi-Fi" enabled="true" visible="true" x="310" y="133" width="51" height="31" index="1" traits="Button"/>
    <XCUIElementTypeTextField type="XCUIElementTypeTextField" value="Name" name="Name" label="" x="1" y="2" width="3" height="4" placeholderValue="Name"/>
  </XCUIElementTypeCell>
</XCUIElementTypeApplication>"#
            .to_vec(),
    ];
    let dict: &[&[u8]] = &[
        b"<XCUIElementTypeOther type=\"XCUIElementTypeOther\" ",
        b"</XCUIElementTypeOther>",
        b"x=\"1e308\" ",
        b"width=\"-inf\" ",
        b"value=\"1\" ",
        b"traits=\"Selected\" ",
        b"&amp;",
        b"&#x1F600;",
        b"<!DOCTYPE x [<!ENTITY a \"aaaa\">]>",
        b"\xef\xbb\xbf",
    ];
    drive("wda-source", rng, budget, corpus, dict, findings, |input| {
        match codeact::ui::parse_xcui(input, 3.0, (1179, 2556)) {
            Ok(tree) => format!("ok {}", tree.elements.len().min(64)),
            Err(e) => format!("err {}", e.to_string().chars().take(40).collect::<String>()),
        }
    })
}
