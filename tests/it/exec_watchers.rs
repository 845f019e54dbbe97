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

/// A watcher's tap passes the sensitive-action gate like every act: with a rule on
/// the button it would press, it presses nothing, asks nobody, and says why; the
/// dialog stays for the script (or the model, or the person), whose own press is
/// judged — and asked — as any.
#[test]
fn a_watcher_does_not_press_a_button_a_sensitive_rule_covers() {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use codeact::config::{FileConfig, Flags};
    use codeact::device::{DeviceSpec, open};
    use codeact::human::{Human, HumanRequest};
    use codeact::session::Session;
    use codeact::tools::{Sensitive, SensitivePolicy};

    let asked = Arc::new(Mutex::new(Vec::<String>::new()));
    let run = |rule: Option<&str>| {
        let mut settings = FileConfig::default().resolve(&Flags::default()).expect("settings");
        settings.worker = crate::common::worker();
        if let Some(rule) = rule {
            settings.tools.sensitive = Sensitive::default().with_words(&[rule.to_string()]).expect("a rule");
        }
        settings.tools.sensitive.policy = SensitivePolicy::Ask;
        let seen = asked.clone();
        let person: Human = Arc::new(move |request: &HumanRequest| {
            seen.lock().unwrap_or_else(|e| e.into_inner()).push(request.text());
            Some("no".into())
        });
        settings.helpers.person = Some(person);
        let device = open(&DeviceSpec::Sim, Duration::from_secs(10)).expect("sim");
        let mut session = Session::open_on(device, &settings).expect("session");
        session.eval(
            r#"shell("simctl fault dialog crash");
start_app("com.android.settings");
try { tap(#{id: "wifi_switch", no_scroll: true}); } catch (e) { print(e); }
print(find("Close app") != ());"#,
        )
    };
    // The control: no rule on the button, the watcher taps it and the tap lands.
    let clear = run(None);
    let watcher_lines = |r: &codeact::sandbox::RunResult| -> Vec<String> {
        r.actions.iter().filter(|a| a.tool == "watcher").filter_map(|a| a.capture.effect.clone()).collect()
    };
    assert!(watcher_lines(&clear).iter().any(|l| l.starts_with("tapped \"Close app\"")), "{:?}", clear.actions);
    assert!(clear.output.ends_with("false\n"), "{}", clear.output);
    // A rule on "close app": the watcher leaves the dialog and says which rule.
    let held = run(Some("close app"));
    let lines = watcher_lines(&held);
    assert!(!lines.iter().any(|l| l.starts_with("tapped")), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("matches the sensitive rule") && l.contains("Close app")), "{lines:?}");
    assert!(held.output.ends_with("true\n"), "the dialog is still there: {}", held.output);
    assert!(asked.lock().unwrap_or_else(|e| e.into_inner()).is_empty(), "a watcher asks nobody");
}
