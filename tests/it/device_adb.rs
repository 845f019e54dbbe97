//! The device layer against the virtual device: directly over TCP (`--device sim`),
//! and through the stock adb server, exactly as a phone is driven.

use crate::common;

use std::time::{Duration, Instant};

use codeact::device::{AdbDevice, Device, DeviceError, DeviceSpec, open};

fn sim() -> Box<dyn Device> {
    open(&DeviceSpec::Sim, Duration::from_secs(10)).expect("open the virtual device")
}

fn state(d: &mut Box<dyn Device>) -> serde_json::Value {
    let out = d.shell("simctl state").expect("simctl state");
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn commands(d: &mut Box<dyn Device>) -> u64 {
    let out = d.shell("simctl stats").expect("simctl stats");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    v["commands"].as_u64().expect("a count")
}

#[test]
fn observe_is_one_round_trip_and_reads_the_screen() {
    let mut d = sim();
    // The first look (`--observe auto`) also looks for an on-device agent: one
    // command line more, once.
    let before = commands(&mut d);
    d.observe().expect("observe");
    assert_eq!(commands(&mut d) - before, 2, "the first observe: the look and the search for an agent");
    let before = commands(&mut d);
    let obs = d.observe().expect("observe");
    assert_eq!(commands(&mut d) - before, 1, "observe must be one shell round trip");
    assert_eq!(obs.screen, (1080, 2400));
    assert_eq!(obs.phone.package, "com.android.launcher3");
    assert!(!obs.phone.keyboard_shown);
    let settings = obs.ui.elements.iter().find(|e| e.text == "Settings").expect("the Settings icon");
    assert!(settings.actions.touch && settings.visible);
    d.tap(settings.center.0, settings.center.1).expect("tap");
    let obs = d.observe().expect("observe");
    assert_eq!(obs.phone.package, "com.android.settings");
    assert_eq!(obs.phone.activity, "com.android.settings.Settings");
    let png = d.screenshot().expect("screenshot");
    assert_eq!(common::png_size(&png), (1080, 2400));
}

#[test]
fn typing_ascii_specials_and_chinese() {
    let mut d = sim();
    d.start_app("com.example.notes", Some(".NoteEditorActivity")).expect("open the editor");
    let obs = d.observe().expect("observe");
    assert!(obs.phone.keyboard_shown);
    let focused = obs.phone.focused.and_then(|i| obs.ui.get(i)).expect("a focused field");
    assert!(focused.actions.set_text);
    // Everything a shell would eat, through `input text`.
    let tricky = r#"a b'c"d&e;f\g$h(i)|j<k>`l`*?!~#"#;
    d.input_text(tricky).expect("type ASCII");
    assert_eq!(state(&mut d)["values"]["draft.note_title"], tricky);
    d.clear_text().expect("clear");
    // A literal `%s` and non-ASCII take the ADBKeyboard path.
    d.input_text("%s 100% 你好 👋").expect("type Unicode");
    assert_eq!(state(&mut d)["values"]["draft.note_title"], "%s 100% 你好 👋");
    d.press_key("back").expect("back hides the keyboard");
    assert!(!d.observe().expect("observe").phone.keyboard_shown);
    assert!(matches!(d.press_key("FLY"), Err(DeviceError::UnknownKey(_))));
}

#[test]
fn non_ascii_without_adbkeyboard_says_how_to_fix_it() {
    let mut d = sim();
    d.shell("ime set com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME").expect("ime set");
    d.start_app("com.example.notes", Some(".NoteEditorActivity")).expect("open the editor");
    let err = d.input_text("你好").expect_err("no ADBKeyboard");
    let text = err.to_string();
    assert!(matches!(err, DeviceError::Adb(codeact::device::AdbError::NeedsAdbKeyboard { .. })), "{text}");
    assert!(text.contains("ime set com.android.adbkeyboard/.AdbIME"), "{text}");
    d.input_text("50% off").expect("ASCII (even %) still works through `input text`");
    assert_eq!(state(&mut d)["values"]["draft.note_title"], "50% off");
}

#[test]
fn apps_packages_and_errors() {
    let mut d = sim();
    d.start_app("com.android.settings", None).expect("start Settings");
    assert_eq!(d.observe().expect("observe").phone.package, "com.android.settings");
    d.stop_app("com.android.settings").expect("stop Settings");
    assert_eq!(d.observe().expect("observe").phone.package, "com.android.launcher3");
    for (package, activity) in [
        ("com.android.contacts", "com.android.contacts.activities.PeopleActivity"),
        ("com.google.android.apps.messaging", "com.google.android.apps.messaging.ui.ConversationListActivity"),
        ("com.example.notes", "com.example.notes.NotesListActivity"),
        ("com.android.deskclock", "com.android.deskclock.DeskClock"),
    ] {
        d.start_app(package, None).expect("start");
        let obs = d.observe().expect("observe each app");
        assert_eq!(obs.phone.activity, activity);
        assert!(obs.ui.elements.iter().any(|e| e.visible && e.actions.touch), "{package}: something to tap");
    }
    d.go_home().expect("home");
    assert_eq!(d.observe().expect("observe").phone.package, "com.android.launcher3");
    let err = d.start_app("com.no.such.app", None).expect_err("missing app");
    assert!(matches!(err, DeviceError::NotInstalled { .. }), "{err}");
    let err = d.start_app("com.android.settings", Some(".Nope")).expect_err("missing activity");
    assert!(err.to_string().contains("does not exist"), "{err}");
    assert!(d.start_app("a;reboot", None).is_err(), "names are checked before reaching a shell");
    let third = d.list_packages(false).expect("packages");
    assert!(third.contains(&"com.example.notes".to_string()) && !third.contains(&"com.android.settings".to_string()));
    assert!(d.list_packages(true).expect("all packages").contains(&"com.android.settings".to_string()));
    d.swipe(540, 1800, 540, 900, 100).expect("swipe");
    d.long_press(540, 1200, 500).expect("long press");
}

#[test]
fn dropped_slow_and_hung_devices_give_typed_errors_in_time() {
    let mut d = open(&DeviceSpec::Sim, Duration::from_millis(1500)).expect("open");
    d.shell("simctl fault latency 300").expect("latency");
    assert_eq!(d.observe().expect("a slow device still answers").phone.package, "com.android.launcher3");
    d.shell("simctl fault clear").expect("clear");

    d.shell("simctl fault drop 0").expect("drop");
    let started = Instant::now();
    let err = d.tap(10, 10).expect_err("dropped");
    assert!(matches!(err, DeviceError::Disconnected { .. }), "{err}");
    assert!(err.to_string().contains("tap"), "names the operation: {err}");
    assert!(started.elapsed() < Duration::from_millis(1500));
    d.tap(10, 10).expect("reconnects after a drop");

    d.shell("simctl fault hang 0").expect("hang");
    let started = Instant::now();
    let err = d.observe().expect_err("hung");
    assert!(matches!(err, DeviceError::Timeout { .. }), "{err}");
    assert!(started.elapsed() < Duration::from_secs(5), "bounded by the timeout");
    d.observe().expect("works again after the hang");
}

#[test]
fn through_the_stock_adb_server() {
    let sim = common::SimProcess::start(&[]);
    let adb = common::AdbServer::start();
    adb.connect(&sim.addr);
    let server = format!("127.0.0.1:{}", adb.port());
    let listed = codeact::device::adb::transport::ServerConnection::list(
        &server,
        codeact::device::adb::transport::Deadline::after(Duration::from_secs(5)),
    )
    .expect("list");
    assert!(
        listed.iter().any(|d| d.serial == sim.addr && d.state == "device" && d.model == "CodeAct_Virtual_Phone"),
        "{listed:?}"
    );
    let mut d = AdbDevice::through_server(&server, &sim.addr, Duration::from_secs(10));
    let obs = d.observe().expect("observe through the server");
    let clock = obs.ui.elements.iter().find(|e| e.text == "Clock").expect("the Clock icon");
    d.tap(clock.center.0, clock.center.1).expect("tap");
    assert_eq!(d.observe().expect("observe").phone.package, "com.android.deskclock");
    let out = d.shell("nosuch").expect("shell");
    assert_eq!(out.code, Some(127), "exit codes come back through the server");
    d.input_text("你好").expect("type through the server");
}
