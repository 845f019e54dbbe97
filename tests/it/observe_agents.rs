//! codeact's own client for an on-device agent, on the virtual phone's
//! uiautomator2 server: `--observe u2` reads the tree and taps through the server
//! (straight to the phone's adbd and through a private stock adb server), the
//! screen is the one `uiautomator dump` gives, a tap costs no shell command; `auto`
//! starts the server only when its jar is on the phone and dumps otherwise; `u2`
//! without the jar is one error that says how to install it. The same for the
//! mobilerun Portal (`--observe portal`, preferred by `auto`), with its token read
//! from its content provider and never shown. Hostile agents (a stale tree, an
//! empty one, bytes that are not HTTP, no answer at all, a token that changed)
//! never break a look: the dump stands in and the observation says why.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use codeact::device::{AdbDevice, Device};
use serde_json::Value;

use crate::common::{self, AdbServer, SimProcess};

fn codeact(args: &[&str], env: &[(&str, String)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env("NO_COLOR", "1")
        .output()
        .expect("run codeact")
}

fn shell(addr: &str, command: &str) -> String {
    let mut phone = AdbDevice::direct(addr, Duration::from_secs(10)).expect("connect");
    phone.shell(command).expect("shell").stdout_text()
}

/// Puts uiautomator2's server jar where its client would (the virtual phone only
/// checks that it is there).
fn install_u2(addr: &str) {
    shell(addr, "simctl file /data/local/tmp/u2.jar u2-server-jar");
}

/// `codeact observe --json` with `args`: the observation, or the failure's stderr.
fn observe(args: &[&str], env: &[(&str, String)]) -> Result<Value, String> {
    let mut all = vec!["observe", "--json"];
    all.extend_from_slice(args);
    let out = codeact(&all, env);
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(serde_json::from_slice(&out.stdout).expect("observe --json prints JSON"))
}

/// The texts and ids of what a look shows of the app in front, in order (the
/// server's tree also has the system bars' windows, as a phone's server does).
fn shown(seen: &Value) -> Vec<(String, String)> {
    let front = seen["phone"]["package"].as_str().unwrap_or("");
    seen["ui"]["elements"]
        .as_array()
        .expect("elements")
        .iter()
        .filter(|e| e["package"] == front)
        .map(|e| (e["text"].as_str().unwrap_or("").to_string(), e["resource_id"].as_str().unwrap_or("").to_string()))
        .collect()
}

/// The command lines the phone serves while `exec` runs `taps` taps on `addr`,
/// observing as `observe` says (counted inside the script: `simctl` is not counted).
fn command_lines_for_taps(addr: &str, observe: &str, taps: usize) -> u64 {
    // The last run's uiautomator2 server stops once that process's stream closes:
    // wait for it, so that this run starts its own (and keeps it to the end).
    for _ in 0..100 {
        let faults: Value = serde_json::from_str(&shell(addr, "simctl faults")).expect("faults JSON");
        if faults["u2_running"] != true {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("taps.rhai");
    let script = format!(
        "let before = shell(\"simctl stats\");\nfor i in 0..{taps} {{ tap(540, 2300); }}\n\
         let after = shell(\"simctl stats\");\nprint(before.output);\nprint(after.output);\n"
    );
    std::fs::write(&file, script).expect("script");
    let out = codeact(
        &["exec", file.to_str().expect("path"), "--device", addr, "--observe", observe, "--settle-ms", "0"],
        &[],
    );
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "exec --observe {observe}: {}", String::from_utf8_lossy(&out.stderr));
    let counts = printed_counts(&printed);
    let [before, after] = counts[..] else { panic!("two counts in {printed}") };
    after - before
}

/// `exec` with `--observe observe` taps the Wi-Fi switch in Settings, and the
/// phone's Wi-Fi setting flips.
fn assert_a_tap_moves_the_wifi_switch(addr: &str, observe: &str) {
    let before = common::sim_state(addr)["settings"]["wifi"].clone();
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("wifi.rhai");
    std::fs::write(&file, "start_app(\"com.android.settings\");\ntap(#{id: \"wifi_switch\"});\n").expect("script");
    let out = codeact(&["exec", file.to_str().expect("path"), "--device", addr, "--observe", observe], &[]);
    assert!(out.status.success(), "{observe}: {}", String::from_utf8_lossy(&out.stderr));
    assert_ne!(common::sim_state(addr)["settings"]["wifi"], before, "{observe}: the switch moved");
}

#[test]
fn the_tree_and_the_taps_go_through_uiautomator2s_server_when_asked() {
    let sim = SimProcess::start(&[]);
    install_u2(&sim.addr);
    shell(&sim.addr, "simctl launch com.android.settings");
    let dumped = observe(&["--device", &sim.addr, "--observe", "dump"], &[]).expect("dump");
    let served = observe(&["--device", &sim.addr, "--observe", "u2"], &[]).expect("u2");
    assert_eq!(dumped["via"], "dump");
    assert_eq!(served["via"], "u2", "{served}");
    assert!(served.get("fallback").is_none(), "{served}");
    assert!(served["taken_at_ms"].as_u64().unwrap_or(0) > 1_600_000_000_000, "when it was taken");
    assert!(served["took_ms"].as_f64().is_some());
    assert!(shown(&served).len() > 20, "{served}");
    assert_eq!(shown(&served), shown(&dumped), "the server's tree is the dump's");
    assert_eq!(served["phone"]["package"], "com.android.settings");

    // Through `input` each tap is a shell command; through the server, none.
    // (What else the script does costs the same for 5 taps as for 10.)
    let dump = [5, 10].map(|n| command_lines_for_taps(&sim.addr, "dump", n));
    let u2 = [5, 10].map(|n| command_lines_for_taps(&sim.addr, "u2", n));
    assert_eq!(dump[1] - dump[0], 5, "input: {dump:?} command lines for 5 and 10 taps");
    assert_eq!(u2[1], u2[0], "server: {u2:?} command lines for 5 and 10 taps");

    // A tap through the server changes the world like any tap.
    assert_a_tap_moves_the_wifi_switch(&sim.addr, "u2");

    // The same through a stock adb server: its `tcp:` streams and a held shell.
    let adb = AdbServer::start();
    adb.connect(&sim.addr);
    let env = [("ANDROID_ADB_SERVER_PORT", adb.port().to_string())];
    let through = observe(&["--observe", "u2"], &env).expect("u2 through the adb server");
    assert_eq!(through["via"], "u2", "{through}");
    let dumped_now = observe(&["--observe", "dump"], &env).expect("dump through the adb server");
    assert_eq!(shown(&through), shown(&dumped_now));
}

#[test]
fn auto_starts_the_server_only_when_installed_and_u2_without_it_says_how_to_install() {
    let sim = SimProcess::start(&[]);
    let seen = observe(&["--device", &sim.addr], &[]).expect("auto");
    assert_eq!(seen["via"], "dump", "no jar: a dump");
    assert!(seen.get("fallback").is_none(), "nothing was asked for that is missing: {seen}");
    let err = observe(&["--device", &sim.addr, "--observe", "u2"], &[]).expect_err("no server");
    assert!(err.contains("python -m uiautomator2 init") && err.contains("--observe auto"), "{err}");
    assert!(err.contains("/data/local/tmp/u2.jar"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    install_u2(&sim.addr);
    let seen = observe(&["--device", &sim.addr], &[]).expect("auto");
    assert_eq!(seen["via"], "u2", "jar there: the server, started");
    // The text form says how the look was taken.
    let out = codeact(&["observe", "--device", &sim.addr], &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().next().is_some_and(|l| l.contains("read by uiautomator2's server in")), "{text}");
}

#[test]
fn stale_empty_garbled_and_silent_servers_give_way_to_a_dump_that_says_why() {
    let sim = SimProcess::start(&[]);
    install_u2(&sim.addr);
    // A tree frozen on the home screen while Settings is in front.
    shell(&sim.addr, "simctl fault agent stale");
    shell(&sim.addr, "simctl launch com.android.settings");
    let seen = observe(&["--device", &sim.addr, "--observe", "u2"], &[]).expect("stale");
    assert_eq!(seen["via"], "dump", "{seen}");
    let why = seen["fallback"].as_str().unwrap_or("");
    assert!(why.contains("stale tree") && why.contains("com.android.settings"), "{why}");
    assert!(shown(&seen).iter().any(|(_, id)| id.ends_with("wifi_switch")), "the dump shows Settings");

    shell(&sim.addr, "simctl fault agent empty");
    let seen = observe(&["--device", &sim.addr], &[]).expect("empty");
    assert_eq!(seen["via"], "dump");
    assert!(seen["fallback"].as_str().unwrap_or("").contains("an empty tree"), "{seen}");

    for (kind, says) in [("garbage", "not HTTP"), ("hang", "no answer within")] {
        shell(&sim.addr, &format!("simctl fault agent {kind}"));
        let started = Instant::now();
        // auto: set aside, and the dump stands in.
        let seen = observe(&["--device", &sim.addr, "--timeout", "2"], &[]).expect(kind);
        assert_eq!(seen["via"], "dump", "{kind}: {seen}");
        let why = seen["fallback"].as_str().unwrap_or("");
        assert!(why.contains("set aside") && why.contains(says), "{kind}: {why}");
        // u2 asked for by name: an error that says what the server did.
        let err = observe(&["--device", &sim.addr, "--observe", "u2", "--timeout", "2"], &[]).expect_err(kind);
        assert!(err.contains("uiautomator2's server") && err.contains(says), "{kind}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(30), "{kind} took {:?}", started.elapsed());
    }
    shell(&sim.addr, "simctl fault clear");
    let seen = observe(&["--device", &sim.addr, "--observe", "u2"], &[]).expect("healthy again");
    assert_eq!(seen["via"], "u2");
}

/// Turns the Portal's accessibility service on, as `droidrun setup` does.
fn enable_portal(addr: &str) {
    shell(addr, crate::agents_door::ENABLE_PORTAL);
}

#[test]
fn the_portal_reads_and_taps_without_a_shell_command_and_auto_prefers_it() {
    let sim = SimProcess::start(&[]);
    let err = observe(&["--device", &sim.addr, "--observe", "portal"], &[]).expect_err("not on yet");
    assert!(err.contains("droidrun setup") && err.contains("enabled_accessibility_services"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    enable_portal(&sim.addr);
    install_u2(&sim.addr);
    shell(&sim.addr, "simctl launch com.android.settings");
    let dumped = observe(&["--device", &sim.addr, "--observe", "dump"], &[]).expect("dump");
    let portal = observe(&["--device", &sim.addr, "--observe", "portal"], &[]).expect("portal");
    assert_eq!(portal["via"], "portal", "{portal}");
    assert_eq!(shown(&portal), shown(&dumped), "the Portal's tree is the dump's");
    assert_eq!(portal["phone"]["activity"], "com.android.settings.Settings");
    // Both agents there: auto takes the Portal.
    let auto = observe(&["--device", &sim.addr], &[]).expect("auto");
    assert_eq!(auto["via"], "portal");
    // A look and a tap cost no shell command (after the first look's token read).
    let taps = [5, 10].map(|n| command_lines_for_taps(&sim.addr, "portal", n));
    assert_eq!(taps[1], taps[0], "Portal: {taps:?} command lines for 5 and 10 taps");
    // With a token (Portals from 0.4): read from its content provider, sent, never shown.
    shell(&sim.addr, "simctl portal token s3cret-Portal-t0ken");
    let out = codeact(&["observe", "--json", "--device", &sim.addr, "--observe", "portal"], &[]);
    let printed = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{printed}");
    assert!(printed.contains(r#""via": "portal""#), "{printed}");
    assert!(!printed.contains("s3cret-Portal-t0ken"), "the token is never printed");
    // A tap through the Portal changes the world like any tap.
    assert_a_tap_moves_the_wifi_switch(&sim.addr, "portal");
}

#[test]
fn a_portal_that_changes_its_token_goes_stale_or_breaks_gives_way_to_a_dump() {
    let sim = SimProcess::start(&[]);
    enable_portal(&sim.addr);
    shell(&sim.addr, "simctl portal token first-t0ken");
    // The token changes under a running session: 401, set aside, the dump stands in,
    // and the trajectory's action says why.
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("token.rhai");
    std::fs::write(&file, "refresh();\nshell(\"simctl portal token second-t0ken\");\nrefresh();\n").expect("script");
    let trajectory = dir.path().join("run");
    let out = codeact(
        &[
            "exec",
            file.to_str().expect("path"),
            "--device",
            &sim.addr,
            "--observe",
            "portal",
            "--trajectory",
            trajectory.to_str().expect("path"),
        ],
        &[],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let events = std::fs::read_to_string(trajectory.join("events.jsonl")).expect("events");
    let why = events
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|e| e["fallback"].as_str().map(str::to_string));
    let why = why.unwrap_or_default();
    assert!(why.contains("the mobilerun Portal is set aside") && why.contains("401"), "{events}");
    assert!(!events.contains("first-t0ken"), "no token in the trajectory");
    // The terminal says it once, under the actions.
    let err = String::from_utf8_lossy(&out.stderr);
    let notes: Vec<&str> = err.lines().filter(|l| l.trim_start().starts_with("note: the mobilerun Portal")).collect();
    assert_eq!(notes.len(), 1, "{err}");
    assert!(notes[0].contains("set aside") && !err.contains("first-t0ken"), "{err}");
    shell(&sim.addr, "simctl portal token none");

    // Stale: the Portal's tree frozen on the home screen while Settings is in front.
    shell(&sim.addr, "simctl fault agent stale");
    shell(&sim.addr, "simctl launch com.android.settings");
    let seen = observe(&["--device", &sim.addr, "--observe", "portal"], &[]).expect("stale");
    assert_eq!(seen["via"], "dump", "{seen}");
    let why = seen["fallback"].as_str().unwrap_or("");
    assert!(why.contains("the mobilerun Portal returned a stale tree"), "{why}");
    // Empty: "No active window", its known fault.
    shell(&sim.addr, "simctl fault agent empty");
    let seen = observe(&["--device", &sim.addr, "--observe", "portal"], &[]).expect("empty");
    assert!(seen["fallback"].as_str().unwrap_or("").contains("an empty tree"), "{seen}");
    for (kind, says) in [("garbage", "not HTTP"), ("hang", "no answer within")] {
        shell(&sim.addr, &format!("simctl fault agent {kind}"));
        let seen = observe(&["--device", &sim.addr, "--timeout", "2"], &[]).expect(kind);
        assert_eq!(seen["via"], "dump", "{kind}: {seen}");
        let why = seen["fallback"].as_str().unwrap_or("");
        assert!(why.contains("the mobilerun Portal is set aside") && why.contains(says), "{kind}: {why}");
        let err = observe(&["--device", &sim.addr, "--observe", "portal", "--timeout", "2"], &[]).expect_err(kind);
        assert!(err.contains("the mobilerun Portal") && err.contains(says), "{kind}: {err}");
    }
    shell(&sim.addr, "simctl fault clear");
    let seen = observe(&["--device", &sim.addr, "--observe", "portal"], &[]).expect("healthy again");
    assert_eq!(seen["via"], "portal");
}

/// `exec`'s printed lines that are JSON `simctl stats` counts, in order.
fn printed_counts(printed: &str) -> Vec<u64> {
    printed
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .filter_map(|v| v["commands"].as_u64())
        .collect()
}

#[test]
fn the_portal_types_with_its_keyboard_and_takes_the_screenshots() {
    let sim = SimProcess::start(&[]);
    enable_portal(&sim.addr);
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("type.rhai");
    // Typing and a screenshot, each between two counts of the phone's command lines.
    let script = "start_app(\"com.example.notes\");\ntap(#{desc: \"New note\"});\n\
         let a = shell(\"simctl stats\");\ninput_text(\"héllo 世界\");\nlet b = shell(\"simctl stats\");\n\
         screenshot(\"after\");\nlet c = shell(\"simctl stats\");\n\
         print(a.output); print(b.output); print(c.output);\n\
         assert_visible(#{text: \"héllo 世界\"});\n\
         clear_text();\nassert_visible(#{id: \"note_title\", text: \"Title\"});\n";
    std::fs::write(&file, script).expect("script");
    let run = |name: &str| {
        let traj = dir.path().join(name);
        let args = ["exec", file.to_str().expect("path"), "--device", &sim.addr, "--observe", "portal", "--trajectory"];
        let out = codeact(&[&args[..], &[traj.to_str().expect("path")]].concat(), &[]);
        let printed = String::from_utf8_lossy(&out.stdout).into_owned();
        (out.status.success(), printed, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    // The Portal's keyboard is not the input method: the text goes the usual way
    // (ADBKeyboard, the virtual phone's default), the screenshot through the Portal.
    let (passed, printed, err) = run("without");
    assert!(passed, "{printed}{err}");
    let counts = printed_counts(&printed);
    let [a, b, c] = counts[..] else { panic!("three counts in {printed}") };
    assert!(b > a, "typed through the shell without the Portal's keyboard: {counts:?}");
    assert_eq!(c, b, "the screenshot is the Portal's, no screencap: {counts:?}");
    // As DroidRun's setup_keyboard leaves a phone: the Portal's keyboard types it,
    // in one request and no shell command.
    shell(&sim.addr, "simctl reset");
    enable_portal(&sim.addr);
    shell(&sim.addr, "ime enable com.droidrun.portal/.DroidrunKeyboardIME");
    shell(&sim.addr, "ime set com.droidrun.portal/.DroidrunKeyboardIME");
    let (passed, printed, err) = run("with");
    assert!(passed, "{printed}{err}");
    let counts = printed_counts(&printed);
    let [a, b, c] = counts[..] else { panic!("three counts in {printed}") };
    assert_eq!((b, c), (a, a), "typing and the screenshot cost no command line: {counts:?}");
    // The screenshot is a whole PNG of the screen.
    let shot = walk_files(&dir.path().join("with")).into_iter().find(|p| p.to_string_lossy().contains("after"));
    let png = std::fs::read(shot.expect("the screenshot file")).expect("read");
    let header = png::Decoder::new(std::io::Cursor::new(&png)).read_info().expect("a PNG");
    assert_eq!((header.info().width, header.info().height), (1080, 2400));
}

fn walk_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() { found.extend(walk_files(&path)) } else { found.push(path) }
    }
    found
}

#[test]
fn uiautomator2s_server_types_any_text_by_pasting_and_puts_the_clipboard_back() {
    let sim = SimProcess::start(&[]);
    install_u2(&sim.addr);
    // Gboard, not ADBKeyboard: `input text` cannot type this, and the broadcast
    // would need ADBKeyboard.
    shell(&sim.addr, "ime set com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME");
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("type.rhai");
    let script = "set_clipboard(\"keep me\");\nstart_app(\"com.example.notes\");\ntap(#{desc: \"New note\"});\n\
         input_text(\"héllo 世界\");\nassert_visible(#{text: \"héllo 世界\"});\nprint(`clipboard: ${get_clipboard()}`);\n";
    std::fs::write(&file, script).expect("script");
    let run = |observe: &str| {
        let out = codeact(&["exec", file.to_str().expect("path"), "--device", &sim.addr, "--observe", observe], &[]);
        let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        (out.status.success(), said)
    };
    let (passed, said) = run("u2");
    assert!(passed, "{said}");
    assert!(said.contains("clipboard: keep me"), "the clipboard is put back: {said}");
    // The usual way cannot type it on this keyboard, and says how to.
    shell(&sim.addr, "simctl reset");
    shell(&sim.addr, "ime set com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME");
    let (passed, said) = run("dump");
    assert!(!passed && said.contains("ADBKeyboard"), "{said}");
}
