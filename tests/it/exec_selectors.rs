//! Scripts find things on the live screen: selectors that are literal unless asked,
//! indices refused when stale or unseen, waits that scroll and can be cancelled, and
//! errors that say what to write.

use std::time::Duration;

use super::exec_scripts::{NEW_CHAT, exec_sim, session};

/// The index belongs to the screen it was read from, whatever ran in between: the
/// refusal says which screen that was, which is in front now, and what to do.
#[test]
fn an_index_read_before_opening_an_app_is_refused_with_both_screens_named() {
    let (code, _, err) = exec_sim(
        "stale-after-open",
        "home();\nrefresh();\nlet s = ui_state;\nopen_app(\"Settings\");\ntap_by_index(7);\n",
    );
    assert_eq!(code, Some(2), "a script's mistake, not the screen's: {err}");
    assert!(err.contains("ui_state[7]") && err.contains("is no longer at that index"), "{err}");
    assert!(err.contains("read on com.android.launcher3/") && err.contains("now com.android.settings/"), "{err}");
    assert!(err.contains("call refresh() and read ui_state again, or name the element: #{"), "{err}");
}

#[test]
fn a_stale_index_is_refused_not_tapped() {
    let mut sb = session();
    // The index of the Settings icon on the home screen, then the screen changes.
    let r = sb.eval(
        "let i = ui_state.filter(|e| e.text == \"Settings\")[0].index;\n\
         start_app(\"com.android.contacts\");\n\
         tap_by_index(i);",
    );
    let err = r.error.expect("refused");
    assert!(err.message.contains("no longer at that index"), "{}", err.message);
    let stale = codeact::sandbox::FailureKind::Stale;
    assert_eq!(err.kind, codeact::sandbox::ErrorKind::Tool { tool: "tap_by_index".into(), failure: stale });
    assert_eq!(err.line, Some(3));
    assert_eq!(r.actions.len(), 2, "start_app and the refused tap are both recorded");
    // After refresh() indices are fresh again.
    let r = sb.eval("refresh(); let c = ui_state.filter(|e| e.text == \"Contacts\"); print(c.len());");
    assert!(r.error.is_none(), "{:?}", r.error);
    // Setting the clipboard shows nothing on screen: the indices stay good.
    let r = sb.eval(
        "home(); refresh(); let i = ui_state.filter(|e| e.text == \"Settings\")[0].index;\n\
         set_clipboard(\"hello\");\ntap_by_index(i);",
    );
    assert!(r.error.is_none(), "{:?}", r.error);
}

#[test]
fn selectors_find_wait_and_assert_on_the_live_screen() {
    let mut sb = session();
    let r = sb.eval(
        r#"start_app("com.android.settings");
           let bt = find(#{class: "Switch", below: "Wi-Fi"});
           print(bt.id);
           print(find_all(#{class: "Switch"}).len());
           print(type_of(find("No such row")));
           tap(#{id: "bluetooth_switch"});
           assert_visible(#{id: "bluetooth_switch", checked: true});
           let about = scroll_until_visible("About phone");
           tap("About phone");
           wait_for("Android version", 2000);
           assert_not_visible("Bluetooth");"#,
    );
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.output, "bluetooth_switch\n3\n()\n");
    let r = sb.eval(r#"wait_for("Never there", 300);"#);
    let err = r.error.expect("a timeout");
    assert!(err.message.contains("did not appear within 300 ms"), "{}", err.message);
    let r = sb.eval(r#"tap("Nothing like this");"#);
    let err = r.error.expect("not found");
    assert!(
        err.message.contains("nothing on screen matches") && err.message.contains("nearest on screen:"),
        "{}",
        err.message
    );
    let r = sb.eval(r#"assert_visible(#{colour: "red"});"#);
    assert!(r.error.expect("bad key").message.contains("unknown selector key"));
}

#[test]
fn selectors_are_literal_unless_asked_and_their_errors_say_what_to_write() {
    // A string: exact, else contains (any case); a literal with regex characters.
    let (code, out, err) = exec_sim(
        "literal",
        r#"start_app("com.android.settings");
print(find("Wi-Fi").id);
print(find("network & INTERNET").text);
print(find(#{text_starts_with: "Network &"}).text);
print(find(#{text_matches: "Wi-.i"}).text);
print(find(#{id: "com.android.settings:id/wifi_switch"}).class);
print(find(#{class: "Switch", right_of: "Bluetooth"}).id);
print(find(#{class: "Switch", nth: 1}).id);
print(find(#{text: "Wi-Fi", inside: #{clickable: true}}).text);
print(find(#{text: "34% used - 84.2 GB (free)"}));
"#,
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        "title\nNetwork & internet\nNetwork & internet\nWi-Fi\nSwitch\nbluetooth_switch\nbluetooth_switch\nWi-Fi\n\n",
        "{err}"
    );
    // Mistakes: an invalid regex, `index`, an unknown key, a near miss.
    for (name, code_line, wanted) in [
        ("bad_regex", r#"find(#{text_matches: "(Mobile"});"#, "not a valid regex"),
        ("index_key", r#"tap(#{id: "wifi_switch", index: 3});"#, "tap_by_index(3)"),
        ("unknown_key", r#"find(#{colour: "red"});"#, "unknown selector key \"colour\""),
        ("near_miss", r#"tap("Wifi network");"#, "(closest: #{text: \"Wi-Fi\"})"),
    ] {
        let (code, _, err) = exec_sim(name, &format!("start_app(\"com.android.settings\");\n{code_line}\n"));
        // A wrong selector is the script's error; a near miss is the screen not as
        // the script expected: a failure.
        let expected = if name == "near_miss" { 1 } else { 2 };
        assert_eq!(code, Some(expected), "{name}: {err}");
        assert!(err.contains(wanted), "{name}: {err}");
    }
    // Nothing matches: the few elements nearest to what was asked, a count, once.
    let (code, _, err) = exec_sim("listed", "start_app(\"com.android.settings\");\ntap(\"Wi-Fi network\");\n");
    assert_eq!(code, Some(1), "a failure, not an error: {err}");
    assert!(err.contains("Switch (id wifi_switch)") && err.contains("on screen)"), "{err}");
    assert!(!err.contains("TextView \"Battery\" (id title)"), "not the whole screen: {err}");
    assert_eq!(err.matches("nothing on screen matches").count(), 1, "said once: {err}");
    assert!(err.contains("tap(\"Wi-Fi network\") -> failed (not found)"), "{err}");
    let (code, _, err) = exec_sim("wait_timeout", "wait_for(\"Never there\", 300);\n");
    assert_eq!(code, Some(1), "a wait that times out is a failure: {err}");
    assert!(err.contains("FAIL ") && err.contains("did not appear within 300 ms"), "{err}");
}

#[test]
fn typing_is_checked_and_an_unseen_index_is_refused() {
    let cases = [
        ("unseen_index", "start_app(\"com.android.settings\");\ntap_by_index(4);\n", "ui_state was not read"),
        (
            "set_text_on_a_label",
            "start_app(\"com.android.settings\");\nset_text(\"Wi-Fi\", \"hello\");\n",
            "not a text field",
        ),
        ("typing_into_nothing", "home();\ninput_text(\"hello\");\n", "no text field has focus"),
    ];
    for (name, code, wanted) in cases {
        let (exit, _, err) = exec_sim(name, code);
        assert_eq!(exit, Some(2), "{name}: {err}");
        assert!(err.contains(wanted), "{name}: {err}");
    }
    // Wi-Fi was not toggled by the refused set_text (it starts on).
    let (exit, out, err) = exec_sim(
        "typing_works",
        &[
            r#"start_app("com.android.settings");
print(find(#{id: "wifi_switch"}).checked);
let seen = ui_state;
tap_by_index(seen.filter(|e| e.id == "wifi_switch")[0].index);
home();
"#,
            NEW_CHAT,
            r#"set_text(#{editable: true}, "张三");
input_text(" 2");
print(find(#{editable: true}).text);
"#,
        ]
        .concat(),
    );
    assert_eq!(exit, Some(0), "{err}");
    assert_eq!(out, "true\n张三 2\n", "{err}");
}

#[test]
fn errors_inside_functions_point_inside_and_name_forms_in_catalog_words() {
    let (exit, _, err) = exec_sim(
        "inner",
        "fn walk(x) {\n  let y = x + 1;\n  tap(y, \"b\");\n}\nfn outer() {\n  walk(1);\n}\nouter();\n",
    );
    assert_eq!(exit, Some(2), "{err}");
    assert!(err.contains("line 3, column 3") && err.contains("  tap(y, \"b\");"), "{err}");
    assert!(err.contains("walk() was called at line 6 in outer(), outer() was called at line 8"), "{err}");
    let (_, _, err) = exec_sim("forms", "tap(\"a\", \"b\", \"c\");\n");
    assert!(err.contains("tap() cannot take (string, string, string); use tap(x, y) or tap(sel)"), "{err}");
    let (_, _, err) = exec_sim("types", "let n = 5;\nn.text\n");
    assert!(err.contains("type 'integer'") && !err.contains("i64"), "{err}");
}

#[test]
fn a_cancel_stops_tool_waits_at_once() {
    use codeact::sandbox::ErrorKind;
    let mut sb = session();
    for code in ["wait(20000);", "wait_for(\"Never there\", 20000);", "loop { wait(50); }"] {
        let handle = sb.cancel_handle();
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            handle.cancel();
            std::time::Instant::now()
        });
        let r = sb.eval(code);
        let ended = std::time::Instant::now();
        let cancelled_at = canceller.join().expect("canceller");
        assert_eq!(r.error.map(|e| e.kind), Some(ErrorKind::Cancelled), "{code}");
        let late = ended.saturating_duration_since(cancelled_at);
        assert!(late < Duration::from_millis(500), "{code}: stopped {late:?} after the cancel");
    }
}

#[test]
fn a_selector_that_matches_nothing_scrolls_the_list_unless_told_not_to() {
    let (exit, out, err) = exec_sim(
        "fallback",
        r#"start_app("com.android.settings");
tap("About phone");
print(phone_state.activity);
back();
let r = 0;
// Back on the list, still scrolled to its end.
try { tap(#{text: "Mobile network", no_scroll: true}); } catch (e) { print(e.contains("nothing on screen matches")); }
try { tap("Teleport"); } catch (e) { print(e.contains("after scrolling the list down and back up")); }
"#,
    );
    assert_eq!((exit, out.as_str()), (Some(0), "com.android.settings.AboutPhone\ntrue\ntrue\n"), "{err}");
}

/// A script's intent wins over the watchers: with them on (the default), a script
/// that waits for the permission dialog and taps "Don't allow" gets "Don't allow"
/// (the permission watcher would allow it); a dialog in the way of a script's action
/// is still answered for it.
#[test]
fn a_script_that_answers_a_dialog_itself_gets_its_own_answer() {
    let state = |out: &str| out.lines().last().unwrap_or_default().to_string();
    let deny = "start_app(\"com.google.android.apps.messaging\");\nwait_for(\"Don't allow\");\ntap(\"Don't allow\");\n\
                print(parse_json(shell(\"simctl state\").output).values[\"perm.messaging_notifications\"]);\n";
    let (code, out, err) = exec_sim("deny-myself", deny);
    assert_eq!((code, state(&out).as_str()), (Some(0), "false"), "{err}");
    assert!(!err.contains("watcher(\"permission\")"), "the watcher left the dialog to the script: {err}");
    // The same dialog in the way of something else: answered for the script.
    let past = "start_app(\"com.google.android.apps.messaging\");\ntap(\"Alice Johnson\");\n\
                print(parse_json(shell(\"simctl state\").output).values[\"perm.messaging_notifications\"]);\n";
    let (code, out, err) = exec_sim("dialog-in-the-way", past);
    assert_eq!((code, state(&out).as_str()), (Some(0), "true"), "{err}");
    assert!(err.contains("watcher(\"permission\") -> ok; tapped \"Allow\""), "one line says what it did: {err}");
    // An index read before a dialog came up: the dialog is answered, then the very
    // element the index named is tapped.
    let under = "start_app(\"com.android.settings\");\nrefresh();\n\
                 let i = ui_state.filter(|e| e.id == \"wifi_switch\")[0].index;\n\
                 shell(\"simctl fault dialog anr\");\ntap(#{id: \"bluetooth_switch\"});\ntap_by_index(i);\n\
                 print(parse_json(shell(\"simctl state\").output).settings.wifi);\n";
    let (code, out, err) = exec_sim("index-under-dialog", under);
    assert_eq!((code, state(&out).as_str()), (Some(0), "false"), "{err}");
    assert!(err.contains("watcher(\"anr\") -> ok; tapped \"Wait\""), "{err}");
}

#[test]
fn answer_keeps_text_refuses_nothing_and_bounds_its_size() {
    let (exit, out, err) = exec_sim(
        "answer",
        r#"answer(42);
let long = "x"; long.pad(5000, "y");
try { answer(long); } catch (e) { print(e); }
try { answer(" 42 ".trim()); } catch (e) { print(e); }
"#,
    );
    assert_eq!(exit, Some(0), "{err}");
    assert!(out.contains("keep the answer short: 5000 bytes is over 4096"), "{out}");
    assert!(out.contains("got () instead of an answer"), "{out}");
}
