//! Watchers in scripts: the built-in blockers and the keyboard watcher clear what
//! stands in a script's way unless turned off, and a script's own watcher runs first.

use super::exec_scripts::{exec_sim, exec_sim_with};

#[test]
fn blocker_watchers_clear_every_kind_of_dialog_unless_turned_off() {
    let script = |kind: &str| {
        format!(
            r#"shell("simctl fault dialog {kind}");
start_app("com.android.settings");
tap(#{{id: "wifi_switch"}});
print(parse_json(shell("simctl state").output).settings.wifi);
"#
        )
    };
    for kind in ["anr", "crash", "permission", "rate", "update"] {
        let (exit, out, err) = exec_sim(&format!("watch-{kind}"), &script(kind));
        assert_eq!((exit, out.as_str()), (Some(0), "false\n"), "{kind}: {err}");
        let watcher = if matches!(kind, "rate" | "update") { "popups" } else { kind };
        assert!(err.contains(&format!("watcher(\"{watcher}\") -> ok; tapped ")), "{kind}: {err}");
        let (exit, out, err) = exec_sim_with(&format!("nowatch-{kind}"), &script(kind), &["--watchers", "off"]);
        assert_eq!((exit, out.as_str()), (Some(1), ""), "{kind}: the dialog is all there is (a failure): {err}");
        assert!(err.contains("nothing on screen matches") && !err.contains("watcher("), "{err}");
    }
    // `ask` leaves a permission request to the script (which answers it itself here:
    // the dialog is what it targets, so no watcher has a word to say).
    let (exit, out, err) = exec_sim_with(
        "watch-ask",
        r#"shell("simctl fault dialog permission");
start_app("com.android.settings");
print(find("Don’t allow") != ());
tap("Don’t allow");
print(parse_json(shell("simctl state").output).values["permission.com.android.settings"]);
"#,
        &["--watchers", "permission=ask"],
    );
    assert_eq!((exit, out.as_str()), (Some(0), "true\ndenied\n"), "{err}");
    assert!(err.matches("watcher(\"permission\") -> ok; left").count() <= 1, "said once at most: {err}");
    let (exit, _, err) = exec_sim_with("watch-bad", "home();\n", &["--watchers", "all,nagging"]);
    assert_eq!(exit, Some(2));
    assert!(err.contains("unknown watcher \"nagging\""), "{err}");
}

#[test]
fn the_keyboard_watcher_hides_the_keyboard_over_a_target() {
    let script = r#"open_app("Clock");
tap(#{desc: "Add alarm"});
set_text(#{id: "hour"}, "7");
tap("Cancel");
print(phone_state.activity);
"#;
    let (exit, out, err) = exec_sim("keyboard", script);
    assert_eq!((exit, out.as_str()), (Some(0), "com.android.deskclock.DeskClock\n"), "{err}");
    assert!(err.contains("watcher(\"keyboard\") -> ok; hid the keyboard covering Button \"Cancel\""), "{err}");
    let (_, out, err) = exec_sim_with("no-keyboard", script, &["--watchers=-keyboard"]);
    assert_eq!(out, "com.android.deskclock.AlarmEditActivity\n", "the tap lands on the keyboard: {err}");
}

/// A script's own `back()`, meant for the keyboard, is the one that hides it: with
/// the watchers on, nothing hides the keyboard ahead of the script, so the Back
/// press does not fall through to the editor and leave it. The watcher answers
/// only a tap the keyboard covers.
#[test]
fn a_scripts_own_back_hides_the_keyboard_with_the_watchers_on() {
    let script = r#"open_app("Clock");
tap(#{desc: "Add alarm"});
set_text(#{id: "hour"}, "7");
print(phone_state.keyboard_shown);
back();
print(phone_state.activity);
print(phone_state.keyboard_shown);
"#;
    let (exit, out, err) = exec_sim("own-back", script);
    assert_eq!((exit, out.as_str()), (Some(0), "true\ncom.android.deskclock.AlarmEditActivity\nfalse\n"), "{err}");
    assert!(!err.contains("watcher(\"keyboard\")"), "{err}");
}

#[test]
fn a_scripts_own_watcher_runs_its_function_first_and_can_be_removed() {
    let (exit, out, err) = exec_sim(
        "script-watch",
        r#"let name = watch("Enjoying Settings?", |el| { print(`saw ${el.text}`); tap("Not now"); });
shell("simctl fault dialog rate");
start_app("com.android.settings");
tap(#{id: "wifi_switch"});
print(parse_json(shell("simctl state").output).settings.wifi);
print(unwatch(name));
print(unwatch(name));
try { watch("x", 1); } catch (e) { print(e.contains("must be a function")); }
watch("Wi-Fi", |el| throw "boom");
try { tap("Bluetooth"); } catch (e) { print(e.starts_with("watcher \"Wi-Fi\": boom")); }
"#,
    );
    assert_eq!((exit, out.as_str()), (Some(0), "saw Enjoying Settings?\nfalse\ntrue\nfalse\ntrue\ntrue\n"), "{err}");
    assert!(err.contains("watch(\"Enjoying Settings?\", \"closure\") -> ok"), "{err}");
    assert!(err.contains("watcher(\"Enjoying Settings?\") -> ok; matched TextView \"Enjoying Settings?\""), "{err}");
    assert!(!err.contains("watcher(\"popups\")"), "the script's watcher came first: {err}");
}
