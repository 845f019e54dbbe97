//! What scripts do to the virtual phone, proven by its state: apps stopped and
//! cleared, links opened, fields moved through, the clipboard, alarms, screenshots,
//! and the effect line each action reports.

use std::process::Command;

use super::exec_scripts::{NEW_CHAT, exec_sim, exec_sim_with};

#[test]
fn stop_app_and_hide_keyboard_act_on_the_phone() {
    let (exit, out, err) = exec_sim(
        "control",
        &[
            NEW_CHAT,
            r#"set_text(#{editable: true}, "x");
print(phone_state.keyboard_shown);
print(hide_keyboard());
refresh();
print(phone_state.keyboard_shown);
stop_app("com.google.android.apps.messaging");
refresh();
print(phone_state.app);
"#,
        ]
        .concat(),
    );
    assert_eq!(exit, Some(0), "{err}");
    assert_eq!(out, "true\ntrue\nfalse\ncom.android.launcher3\n", "{err}");
}

#[test]
fn in_scripts_ui_state_follows_the_screen_after_an_action() {
    let (exit, out, err) = exec_sim(
        "follow",
        r#"start_app("com.android.settings");
let wifi_on = || ui_state.filter(|e| e.id == "wifi_switch")[0].checked;
print(wifi_on.call());
tap(#{id: "wifi_switch"});
print(wifi_on.call());
"#,
    );
    assert_eq!(exit, Some(0), "{err}");
    assert_eq!(out, "true\nfalse\n", "{err}");
}

#[test]
fn erase_scroll_and_named_screenshots() {
    let dir = std::env::temp_dir().join(format!("codeact-named-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let script = std::env::temp_dir().join(format!("codeact-named-{}.rhai", std::process::id()));
    std::fs::write(
        &script,
        [
            NEW_CHAT,
            r#"set_text(#{editable: true}, "hello");
erase(2);
print(find(#{editable: true}).text);
screenshot("typed");
home();
start_app("com.android.contacts");
let first = find(#{clickable: true, nth: 0}).text;
scroll(#{scrollable: true}, "down");
print(first != find(#{clickable: true, nth: 0}).text);
"#,
        ]
        .concat(),
    )
    .expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "--device", "sim", "--record", "none", "--trajectory"])
        .arg(&dir)
        .arg(&script)
        .output()
        .expect("run codeact exec");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hel\ntrue\n");
    let shots: Vec<String> = std::fs::read_dir(dir.join("screenshots"))
        .expect("screenshots")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(shots.len(), 1, "only the named one with --record none: {shots:?}");
    assert!(shots[0].ends_with("-typed.png"), "{shots:?}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&script);
}

#[test]
fn the_virtual_phone_refuses_bad_alarms_sorts_them_and_keeps_a_denied_permission() {
    // The permission watcher is told to deny, and the script denies itself: the
    // dialog is what it targets, so it answers it.
    let (exit, out, err) = exec_sim_with(
        "fidelity",
        r#"open_app("Clock");
fn add(h, m) {
  tap(#{desc: "Add alarm"});
  set_text(#{id: "hour"}, h);
  set_text(#{id: "minute"}, m);
  tap("Save");
}
add("25", "61");
print(phone_state.activity);
tap("Cancel");
add("09", "30");
add("07", "05");
let w = parse_json(shell("simctl state").output);
print(w.alarms.map(|a| `${a.hour}:${a.minute}`));
home();
start_app("com.android.settings");
tap(#{id: "airplane_switch"});
let w = parse_json(shell("simctl state").output);
print([w.settings.wifi, w.settings.bluetooth, w.settings.airplane_mode]);
start_app("com.google.android.apps.messaging");
tap("Don’t allow");
let w = parse_json(shell("simctl state").output);
print(w.values["perm.messaging_notifications"]);
home();
start_app("com.google.android.apps.messaging");
print(find("Don’t allow") == ());
"#,
        &["--watchers", "permission=deny"],
    );
    assert_eq!(exit, Some(0), "{err}");
    // The script answers the dialog itself: its intent wins over the watcher's.
    assert!(err.contains("tap(\"Don’t allow\") -> ok") && !err.contains("watcher(\"permission\")"), "{err}");
    assert_eq!(
        out,
        "com.android.deskclock.AlarmEditActivity\n[\"7:0\", \"7:5\", \"8:30\", \"9:30\"]\n[false, false, true]\nfalse\ntrue\n",
        "{err}"
    );
}

#[test]
fn clear_app_data_and_a_clean_start_forget_what_the_app_kept() {
    let (exit, out, err) = exec_sim(
        "clear",
        r#"let notes = || parse_json(shell("simctl state").output).notes.len();
print(notes.call() > 0);
clear_app_data("com.example.notes");
print(notes.call());
start_app("com.google.android.apps.messaging");
tap("Allow");
start_app("com.google.android.apps.messaging", #{clear: true});
print(find("Allow") != ());
"#,
    );
    assert_eq!(exit, Some(0), "{err}");
    assert_eq!(out, "true\n0\ntrue\n", "{err}");
    let (exit, _, err) = exec_sim("bad_option", "start_app(\"com.android.settings\", #{colour: 1});\n");
    assert_eq!(exit, Some(2));
    assert!(err.contains("unknown option \"colour\""), "{err}");
}

#[test]
fn open_url_opens_the_app_that_handles_the_link() {
    let (exit, out, err) = exec_sim(
        "deep_link",
        "open_url(\"sms:张三\");\nprint(phone_state.activity);\ntry { open_url(\"nothing://x\"); } catch (e) { print(e); }\n",
    );
    assert_eq!(exit, Some(0), "{err}");
    assert!(out.starts_with("com.google.android.apps.messaging.ui.conversation.ConversationActivity\n"), "{out}");
    assert!(out.contains("no app opened \"nothing://x\""), "{out}");
}

#[test]
fn tab_and_enter_move_to_the_next_field_on_the_virtual_phone() {
    let (exit, out, err) = exec_sim(
        "tab_enter",
        r#"open_app("Clock");
tap(#{desc: "Add alarm"});
tap(#{id: "hour"});
input_text("6");
press_key("tab");
input_text("45");
press_key("enter");
input_text("Gym");
press_key("enter");
print(phone_state.keyboard_shown);
tap("Save");
let alarm = parse_json(shell("simctl state").output).alarms[0];
print(`${alarm.hour}:${alarm.minute} ${alarm.label}`);
"#,
    );
    assert_eq!(exit, Some(0), "{err}");
    assert_eq!(out, "false\n6:45 Gym\n", "{err}");
}

#[test]
fn the_clipboard_round_trips_and_pastes_on_the_virtual_phone() {
    let (exit, out, err) = exec_sim(
        "clipboard",
        &[
            r#"set_clipboard("Grüße aus Berlin (1/2) 'x'");
print(get_clipboard());
"#,
            NEW_CHAT,
            r#"tap(#{editable: true});
press_key("KEYCODE_PASTE");
print(find(#{editable: true}).text);
"#,
        ]
        .concat(),
    );
    assert_eq!(exit, Some(0), "{err}");
    assert_eq!(out, "Grüße aus Berlin (1/2) 'x'\nGrüße aus Berlin (1/2) 'x'\n", "{err}");
}

#[test]
fn each_action_says_what_it_changed_and_a_silent_tap_is_made_once_more() {
    let (exit, _, err) = exec_sim(
        "effects",
        r#"start_app("com.android.settings");
tap(#{id: "airplane_switch"});
tap("Mobile network");
tap("Bluetooth");
"#,
    );
    assert_eq!(exit, Some(0), "{err}");
    assert!(
        err.contains("Switch (id airplane_switch) unchecked → checked; Switch (id wifi_switch) checked → unchecked"),
        "the toggle and what it flipped: {err}"
    );
    // Disabled in airplane mode: nothing happens, and a row is safe to tap again.
    assert!(err.contains("tap(\"Mobile network\") -> ok; retried once: no visible change"), "{err}");
    assert!(err.contains("tap(\"Bluetooth\") -> ok; Switch (id bluetooth_switch) unchecked → checked"), "{err}");
}
