//! The virtual phone's HarmonyOS front door (`codeact sim --platform harmony`: the
//! same world behind an hdc server), driven by a client codeact did not write, the
//! `hdc-rs` crate: targets, the server's version, a wrong connect key, then
//! HarmonyOS's own tools through `shell` — `aa start`, `uitest dumpLayout` (read as
//! JSON here), a `uitest uiInput click` that flips the Wi-Fi switch, typing
//! Unicode, `aa dump -l`, `bm`, `snapshot_display`. Then codeact's own hdc client
//! against servers that hang, close mid-frame, announce 4 GiB or send garbage.

use crate::common::{self, hdc};

/// The centre of the first node whose attribute `key` is `value`, in a layout.
fn centre_of(layout: &serde_json::Value, key: &str, value: &str) -> Option<(i64, i64)> {
    let attrs = &layout["attributes"];
    if attrs[key] == value {
        let nums: Vec<i64> = attrs["bounds"]
            .as_str()?
            .split(|c: char| !c.is_ascii_digit())
            .filter(|p| !p.is_empty())
            .filter_map(|p| p.parse().ok())
            .collect();
        if let [l, t, r, b] = nums.as_slice() {
            return Some(((l + r) / 2, (t + b) / 2));
        }
    }
    layout["children"].as_array()?.iter().find_map(|c| centre_of(c, key, value))
}

fn layout(addr: &str) -> serde_json::Value {
    let out = hdc::shell(addr, "uitest dumpLayout -p /data/local/tmp/l.json && cat /data/local/tmp/l.json");
    assert!(out.starts_with("DumpLayout saved to:/data/local/tmp/l.json\n"), "{out}");
    let json = &out[out.find('{').unwrap_or(0)..];
    serde_json::from_str(json).unwrap_or_else(|e| panic!("layout JSON ({e}): {json}"))
}

#[test]
fn hdc_rs_drives_the_virtual_harmony_phone() {
    let sim = common::SimProcess::start(&["--platform", "harmony"]);
    let addr = sim.addr.as_str();
    let targets = hdc::with_client(addr, None, async |c| c.list_targets().await).expect("list targets");
    assert_eq!(targets, vec![hdc::KEY.to_string()]);
    let version = hdc::with_client(addr, None, async |c| c.check_server().await).expect("checkserver");
    assert!(version.contains("Ver: 3.2.0f"), "{version:?}");
    // A key no target has: the server's own words, as hdc-rs hands them back.
    let wrong = hdc::with_client(addr, Some("nobody"), async |c| c.shell("ls").await).expect("shell");
    assert!(wrong.contains("Not match target founded"), "{wrong}");

    let started = hdc::shell(addr, "aa start -b com.android.settings -a Settings");
    assert_eq!(started, "start ability successfully.\n");
    let missions = hdc::shell(addr, "aa dump -l");
    assert!(
        missions.contains("bundle name [com.android.settings]") && missions.contains("state #FOREGROUND"),
        "{missions}"
    );
    let page = layout(addr);
    let window = &page["children"][0]["attributes"];
    assert_eq!((window["bundleName"].as_str(), window["type"].as_str()), (Some("com.android.settings"), Some("root")));
    assert!(hdc::state(addr)["settings"]["wifi"] == true);
    let (x, y) = centre_of(&page, "id", "wifi_switch").expect("the Wi-Fi toggle in the layout");
    assert_eq!(hdc::shell(addr, &format!("uitest uiInput click {x} {y}")), "No Error\n");
    assert!(hdc::state(addr)["settings"]["wifi"] == false, "the click flipped Wi-Fi");
    let refused = hdc::shell(addr, "uitest uiInput click 0 5");
    assert!(refused.starts_with("Please confirm that the coordinate values are correct."), "{refused}");

    // Unicode typed with no input method, into the focused field.
    hdc::shell(addr, "aa start -b com.example.notes -a NotesListActivity");
    let (x, y) = centre_of(&layout(addr), "description", "New note").expect("the New note button");
    hdc::shell(addr, &format!("uitest uiInput click {x} {y}"));
    let (x, y) = centre_of(&layout(addr), "id", "note_title").expect("the title field");
    assert_eq!(hdc::shell(addr, &format!("uitest uiInput inputText {x} {y} '你好 HarmonyOS'")), "No Error\n");
    let page = layout(addr);
    assert!(centre_of(&page, "text", "你好 HarmonyOS").is_some(), "typed text in the layout");
    assert!(centre_of(&page, "bundleName", "com.huawei.hmos.inputmethod").is_some(), "the keyboard window");

    let bundles = hdc::shell(addr, "bm dump -a");
    assert!(bundles.starts_with("ID: 100:\n") && bundles.contains("\tcom.example.notes\n"), "{bundles}");
    let info = hdc::shell(addr, "bm dump -n com.example.notes");
    assert!(info.contains("\"mainElementName\": \"NotesListActivity\""), "{info}");
    let shot = hdc::shell(addr, "snapshot_display -f /data/local/tmp/s.jpeg");
    assert!(
        shot.contains(
            "success: snapshot display 0 , write to /data/local/tmp/s.jpeg as jpeg, width: 1080, height: 2400"
        ),
        "{shot}"
    );
    let bad = hdc::shell(addr, "snapshot_display -f /data/local/tmp/s.png");
    assert!(bad.contains("suffix must be .jpeg"), "{bad}");
    let magic = hdc::shell(addr, "head -c 3 /data/local/tmp/s.jpeg | base64");
    assert_eq!(magic.trim(), "/9j/", "a JPEG file (FF D8 FF)");
    assert_eq!(hdc::shell(addr, "param get const.product.model"), "CodeAct_Virtual_Phone\n");
    assert!(hdc::shell(addr, "input tap 1 1").contains("not found"), "Android's tools are not on HarmonyOS");
    assert_eq!(hdc::shell(addr, "aa force-stop com.example.notes"), "force stop process successfully.\n");
}

/// How a hostile hdc server misbehaves.
#[derive(Debug, Clone, Copy)]
enum Hostile {
    /// Accepts and never sends its handshake.
    Hangs,
    /// Speaks HTTP instead.
    NotHdc,
    /// Lists a target, then announces a 4 GiB frame.
    HugePrefix,
    /// Lists a target, then closes in the middle of a frame.
    ClosesMidFrame,
    /// Lists a target, then sends a layout that is not JSON.
    GarbageLayout,
    /// Refuses every command.
    Refuses,
}

/// A loopback server that speaks hdc's handshake (unless told not to) and then
/// misbehaves; its port.
fn hostile_hdc(mode: Hostile) -> u16 {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let frame = |bytes: &[u8]| -> Vec<u8> {
        let mut f = (bytes.len() as u32).to_be_bytes().to_vec();
        f.extend_from_slice(bytes);
        f
    };
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut stream = stream;
                match mode {
                    Hostile::Hangs => {
                        std::thread::sleep(std::time::Duration::from_secs(60));
                        return;
                    }
                    Hostile::NotHdc => {
                        let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n");
                        return;
                    }
                    _ => {}
                }
                let mut hello = b"OHOS HDC\0\0\0H".to_vec();
                hello.resize(44, 0);
                let _ = stream.write_all(&frame(&hello));
                // The client's handshake and its command, each a frame.
                let mut read_frame = || -> Vec<u8> {
                    let mut len = [0u8; 4];
                    if stream.read_exact(&mut len).is_err() {
                        return Vec::new();
                    }
                    let mut buf = vec![0u8; (u32::from_be_bytes(len) as usize).min(1 << 16)];
                    let _ = stream.read_exact(&mut buf);
                    buf
                };
                let _handshake = read_frame();
                let command = String::from_utf8_lossy(&read_frame()).to_string();
                if command.starts_with("list targets") {
                    let _ = stream.write_all(&frame(b"codeact-sim\n"));
                    return;
                }
                match mode {
                    Hostile::HugePrefix => {
                        let _ = stream.write_all(&u32::MAX.to_be_bytes());
                        let zeros = vec![0u8; 1 << 16];
                        while stream.write_all(&zeros).is_ok() {}
                    }
                    Hostile::ClosesMidFrame => {
                        let _ = stream.write_all(&100u32.to_be_bytes());
                        let _ = stream.write_all(b"DumpLayout");
                    }
                    Hostile::GarbageLayout => {
                        let _ = stream.write_all(&frame(b"DumpLayout saved to:/x.json\n{\"attributes\": <<<\n"));
                    }
                    Hostile::Refuses => {
                        let _ = stream.write_all(&frame(b"[Fail][E001005] Device not found or connected\r\n"));
                    }
                    Hostile::Hangs | Hostile::NotHdc => {}
                }
            });
        }
    });
    port
}

/// codeact's hdc client against servers that hang, are not hdc, flood, close
/// mid-frame, send garbage or refuse: each run ends within the device timeout with
/// one line that says what happened, never a hang, a panic or a flood read.
#[test]
fn the_harmony_client_fails_cleanly_on_a_hostile_server() {
    let script = common::look_script("hostile-hdc");
    let cases = [
        (Hostile::Hangs, "no answer within"),
        (Hostile::NotHdc, "not an hdc server"),
        (Hostile::HugePrefix, "announced a frame of 4294967295 bytes"),
        (Hostile::ClosesMidFrame, "closed the connection in the middle of a reply"),
        (Hostile::GarbageLayout, "could not be read"),
        (Hostile::Refuses, "Device not found or connected"),
    ];
    for (mode, says) in cases {
        let port = [("OHOS_HDC_SERVER_PORT", hostile_hdc(mode).to_string())];
        common::fails_cleanly(&script, "hdc", &port, &format!("{mode:?}"), says);
    }
    // A port that is not one, and no server at all: each says how to fix it.
    for (port, says) in [("80800", "is not a port"), ("1", "no hdc server answers at 127.0.0.1:1")] {
        common::fails_cleanly(&script, "hdc", &[("OHOS_HDC_SERVER_PORT", port.into())], port, says);
    }
    if let Some(dir) = script.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// The apps the bigger suite added, as hdc-rs reads their first screens through
/// `uitest dumpLayout`: the map's markers are not in it (a canvas is one node, as a
/// game's or a map's is), and a click on a song plays it.
#[test]
fn hdc_rs_reads_the_new_apps_layouts() {
    let sim = common::SimProcess::start(&["--platform", "harmony"]);
    let addr = sim.addr.as_str();
    for (bundle, ability, anchor) in [
        ("com.codeact.shop", "HomeActivity", "search_products"),
        ("com.codeact.reader", "BrowserActivity", "address_bar"),
        ("com.codeact.music", "LibraryActivity", "track_search"),
        ("com.codeact.maps", "MapActivity", "map_canvas"),
        ("com.codeact.forms", "FormsActivity", "form_signup"),
    ] {
        let started = hdc::shell(addr, &format!("aa start -b {bundle} -a {ability}"));
        assert!(started.contains("start ability successfully"), "{bundle}: {started}");
        assert!(centre_of(&layout(addr), "id", anchor).is_some(), "{bundle}: {anchor} in the layout");
    }
    hdc::shell(addr, "aa start -b com.codeact.maps -a MapActivity");
    let canvas = layout(addr);
    assert!(centre_of(&canvas, "id", "map_canvas").is_some());
    assert!(centre_of(&canvas, "id", "marker_cafe").is_none(), "the map's markers are only pixels");
    hdc::shell(addr, "aa start -b com.codeact.music -a LibraryActivity");
    let (x, y) = centre_of(&layout(addr), "text", "Blue Hour").expect("the song in the library");
    assert_eq!(hdc::shell(addr, &format!("uitest uiInput click {x} {y}")), "No Error\n");
    let state = hdc::state(addr);
    assert!(state["values"]["music.current"] == "Blue Hour", "the click plays it: {}", state["values"]);
    assert!(centre_of(&layout(addr), "text", "Pause").is_some(), "now playing shows Pause");
}
