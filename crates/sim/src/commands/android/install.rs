//! Installing an APK on the virtual phone (`adb install`, streamed to `cmd package
//! install -S SIZE`, or `pm install FILE`): the phone plays only the apps of its data
//! files and the test frameworks' own packages it knows how to play — Appium's
//! settings app and its UiAutomator2 server and test packages. An APK is known by
//! its manifest (package, versionCode, versionName, read by `apk/manifest_read.rs`);
//! one it cannot play is refused saying so, as `INSTALL_FAILED_INVALID_APK`. Also
//! `pm uninstall` of such a package, `dumpsys package` of any package, and Appium's
//! settings helper as Appium sees it: started by its launcher activity (it runs a
//! foreground service and finishes, leaving the screen as it was), stopped by `am
//! force-stop`, its services in `dumpsys activity services`. Putting the bytes on the
//! phone is `device/install.rs`'s, which the adb door's streamed install calls too.

use crate::apk::manifest_read::Manifest;
use crate::device::SimDevice;
use crate::device::install::{MAX_APK, install};
use crate::shell::Output;
use crate::shell::{fail, ok};

/// `pm install [-r] [-g] ... FILE`: the APK at FILE on the phone (as adb pushes
/// it before a legacy install); a streamed install (`-S SIZE`) arrives through the
/// transport instead (`doors/adb`), and with nothing streamed is told so.
pub(crate) fn install_file(device: &SimDevice, env: &crate::shell::ShellEnv, args: &[&str]) -> Output {
    if args.contains(&"-S") {
        return fail("Failure [INSTALL_FAILED_INVALID_APK: nothing was streamed to install]\n", 1);
    }
    let Some(path) = args.iter().rev().find(|a| !a.starts_with('-')) else {
        return fail("Error: APK content must be streamed or a path given\n", 1);
    };
    match env.fs.read(path) {
        Ok(bytes) if bytes.len() <= MAX_APK => install(device, &bytes),
        Ok(_) => fail("Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]\n", 1),
        Err(_) => fail(&format!("Error: Unable to open file: {path}\n"), 1),
    }
}

/// Appium's settings helper.
const HELPER: &str = "io.appium.settings";

/// Whether `am start ARGS` starts the installed settings helper.
pub(crate) fn starts_helper(device: &SimDevice, args: &[&str]) -> bool {
    let names = args.windows(2).any(|w| w[0] == "-n" && w[1].starts_with(&format!("{HELPER}/")));
    names && device.world().installed.contains_key(HELPER)
}

/// Starts the settings helper: its foreground service runs; its activity finishes
/// at once, so the app in front stays in front.
pub(crate) fn start_helper(device: &SimDevice, args: &[&str]) -> Output {
    device.world().helper_running = true;
    let component = args.windows(2).find(|w| w[0] == "-n").map_or(HELPER, |w| w[1]);
    ok(format!("Starting: Intent {{ cmp={component} }}\n"))
}

/// `am force-stop PACKAGE` of the settings helper stops its service.
pub(crate) fn stop_helper(device: &SimDevice, package: &str) {
    if package == HELPER {
        device.world().helper_running = false;
    }
}

/// `dumpsys activity services NAME`: the settings helper's foreground service
/// while it runs, nothing else.
pub(crate) fn dumpsys_services(device: &SimDevice, name: &str) -> Output {
    let mut text = String::from("ACTIVITY MANAGER SERVICES (dumpsys activity services)\n");
    let running = device.world().helper_running;
    let service = format!("{HELPER}/.ForegroundService");
    if running && (name == HELPER || name == service) {
        let hash = super::token(&service);
        text.push_str(&format!(
            "  User 0 active services:\n  * ServiceRecord{{{hash} u0 {service}}}\n    intent={{cmp={service}}}\n    packageName={HELPER}\n    isForeground=true foregroundId=1 types=0x00000000\n    createTime=-1s startingBgTimeout=--\n"
        ));
    } else {
        text.push_str("  (nothing)\n");
    }
    ok(text)
}

/// Whether `package` is on the phone (one of its apps, or installed).
fn on_phone(device: &SimDevice, package: &str) -> bool {
    let world = device.world();
    world.installed.contains_key(package) || world.catalog.app_index(package).is_some()
}

/// `appops set PACKAGE OP MODE`: accepted for a package on the phone (the phone
/// models no app-op; the helper asks for its own).
pub(crate) fn appops(device: &SimDevice, args: &[&str]) -> Output {
    match args {
        ["set", package, _op, _mode] if on_phone(device, package) => ok(""),
        ["set", package, ..] => fail(&format!("Error: Unknown package: {package}\n"), 255),
        _ => fail("usage: appops set PACKAGE OP MODE\n", 255),
    }
}

/// `cmd notification allow_listener COMPONENT`: accepted for a package on the phone.
pub(crate) fn notification(device: &SimDevice, args: &[&str]) -> Output {
    match args {
        ["allow_listener" | "disallow_listener", component] => {
            let package = component.split('/').next().unwrap_or("");
            if on_phone(device, package) { ok("") } else { fail(&format!("Unknown package: {package}\n"), 255) }
        }
        _ => fail("usage: cmd notification allow_listener|disallow_listener COMPONENT\n", 255),
    }
}

/// `pm uninstall PACKAGE` of an installed package (the phone's own apps stay).
pub(crate) fn uninstall(device: &SimDevice, package: &str) -> Output {
    stop_helper(device, package);
    match device.world().installed.remove(package) {
        Some(_) => ok("Success\n"),
        None => fail("Failure [DELETE_FAILED_INTERNAL_ERROR]\n", 1),
    }
}

/// `dumpsys package PACKAGE`: its version as Android prints it; nothing for a
/// package that is not there.
pub(crate) fn dumpsys_package(device: &SimDevice, package: &str) -> Output {
    let world = device.world();
    let found: Option<Manifest> = world.installed.get(package).cloned().or_else(|| {
        let app = world.catalog.apps.iter().find(|a| a.package == package)?;
        Some(Manifest { package: app.package.clone(), version_code: 34, version_name: "14".into() })
    });
    let Some(m) = found else { return ok("") };
    let hash = super::token(&m.package);
    ok(format!(
        "Packages:\n  Package [{p}] ({hash}):\n    userId=10{n:03}\n    pkg=Package{{{hash} {p}}}\n    versionCode={c} minSdk=21 targetSdk=34\n    versionName={v}\n    flags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ]\n    timeStamp=2023-10-15 15:34:00\n    firstInstallTime=2023-10-15 15:34:00\n    lastUpdateTime=2023-10-15 15:34:00\n    installerPackageName=null\n    User 0: ceDataInode=0 installed=true hidden=false suspended=false stopped=false notLaunched=false enabled=0 instant=false virtual=false\n",
        p = m.package,
        n = m.package.len() % 1000,
        c = m.version_code,
        v = m.version_name
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::install::streamed_size;

    fn said(out: &Output) -> String {
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    }

    #[test]
    fn appiums_packages_install_and_go_anything_else_is_refused() {
        let device = crate::build_device(crate::SimConfig::default()).expect("a phone");
        let settings = crate::apk::build_bare("io.appium.settings").expect("an APK");
        assert_eq!(said(&install(&device, &settings)), "Success\n");
        let dumped = said(&dumpsys_package(&device, "io.appium.settings"));
        assert!(dumped.contains("Package [io.appium.settings]") && dumped.contains("versionName=14"), "{dumped}");
        assert!(device.world().installed.contains_key("io.appium.settings"));
        device.world().reset();
        assert!(device.world().installed.contains_key("io.appium.settings"), "a data reset keeps what was installed");
        // The helper as Appium starts it: a foreground service, the screen as it was.
        let front = device.world().foreground_package();
        assert!(said(&dumpsys_services(&device, "io.appium.settings")).contains("(nothing)"));
        assert!(starts_helper(&device, &["-n", "io.appium.settings/.Settings", "-a", "android.intent.action.MAIN"]));
        assert!(said(&start_helper(&device, &["-n", "io.appium.settings/.Settings"])).starts_with("Starting: Intent"));
        assert!(said(&dumpsys_services(&device, "io.appium.settings")).contains("isForeground=true"));
        assert_eq!(device.world().foreground_package(), front);
        assert_eq!(said(&appops(&device, &["set", "io.appium.settings", "PROJECT_MEDIA", "allow"])), "");
        assert!(said(&appops(&device, &["set", "no.such.app", "X", "allow"])).contains("Unknown package"));
        assert_eq!(said(&notification(&device, &["allow_listener", "io.appium.settings/.NLService"])), "");
        assert_eq!(said(&uninstall(&device, "io.appium.settings")), "Success\n");
        assert!(!device.world().helper_running, "gone with its package");
        assert_eq!(said(&dumpsys_package(&device, "io.appium.settings")), "");
        let other = crate::apk::build_bare("com.evil.app").expect("an APK");
        let refused = said(&install(&device, &other));
        assert!(refused.contains("INSTALL_FAILED_INVALID_APK: com.evil.app is not a package"), "{refused}");
        assert!(said(&install(&device, b"PK\x03\x04 cut")).contains("INSTALL_PARSE_FAILED_NOT_APK"));
        assert_eq!(streamed_size(&["cmd", "package", "install", "-g", "-S", "3076274"]), Some(3_076_274));
        assert_eq!(streamed_size(&["pm", "install", "/data/local/tmp/a.apk"]), None);
        assert_eq!(streamed_size(&["cmd", "package", "list", "-S", "1"]), None);
    }
}
