//! `codeact apk info` against an APK parser codeact did not write: androguard reads
//! the same files — the virtual phone's APKs (pulled by the stock adb), real APKs
//! from the field (the on-device agents of uiautomator2, Airtest and Poco;
//! Android's framework-res.apk) and one `aapt` builds here with references,
//! relative names, an alias and a disabled activity — and both must agree on the
//! package, the main activity, the activities and the permissions. Then the same
//! pulled by codeact's own client (`--device ADDR --package P`), and the errors.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{self, AdbServer, programs};

fn codeact(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_codeact")).args(args).output().expect("run codeact")
}

fn ours(apk: &Path) -> Value {
    let out = codeact(&["apk", "info", "--json", apk.to_str().unwrap()]);
    assert!(out.status.success(), "{}: {}", apk.display(), String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("apk info --json is JSON")
}

/// androguard's reading of each APK, by path.
fn androguard(apks: &[PathBuf]) -> Vec<Value> {
    let client = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/clients/androguard_apk.py");
    let out = Command::new(programs::androguard_python())
        .arg(client)
        .args(apks)
        .env("PYTHONWARNINGS", "ignore")
        .output()
        .expect("run androguard");
    assert!(out.status.success(), "androguard: {}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).expect("JSON line")).collect();
    assert_eq!(lines.len(), apks.len());
    lines
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().filter_map(|s| s.as_str().map(String::from)).collect()).unwrap_or_default()
}

/// Asserts both parsers read the same; returns how many activities they agreed on.
fn agree(apk: &Path, ours: &Value, theirs: &Value) -> usize {
    let name = apk.display();
    assert_eq!(ours["package"], theirs["package"], "{name}: package");
    assert_eq!(ours["main_activity"], theirs["main_activity"], "{name}: main activity");
    let our_activities: Vec<String> =
        ours["activities"].as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap().to_string()).collect();
    assert_eq!(our_activities, strings(&theirs["activities"]), "{name}: activities");
    let mut permissions = strings(&ours["permissions"]);
    permissions.sort();
    assert_eq!(permissions, strings(&theirs["permissions"]), "{name}: permissions");
    assert_eq!(ours["version_code"].as_str(), theirs["version_code"].as_str(), "{name}: versionCode");
    our_activities.len()
}

#[test]
fn the_virtual_phones_apks_read_as_androguard_reads_them() {
    let sim = common::SimProcess::start(&[]);
    let adb = AdbServer::start();
    adb.connect(&sim.addr);
    let (listed, _, code) = adb.shell(&sim.addr, "pm list packages -f");
    assert_eq!(code, 0);
    let dir = tempfile::tempdir().unwrap();
    let mut apks = Vec::new();
    let mut packages = Vec::new();
    for line in listed.lines() {
        let (path, package) = line.trim().trim_start_matches("package:").rsplit_once('=').expect("path=package");
        let local = dir.path().join(format!("{package}.apk"));
        let pulled = adb.adb(&["-s", &sim.addr, "pull", path, local.to_str().unwrap()]);
        assert!(pulled.status.success(), "adb pull {path}: {}", String::from_utf8_lossy(&pulled.stderr));
        apks.push(local);
        packages.push(package.to_string());
    }
    assert!(apks.len() >= 16, "every package has an APK: {listed}");
    let theirs = androguard(&apks);
    let mut screens = 0;
    for (apk, theirs) in apks.iter().zip(&theirs) {
        screens += agree(apk, &ours(apk), theirs);
    }
    assert!(screens >= 36, "the apps' screens are their activities ({screens})");

    // Read by codeact's own client over the sync service: the same answer.
    for package in ["com.example.notes", "com.google.android.apps.messaging", "android"] {
        let out = codeact(&["apk", "info", "--json", "--device", &sim.addr, "--package", package]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let pulled: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(pulled, ours(&dir.path().join(format!("{package}.apk"))), "{package}");
    }
    let notes = ours(&dir.path().join("com.example.notes.apk"));
    assert_eq!(notes["label"], "Notes");
    assert_eq!(notes["main_activity"], "com.example.notes.NotesListActivity");
    let messaging = ours(&dir.path().join("com.google.android.apps.messaging.apk"));
    let conversation = &messaging["activities"][2];
    assert_eq!(conversation["exported"], true, "a link opens it: {conversation}");
    assert_eq!(conversation["intent_filters"][0]["data"][0], "sms:");
    assert_eq!(messaging["activities"][1]["exported"], false);

    // What a phone says about the app in front: the resumed activity is one the APK declares.
    adb.shell(&sim.addr, "am start -n com.example.notes/.NotesListActivity");
    let (dumpsys, _, _) = adb.shell(&sim.addr, "dumpsys activity activities");
    let resumed = dumpsys.lines().find(|l| l.contains("ResumedActivity:")).expect("a resumed activity");
    assert!(resumed.contains("com.example.notes/.NotesListActivity"), "{resumed}");
}

/// An APK `aapt` builds from a manifest with references, relative names, an
/// alias, a disabled activity and a permission for SDK 23 and up.
fn aapt_built(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir.join("res/values")).unwrap();
    std::fs::write(
        dir.join("AndroidManifest.xml"),
        r#"<?xml version="1.0" encoding="utf-8"?>
<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="org.example.shop"
    android:versionCode="7" android:versionName="@string/version">
  <uses-sdk android:minSdkVersion="21" android:targetSdkVersion="29"/>
  <uses-permission android:name="android.permission.INTERNET"/>
  <uses-permission-sdk-23 android:name="android.permission.CAMERA"/>
  <uses-permission android:name="android.permission.INTERNET"/>
  <application android:label="@string/app_name">
    <activity android:name=".Home">
      <intent-filter>
        <action android:name="android.intent.action.MAIN"/>
        <category android:name="android.intent.category.LAUNCHER"/>
      </intent-filter>
    </activity>
    <activity android:name="Cart" android:exported="false"/>
    <activity android:name="org.example.shop.checkout.Pay" android:enabled="false">
      <intent-filter>
        <action android:name="android.intent.action.VIEW"/>
        <category android:name="android.intent.category.BROWSABLE"/>
        <data android:scheme="https" android:host="shop.example.org" android:pathPrefix="/pay"/>
      </intent-filter>
    </activity>
    <activity-alias android:name=".Launcher2" android:targetActivity=".Home"/>
  </application>
</manifest>"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("res/values/strings.xml"),
        r#"<resources><string name="app_name">Shop ✓</string><string name="version">3.1-beta</string></resources>"#,
    )
    .unwrap();
    let apk = dir.join("shop.apk");
    let built = Command::new(programs::aapt())
        .args(["package", "-f", "-M"])
        .arg(dir.join("AndroidManifest.xml"))
        .arg("-S")
        .arg(dir.join("res"))
        .arg("-I")
        .arg(programs::framework_res())
        .arg("-F")
        .arg(&apk)
        .output()
        .expect("run aapt");
    assert!(built.status.success(), "aapt: {}", String::from_utf8_lossy(&built.stderr));
    apk
}

#[test]
fn real_apks_read_as_androguard_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let shop = aapt_built(dir.path());
    let mut apks = programs::real_apks();
    apks.push(programs::framework_res());
    apks.push(shop.clone());
    let theirs = androguard(&apks);
    let mut activities = 0;
    for (apk, theirs) in apks.iter().zip(&theirs) {
        activities += agree(apk, &ours(apk), theirs);
    }
    assert!(activities >= 40, "{activities} activities compared");

    // What androguard does not check: references resolved, names qualified, flags.
    let shop = ours(&shop);
    assert_eq!(shop["label"], "Shop ✓");
    assert_eq!(shop["version_name"], "3.1-beta");
    let names: Vec<&str> = shop["activities"].as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["org.example.shop.Home", "org.example.shop.Cart", "org.example.shop.checkout.Pay"]);
    let pay = &shop["activities"][2];
    assert_eq!((pay["exported"].as_bool(), pay["enabled"].as_bool()), (Some(true), Some(false)), "{pay}");
    assert_eq!(pay["intent_filters"][0]["data"][0], "https://shop.example.org/pay");
    assert_eq!(shop["aliases"][0]["target"], "org.example.shop.Home");
    assert_eq!(strings(&shop["permissions"]), ["android.permission.INTERNET", "android.permission.CAMERA"]);
}

#[test]
fn what_is_not_a_readable_apk_fails_with_one_line_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "not an apk").unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec![text.display().to_string()], "is not an APK (a zip archive)"),
        (vec![dir.path().join("gone.apk").display().to_string()], "cannot read"),
        (vec!["--device".into(), "sim".into(), "--package".into(), "com.nope".into()], "is not installed"),
        (vec!["--device".into(), "sim".into(), "--package".into(), "a;reboot".into()], "is not a package name"),
        (
            vec!["--device".into(), "sim:ios".into(), "--package".into(), "com.example.notes".into()],
            "not possible on iOS",
        ),
    ];
    for (args, says) in cases {
        let mut all = vec!["apk".to_string(), "info".to_string()];
        all.extend(args);
        let out = Command::new(env!("CARGO_BIN_EXE_codeact")).args(&all).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{all:?}: {err}");
        assert!(err.contains(says), "{all:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{all:?}: one line: {err}");
    }
}
