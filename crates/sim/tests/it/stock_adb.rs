//! The virtual device driven by the stock `adb` binary, exactly as a phone is: the
//! device runs in this process on its own port, a private adb server connects to it
//! over TCP.

use crate::support as common;

use base64::Engine as _;
use codeact_sim::{SimConfig, VirtualDevice};
use common::{AdbServer, attr_is, png_size};

/// A phone on its own port, and an adb server connected to it.
struct Sim {
    _device: VirtualDevice,
    addr: String,
}

fn setup_with(config: SimConfig) -> (Sim, AdbServer) {
    let device = VirtualDevice::start(config).expect("start the virtual device");
    let sim = Sim { addr: device.addr().to_string(), _device: device };
    let adb = AdbServer::start();
    adb.connect(&sim.addr);
    (sim, adb)
}

fn setup() -> (Sim, AdbServer) {
    setup_with(SimConfig::default())
}

/// Taps the centre of the first node whose attribute `attr` is `value`, in a fresh dump.
fn tap_node(adb: &AdbServer, addr: &str, attr: &str, value: &str) {
    let xml = adb.dump(addr);
    let (x, y) =
        common::center_of(&xml, attr, value).unwrap_or_else(|| panic!("no node with {attr}={value:?} in dump"));
    let (_, err, code) = adb.shell(addr, &format!("input tap {x} {y}"));
    assert_eq!(code, 0, "tap failed: {err}");
}

#[test]
fn connects_and_lists_as_device() {
    let (sim, adb) = setup();
    let out = adb.adb(&["devices", "-l"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.starts_with(&sim.addr)).unwrap_or_else(|| panic!("not listed: {text}"));
    assert!(line.split_whitespace().nth(1) == Some("device"), "state is not `device`: {line}");
    assert!(line.contains("model:CodeAct_Virtual_Phone"), "{line}");
    let (release, _, _) = adb.shell(&sim.addr, "getprop ro.build.version.release");
    assert_eq!(release, "14\n");
    let (size, _, _) = adb.shell(&sim.addr, "wm size");
    assert_eq!(size, "Physical size: 1080x2400\n");
    let (density, _, _) = adb.shell(&sim.addr, "wm density");
    assert_eq!(density, "Physical density: 420\n");
}

#[test]
fn shell_exit_codes_stderr_and_exec_out_quoting() {
    let (sim, adb) = setup();
    let (out, err, code) = adb.shell(&sim.addr, "nosuchtool --flag");
    assert_eq!((out.as_str(), code), ("", 127));
    assert_eq!(err, "/system/bin/sh: nosuchtool: inaccessible or not found\n");
    let (_, _, code) = adb.shell(&sim.addr, "grep -q nothing /sdcard/missing");
    assert_eq!(code, 2);
    let (out, _, code) = adb.shell(&sim.addr, "echo one; false && echo no; echo two | grep -E 't[wx]o'");
    assert_eq!((out.as_str(), code), ("one\ntwo\n", 0));
    let out = adb.exec_out(&sim.addr, &["echo", "a  b", "it's", "$HOME;rm"]);
    assert_eq!(String::from_utf8_lossy(&out), "a  b it's $HOME;rm\n");
    let (focus, _, _) = adb.shell(&sim.addr, "dumpsys window | grep mCurrentFocus");
    assert!(focus.contains("com.android.launcher3/"), "{focus}");
    // `adb shell` reading commands from a pipe (no terminal): no prompt, no echo.
    let out = std::process::Command::new("adb")
        .args(["-P", &adb.port(), "-s", &sim.addr, "shell"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write as _;
            child.stdin.take().map(|mut s| s.write_all(b"echo piped\ngetprop ro.build.version.sdk\nexit\n"));
            child.wait_with_output()
        })
        .expect("interactive adb shell");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "piped\n34\n");
    let (pkgs, _, _) = adb.shell(&sim.addr, "pm list packages -3");
    assert!(pkgs.lines().any(|l| l == "package:com.example.notes"), "{pkgs}");
    assert!(!pkgs.contains("package:com.android.settings"), "-3 lists only third-party apps: {pkgs}");
}

#[test]
fn tapping_the_settings_icon_from_a_dump_opens_settings() {
    let (sim, adb) = setup();
    assert_eq!(adb.state(&sim.addr)["foreground_package"], "com.android.launcher3");
    tap_node(&adb, &sim.addr, "text", "Settings");
    let state = adb.state(&sim.addr);
    assert_eq!(state["foreground_package"], "com.android.settings");
    assert_eq!(state["activity"], "com.android.settings.Settings");
    let (activities, _, _) = adb.shell(&sim.addr, "dumpsys activity activities | grep topResumedActivity");
    assert!(activities.contains("com.android.settings/.Settings"), "{activities}");
}

#[test]
fn screencap_png_has_the_configured_size_and_dump_parses() {
    let (sim, adb) = setup_with(SimConfig { width: 720, height: 1600, density: 320, ..SimConfig::default() });
    let png = adb.exec_out(&sim.addr, &["screencap", "-p"]);
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(png_size(&png), (720, 1600));
    let raw = adb.exec_out(&sim.addr, &["screencap"]);
    assert_eq!(raw.len(), 16 + 720 * 1600 * 4);
    assert_eq!(&raw[..12], [720u32.to_le_bytes(), 1600u32.to_le_bytes(), 1u32.to_le_bytes()].concat());

    let dump = adb.dump(&sim.addr);
    assert!(dump.ends_with("</hierarchy>UI hierchary dumped to: /dev/tty\n"), "status line: {dump:.100}");
    let doc = roxmltree::Document::parse(common::dump_xml(&dump)).expect("dump parses as XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "hierarchy");
    let icons = doc.descendants().filter(|n| attr_is(n, "resource-id", "com.android.launcher3:id/icon")).count();
    assert_eq!(icons, 14, "one launcher icon per app");
    // A dump to a file lands on the device and can be pulled.
    let (out, _, code) = adb.shell(&sim.addr, "uiautomator dump");
    assert_eq!((out.as_str(), code), ("UI hierchary dumped to: /sdcard/window_dump.xml\n", 0));
    let (cat, _, _) = adb.shell(&sim.addr, "cat /sdcard/window_dump.xml");
    assert!(cat.starts_with("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"));
}

#[test]
fn push_then_pull_round_trips_a_file() {
    let (sim, adb) = setup();
    let dir = std::env::temp_dir().join(format!("codeact-push-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let local = dir.join("blob.bin");
    let data: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(&local, &data).expect("write blob");
    let out = adb.adb(&["-s", &sim.addr, "push", local.to_str().unwrap_or_default(), "/sdcard/Download/blob.bin"]);
    assert!(out.status.success(), "push: {}", String::from_utf8_lossy(&out.stderr));
    let (ls, _, _) = adb.shell(&sim.addr, "ls /sdcard/Download");
    assert_eq!(ls, "blob.bin\n");
    let back = dir.join("back.bin");
    let out = adb.adb(&["-s", &sim.addr, "pull", "/sdcard/Download/blob.bin", back.to_str().unwrap_or_default()]);
    assert!(out.status.success(), "pull: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read(&back).expect("pulled file"), data);
    let out = adb.adb(&["-s", &sim.addr, "pull", "/sdcard/nope.txt", back.to_str().unwrap_or_default()]);
    assert!(!out.status.success(), "pulling a missing file fails");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn toggling_wifi_through_taps_shows_in_state() {
    let (sim, adb) = setup();
    let (_, _, code) = adb.shell(&sim.addr, "am start -n com.android.settings/.Settings");
    assert_eq!(code, 0);
    assert_eq!(adb.state(&sim.addr)["settings"]["wifi"], true);
    tap_node(&adb, &sim.addr, "text", "Wi-Fi");
    assert_eq!(adb.state(&sim.addr)["settings"]["wifi"], false);
    let dump = adb.dump(&sim.addr);
    assert!(dump.contains("resource-id=\"com.android.settings:id/wifi_switch\" class=\"android.widget.Switch\" package=\"com.android.settings\" content-desc=\"\" checkable=\"true\" checked=\"false\""));
    tap_node(&adb, &sim.addr, "resource-id", "com.android.settings:id/wifi_switch");
    assert_eq!(adb.state(&sim.addr)["settings"]["wifi"], true);
}

#[test]
fn typing_chinese_through_adbkeyboard_into_a_new_note() {
    let (sim, adb) = setup();
    let (out, _, code) = adb.shell(&sim.addr, "monkey -p com.example.notes -c android.intent.category.LAUNCHER 1");
    assert_eq!(code, 0);
    assert!(out.contains("Events injected: 1"), "{out}");
    tap_node(&adb, &sim.addr, "content-desc", "New note");
    let state = adb.state(&sim.addr);
    assert_eq!(state["keyboard_shown"], true, "the title field takes focus and shows the keyboard");
    let (ime, _, _) = adb.shell(&sim.addr, "dumpsys input_method | grep mInputShown");
    assert_eq!(ime.trim(), "mInputShown=true");

    let (err_out, err, code) = adb.shell(&sim.addr, "input text 你好");
    assert_ne!(code, 0, "non-ASCII `input text` must fail as on a phone: {err_out}");
    assert!(err.contains("NullPointerException") || err_out.contains("NullPointerException"), "{err}");

    let b64 = base64::engine::general_purpose::STANDARD.encode("你好");
    let (out, _, code) = adb.shell(&sim.addr, &format!("am broadcast -a ADB_INPUT_B64 --es msg {b64}"));
    assert_eq!(code, 0);
    assert!(out.contains("Broadcast completed: result=0"), "{out}");
    tap_node(&adb, &sim.addr, "text", "Save");
    let state = adb.state(&sim.addr);
    let notes = state["notes"].as_array().expect("notes array");
    assert!(notes.iter().any(|n| n["title"] == "你好"), "notes: {notes:?}");
    assert_eq!(state["activity"], "com.example.notes.NotesListActivity");
}

#[test]
fn adb_install_streams_an_apk_and_the_phone_says_which_it_can_play() {
    let (sim, adb) = setup();
    let dir = std::env::temp_dir().join(format!("codeact-install-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let apk = dir.join("notes.apk");
    let (path, _, _) = adb.shell(&sim.addr, "pm path com.example.notes");
    let path = path.trim().trim_start_matches("package:").to_string();
    let out = adb.adb(&["-s", &sim.addr, "pull", &path, apk.to_str().unwrap_or_default()]);
    assert!(out.status.success(), "pull: {}", String::from_utf8_lossy(&out.stderr));
    // Streamed (cmd package install -S SIZE) and pushed (pm install FILE) alike: the
    // manifest is read, and a package the phone does not play is refused by name.
    let out = adb.adb(&["-s", &sim.addr, "install", "-g", apk.to_str().unwrap_or_default()]);
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("INSTALL_FAILED_INVALID_APK: com.example.notes is not a package the virtual phone can play"),
        "{said}"
    );
    assert!(said.contains("io.appium.settings"), "it names what it plays: {said}");
    let out = adb.adb(&["-s", &sim.addr, "push", apk.to_str().unwrap_or_default(), "/data/local/tmp/notes.apk"]);
    assert!(out.status.success());
    let (_, err, code) = adb.shell(&sim.addr, "pm install -r /data/local/tmp/notes.apk");
    assert_eq!(code, 1);
    assert!(err.contains("com.example.notes is not a package"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
