//! The world inside the virtual device, driven through adb_client like a phone:
//! navigation, scrolling, switches, fields, dialogs, long presses and the simctl hooks.

use crate::support as common;

use std::time::{Duration, Instant};

use common::phone::Phone;

#[test]
fn settings_scrolls_navigates_and_goes_back() {
    let mut p = Phone::start();
    p.sh("am start -n com.android.settings/.Settings");
    assert!(p.find("text", "About phone").is_none(), "the list is longer than one screen");
    let dump = p.dump();
    assert!(dump.contains("resource-id=\"com.android.settings:id/recycler_view\" class=\"androidx.recyclerview.widget.RecyclerView\" package=\"com.android.settings\" content-desc=\"\" checkable=\"false\" checked=\"false\" clickable=\"false\" enabled=\"true\" focusable=\"true\" focused=\"false\" scrollable=\"true\""));
    let (x, y) = p.scroll_to("text", "About phone");
    assert!(
        p.find("text", "Network &amp; internet").is_none() && p.find("text", "Network & internet").is_none(),
        "scrolled away"
    );
    p.sh(&format!("input tap {x} {y}"));
    assert_eq!(p.state()["activity"], "com.android.settings.AboutPhone");
    p.tap("content-desc", "Navigate up");
    assert_eq!(p.state()["activity"], "com.android.settings.Settings");
    assert!(p.find("text", "About phone").is_some(), "scroll position is kept");
    p.sh("input keyevent KEYCODE_BACK");
    assert_eq!(p.state()["foreground_package"], "com.android.launcher3");
    p.tap("text", "Settings");
    assert_eq!(p.state()["activity"], "com.android.settings.Settings", "the task resumes where it was");
}

#[test]
fn airplane_mode_disables_a_row_and_brightness_slider_sets_a_value() {
    let mut p = Phone::start();
    p.sh("am start -n com.android.settings/.Settings");
    p.tap("resource-id", "com.android.settings:id/airplane_switch");
    assert_eq!(p.state()["settings"]["airplane_mode"], true);
    assert!(p.dump().contains("resource-id=\"com.android.settings:id/mobile_network\" class=\"android.widget.LinearLayout\" package=\"com.android.settings\" content-desc=\"\" checkable=\"false\" checked=\"false\" clickable=\"true\" enabled=\"false\""));
    p.tap("text", "Mobile network");
    assert_eq!(p.state()["activity"], "com.android.settings.Settings", "a disabled row ignores taps");
    assert_eq!(p.sh("settings get global airplane_mode_on"), "1\n");
    // A setting the phone does not model is kept as text, and deleted (as test
    // frameworks set hidden-API policies and put them back); the phone's own stay.
    p.sh("settings put global hidden_api_policy 1;settings put global hidden_api_policy_p_apps 1");
    assert_eq!(p.sh("settings get global hidden_api_policy"), "1\n");
    assert_eq!(
        p.sh("settings delete global hidden_api_policy;settings delete global nothing_here"),
        "Deleted 1 rows\nDeleted 0 rows\n"
    );
    assert_eq!(p.sh("settings get global hidden_api_policy"), "null\n");
    assert!(p.sh("settings delete global airplane_mode_on").contains("cannot be deleted"));

    let (x, y) = p.scroll_to("text", "Display");
    p.sh(&format!("input tap {x} {y}"));
    assert_eq!(p.state()["activity"], "com.android.settings.DisplaySettings");
    let dump = p.dump();
    let (l, _, r, _) = dump
        .split("<node ")
        .find(|n| n.contains("android.widget.SeekBar"))
        .and_then(|n| n.split("bounds=\"").nth(1))
        .and_then(common::parse_bounds)
        .expect("a SeekBar with bounds");
    let (_, y) = p.find("class", "android.widget.SeekBar").expect("slider");
    p.sh(&format!("input tap {} {y}", l + (r - l) * 3 / 4));
    assert_eq!(p.state()["settings"]["brightness"], 75);
    assert!(p.dump().contains("text=\"75%\""));
    p.sh(&format!("input swipe {} {y} {} {y} 200", l + (r - l) * 3 / 4, l + (r - l) / 5));
    assert_eq!(p.state()["settings"]["brightness"], 20);
}

#[test]
fn contacts_list_has_cjk_names_beyond_one_screen_and_a_detail_page() {
    let mut p = Phone::start();
    let state = p.state();
    let names: Vec<&str> =
        state["contacts"].as_array().expect("contacts").iter().filter_map(|c| c["name"].as_str()).collect();
    assert!(names.len() >= 30);
    assert!(names.contains(&"张三") && names.contains(&"李四"));
    p.sh("monkey -p com.android.contacts -c android.intent.category.LAUNCHER 1");
    assert!(p.find("text", "李四").is_none());
    let (x, y) = p.scroll_to("text", "李四");
    p.sh(&format!("input tap {x} {y}"));
    assert_eq!(p.state()["activity"], "com.android.contacts.activities.ContactDetail");
    let dump = p.dump();
    assert!(dump.contains("text=\"+86 139 0013 9128\""), "the detail page shows the phone number");
    assert!(dump.contains("text=\"李四\""), "and the name as the title");
}

#[test]
fn alarms_add_with_number_fields_and_toggle() {
    let mut p = Phone::start();
    p.sh("monkey -p com.android.deskclock -c android.intent.category.LAUNCHER 1");
    p.tap("content-desc", "Add alarm");
    assert_eq!(p.state()["keyboard_shown"], true);
    p.sh("input text 6x");
    p.tap("resource-id", "com.android.deskclock:id/minute");
    p.sh("input text 45");
    p.sh("input keyevent KEYCODE_BACK");
    assert_eq!(p.state()["keyboard_shown"], false, "back first hides the keyboard");
    assert_eq!(p.state()["activity"], "com.android.deskclock.AlarmEditActivity");
    p.tap("text", "Save");
    let state = p.state();
    let alarms = state["alarms"].as_array().expect("alarms");
    assert_eq!(
        alarms.first(),
        Some(&serde_json::json!({"hour": 6, "minute": 45, "enabled": true, "label": "",
            "mon": false, "tue": false, "wed": false, "thu": false, "fri": false, "sat": false, "sun": false})),
        "letters are refused by a number field, and alarms are listed by time"
    );
    assert!(p.dump().contains("text=\"06:45\""));
    let (_, y) = p.find("text", "08:30").expect("the 08:30 alarm");
    let screen_width = 1080;
    p.sh(&format!("input tap {} {y}", screen_width - 100));
    assert_eq!(p.state()["alarms"][2]["enabled"], true, "tapping the row's switch enables the alarm");
}

#[test]
fn long_press_a_note_to_delete_it() {
    let mut p = Phone::start();
    p.sh("am start -n com.example.notes/.NotesListActivity");
    p.tap("text", "Groceries");
    assert_eq!(p.state()["activity"], "com.example.notes.NoteViewActivity", "a short tap opens the note");
    p.sh("input keyevent 4");
    // A long press from raw motion events, as some agents send them.
    let (x, y) = p.find("text", "Ideas").expect("the Ideas note");
    p.sh(&format!("input motionevent DOWN {x} {y}; sleep 0.5; input motionevent UP {x} {y}"));
    assert_eq!(p.state()["dialog"], "note_menu");
    p.tap("text", "Cancel");
    p.long_press("text", "Groceries");
    let dump = p.dump();
    assert!(dump.contains("text=\"Delete\""), "a long press shows the menu");
    p.tap("text", "Delete");
    let state = p.state();
    let notes = state["notes"].as_array().expect("notes");
    assert!(notes.iter().all(|n| n["title"] != "Groceries"), "{notes:?}");
    assert_eq!(notes.len(), 1);
}

#[test]
fn launching_stopping_and_bad_requests_answer_like_android() {
    let mut p = Phone::start();
    let out = p.sh("am start -n com.android.settings/.Nope");
    assert!(out.contains("Error: Activity class {com.android.settings/.Nope} does not exist."), "{out}");
    let out = p.sh("monkey -p com.no.such -c android.intent.category.LAUNCHER 1");
    assert!(out.contains("** No activities found to run, monkey aborted."), "{out}");
    assert_eq!(
        p.sh("am start -n com.example.notes/.NotesListActivity"),
        "Starting: Intent { cmp=com.example.notes/.NotesListActivity }\n"
    );
    assert_eq!(p.state()["foreground_package"], "com.example.notes");
    p.sh("am force-stop com.example.notes");
    assert_eq!(p.state()["foreground_package"], "com.android.launcher3");
    p.sh("am start -n com.android.settings/.Settings");
    p.sh("input keyevent 4");
    let out = p.sh("am start -n com.android.settings/.Settings");
    assert!(out.contains("Warning: Activity not started, its current task has been brought to the front"), "{out}");
    let out = p.sh("dumpsys activity activities | grep -c Hist");
    assert_eq!(out.trim(), "2", "no duplicate Settings on its stack (plus the launcher's)");
    let out = p.sh("input tap one two");
    assert!(out.starts_with("Error: Invalid arguments for command: tap"), "{out}");
    assert_eq!(p.sh("input keyevent KEYCODE_HOME"), "");
    let out = p.sh("pm list packages -f");
    assert!(
        out.contains("package:/system/priv-app/com.android.settings/com.android.settings.apk=com.android.settings"),
        "{out}"
    );
}

#[test]
fn reset_and_fault_dialog() {
    let mut p = Phone::start();
    p.sh("am start -n com.android.settings/.Settings");
    p.tap("text", "Wi-Fi");
    assert_eq!(p.state()["settings"]["wifi"], false);
    p.sh("simctl fault dialog");
    assert_eq!(p.state()["dialog"], serde_json::Value::Null, "not before the next screen change");
    p.tap("text", "Bluetooth");
    assert_eq!(p.state()["dialog"], "fault:anr");
    assert!(p.dump().contains("System UI isn't responding"));
    p.tap("text", "Wait");
    assert_eq!(p.state()["dialog"], serde_json::Value::Null);
    p.sh("echo data > /sdcard/file.txt");
    p.sh("simctl reset");
    let state = p.state();
    assert_eq!(state["settings"]["wifi"], true);
    assert_eq!(state["foreground_package"], "com.android.launcher3");
    assert!(p.sh("ls /sdcard/file.txt 2>&1").contains("No such file"), "reset empties the files");
}

#[test]
fn every_fault_dialog_kind_shows_and_answers_like_a_phone() {
    let mut p = Phone::start();
    assert!(p.sh("simctl fault dialog nagging 2>&1; echo rc=$?").contains("the kinds are anr, crash"));
    // A permission request is the foreground app's; the answer is remembered.
    p.sh("simctl fault dialog permission");
    p.sh("am start -n com.android.settings/.Settings");
    assert_eq!(p.state()["dialog"], "fault:permission");
    assert!(p.dump().contains("Allow Settings to send you notifications?"));
    p.tap("text", "Don\u{2019}t allow");
    assert_eq!(p.state()["values"]["permission.com.android.settings"], "denied");
    // A crashing background service: closing it leaves the app where it was.
    p.sh("simctl fault dialog crash");
    p.tap("text", "Wi-Fi");
    assert!(p.dump().contains("Google Play services keeps stopping"));
    p.tap("text", "Close app");
    assert_eq!(p.state()["foreground_package"], "com.android.settings");
    // Rate and update popups: the wrong button leaves the app.
    for (kind, text, later, leave) in
        [("rate", "Enjoying Settings?", "Not now", "Rate now"), ("update", "Update available", "Later", "Update")]
    {
        p.sh(&format!("simctl fault dialog {kind}"));
        p.tap("text", "Bluetooth");
        assert!(p.dump().contains(text), "{kind}");
        p.tap("text", later);
        assert_eq!(p.state()["foreground_package"], "com.android.settings", "{kind}");
        p.sh(&format!("simctl fault dialog {kind}"));
        p.tap("text", "Bluetooth");
        p.tap("text", leave);
        assert_eq!(p.state()["foreground_package"], "com.android.launcher3", "{kind}");
        p.sh("am start -n com.android.settings/.Settings");
    }
}

#[test]
fn slow_ui_settles_in_steps_and_dump_latency_slows_dumps() {
    let mut p = Phone::start();
    p.sh("simctl slow-ui 400");
    p.tap("text", "Settings");
    let tapped = Instant::now();
    let moving = p.sh_bytes("screencap -p");
    assert_eq!(p.state()["animating"], true);
    // uiautomator dumps once the UI is idle, as on a phone: the dump waits the
    // animation out.
    let settled = p.dump();
    assert!(tapped.elapsed() >= Duration::from_millis(300), "the dump did not wait: {:?}", tapped.elapsed());
    assert_eq!(p.state()["animating"], false);
    assert!(settled.contains("text=\"Wi-Fi\""));
    assert!(moving != p.sh_bytes("screencap -p"), "the screen moved in steps (the pixels show it)");
    assert_eq!(settled, p.dump(), "once settled, dumps are stable");
    // A screen that never idles within 10 s: uiautomator gives up, as on a phone.
    p.sh("simctl slow-ui 12000");
    p.sh("input keyevent 4");
    let started = Instant::now();
    let gave_up = p.sh("uiautomator dump /dev/tty 2>&1");
    assert!(gave_up.contains("ERROR: could not get idle state."), "{gave_up}");
    assert!(started.elapsed() >= Duration::from_secs(9), "{:?}", started.elapsed());

    p.sh("simctl fault clear");
    p.sh("simctl dump-latency 600");
    let started = Instant::now();
    p.dump();
    assert!(started.elapsed() >= Duration::from_millis(600), "dumps take at least the injected latency");
    let started = Instant::now();
    p.sh("simctl state");
    assert!(started.elapsed() < Duration::from_millis(600), "simctl is never slowed");
}

#[test]
fn the_full_keyboard_types_what_is_tapped() {
    let mut p = Phone::start();
    let out = p.sh("ime set com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME");
    assert!(out.contains("selected"), "{out}");
    p.sh("am start -n com.example.notes/.NoteEditorActivity");
    let all = p.sh("uiautomator dump --windows /dev/tty");
    let keyboard = all
        .split("<node ")
        .find(|n| n.contains("package=\"com.google.android.inputmethod.latin\""))
        .and_then(|n| n.split("bounds=\"").nth(1))
        .and_then(common::parse_bounds)
        .expect("the keyboard window in a --windows dump");
    let (l, t, r, b) = keyboard;
    let (unit, row) = ((r - l) / 10, (b - t) / 4);
    // q and w are the first two keys of the top row; space is the middle of the last.
    for (col, row_n) in [(0, 0), (1, 0), (5, 3), (0, 0)] {
        p.sh(&format!("input tap {} {}", l + unit * col + unit / 2, t + row * row_n + row / 2));
    }
    assert_eq!(p.state()["values"]["draft.note_title"], "qw q");
    // ADBKeyboard broadcasts are ignored while another IME is current, as on a phone.
    p.type_unicode("你好");
    assert_eq!(p.state()["values"]["draft.note_title"], "qw q");
}

#[test]
fn simctl_seeds_the_world_and_the_clock_starts_on_a_fixed_day() {
    let mut p = Phone::start();
    assert!(p.sh("simctl time").starts_with("2023-10-15 15:3"), "the device clock starts at 2023-10-15 15:34");
    assert!(p.sh("date +%Y-%m-%d").starts_with("2023-10-15"));
    assert!(
        p.sh("uiautomator dump --windows /dev/tty").contains("text=\"15:3"),
        "the status bar shows the device time"
    );
    assert_eq!(p.sh("simctl set settings.brightness 70"), "");
    assert_eq!(p.sh("simctl set settings.bt_name 'Pixel Seven'"), "");
    assert_eq!(p.sh(r#"simctl add messages '{"to":"Bob Smith","text":"Lunch?","inbound":true}'"#), "");
    let state = p.state();
    assert_eq!(state["settings"]["brightness"], 70, "a number stays a number");
    assert_eq!(state["settings"]["bt_name"], "Pixel Seven");
    let last = state["messages"].as_array().and_then(|m| m.last()).cloned();
    assert_eq!(last, Some(serde_json::json!({"to": "Bob Smith", "text": "Lunch?", "inbound": true})));
    assert_eq!(p.sh("simctl set no.such.key 1 2>/dev/null; echo $?"), "2\n");
    assert!(p.sh("simctl add nothing '{}' 2>&1").contains("no collection nothing"));
    assert!(p.sh("simctl add notes 'not json' 2>&1").contains("JSON object"));
    p.sh("simctl empty notes");
    assert_eq!(p.state()["notes"], serde_json::json!([]));
    // A received message shows in its thread as received.
    p.sh("simctl launch com.google.android.apps.messaging");
    p.tap("text", "Allow");
    p.tap("text", "Bob Smith");
    assert!(p.dump().contains("content-desc=\"Received Lunch?\""));
    p.sh("simctl reset");
    assert_eq!(p.state()["settings"]["brightness"], 40);
}

#[test]
fn files_app_shows_the_shell_storage_and_moves_and_renames() {
    let mut p = Phone::start();
    p.sh("mkdir /sdcard/Travel; echo hi > /sdcard/Download/plan.txt");
    let files = p.state()["files"].clone();
    assert!(
        files
            .as_array()
            .is_some_and(|f| f.iter().any(|f| f["path"] == "/sdcard/Download/plan.txt" && f["kind"] == "file"))
    );
    p.sh("simctl launch com.google.android.documentsui");
    p.tap("text", "Download");
    p.long_press("text", "plan.txt");
    p.tap("text", "Move");
    p.tap("text", "/sdcard/Travel");
    assert_eq!(p.sh("ls /sdcard/Travel"), "plan.txt\n", "the app moved the file on the shell's storage");
    p.sh("input keyevent KEYCODE_BACK");
    p.tap("text", "Travel");
    p.long_press("text", "plan.txt");
    p.tap("text", "Rename");
    p.type_unicode("trip.txt");
    p.tap("resource-id", "com.google.android.documentsui:id/rename_button");
    assert_eq!(p.sh("cat /sdcard/Travel/trip.txt"), "hi\n");
    p.long_press("text", "trip.txt");
    p.tap("text", "Delete");
    assert_eq!(p.sh("ls /sdcard/Travel"), "");
}

#[test]
fn a_planted_crash_closes_the_app_says_so_and_logs_the_fatal_exception() {
    let mut p = Phone::start();
    p.sh("simctl fault crash-on com.nope save");
    p.sh("simctl fault crash-on com.example.notes add_note");
    let faults = p.sh("simctl faults");
    assert!(faults.contains(r#""fault":"crash-on","package":"com.example.notes","widget":"add_note""#), "{faults}");
    assert!(!faults.contains("com.nope"), "an unknown app is refused: {faults}");
    p.sh("am start -n com.example.notes/.NotesListActivity");
    assert!(p.sh("logcat -d").contains("Displayed com.example.notes/.NotesListActivity"));
    p.tap("resource-id", "com.example.notes:id/add_note");
    assert!(p.find("text", "Notes keeps stopping").is_some(), "the crash dialog");
    assert_eq!(p.state()["foreground_package"], "com.android.launcher3", "the app is gone");
    let crashes = p.sh("logcat -d -b crash");
    assert!(crashes.starts_with("--------- beginning of crash\n"), "{crashes}");
    assert!(crashes.contains(" E AndroidRuntime: FATAL EXCEPTION: main"), "{crashes}");
    assert!(crashes.contains("E AndroidRuntime: Process: com.example.notes, PID: "), "{crashes}");
    assert!(!crashes.contains("Displayed"), "the crash buffer holds crashes only");
    assert_eq!(p.sh("logcat -d -s ActivityTaskManager").matches("Displayed").count(), 1);
    p.tap("text", "Close app");

    // A widget named by its description, failing another way.
    p.sh("simctl fault clear");
    p.sh("simctl fault anr-on com.example.notes New note");
    p.sh("am start -n com.example.notes/.NotesListActivity");
    p.tap("content-desc", "New note");
    assert!(p.find("text", "Notes isn't responding").is_some());
    assert!(p.sh("logcat -d '*:E'").contains("E ActivityManager: ANR in com.example.notes"));
    p.tap("text", "Close app");
    assert_eq!(p.state()["foreground_package"], "com.android.launcher3");
    p.sh("logcat -c");
    assert_eq!(p.sh("logcat -d"), "");
    p.sh("simctl fault clear");
    p.sh("am start -n com.example.notes/.NotesListActivity");
    p.tap("content-desc", "New note");
    assert_eq!(p.state()["activity"], "com.example.notes.NoteEditorActivity", "cleared: the tap works again");
}
