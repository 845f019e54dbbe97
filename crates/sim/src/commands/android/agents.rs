//! The commands an on-device agent's client runs: toybox's `md5sum` (uiautomator2's
//! client checks its server jar with it before it pushes one) and `app_process`,
//! which starts uiautomator2's server the way its client does
//! (`CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p 9008`):
//! the server listens on device port 9008 while the command runs, that is until
//! the host closes the shell stream; and `pm list instrumentation` and `am
//! instrument -w`, which start Appium's UiAutomator2 server the way its driver does:
//! it serves device port 6790 until the host hangs up, its packages are
//! force-stopped or its session is deleted. Not the servers themselves
//! (`doors/agents/u2.rs`, `doors/agents/uia2/`).

use std::time::Duration;

use md5::{Digest, Md5};

use crate::device::SimDevice;
use crate::shell::{Output, ShellEnv};
use crate::shell::{fail, ok};

/// Where uiautomator2's client pushes its server.
const U2_JAR: &str = "/data/local/tmp/u2.jar";
/// The server's main class in uiautomator2 3.x's jar.
const U2_MAIN: &str = "com.wetest.uia2.Main";

/// `md5sum FILE...`: the digest and the name of each file, as toybox prints them.
pub(crate) fn md5sum(env: &ShellEnv, args: &[&str]) -> Output {
    let mut out = String::new();
    let mut errors = String::new();
    for path in args.iter().filter(|a| !a.starts_with('-')) {
        match env.fs.read(path) {
            Ok(bytes) => {
                let digest: String = Md5::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
                out.push_str(&format!("{digest}  {path}\n"));
            }
            Err(_) => errors.push_str(&format!("md5sum: {path}: No such file or directory\n")),
        }
    }
    let code = i32::from(!errors.is_empty());
    Output { stdout: out.into_bytes(), stderr: errors.into_bytes(), code }
}

/// `app_process DIR CLASS ARGS...`: only uiautomator2's server is known; it runs
/// until the host hangs up.
pub(crate) fn app_process(device: &SimDevice, env: &ShellEnv, args: &[&str]) -> Output {
    let Some(class) = args.iter().find(|a| !a.starts_with('/') && !a.starts_with('-')) else {
        return fail("Usage: app_process [java-options] cmd-dir start-class-name [options]\n", 1);
    };
    if *class != U2_MAIN {
        return fail(&format!("Error: Could not find class '{class}'\n"), 1);
    }
    if env.fs.read(U2_JAR).is_err() {
        return fail(&format!("Error: Could not find class '{class}' (no {U2_JAR})\n"), 1);
    }
    let port = args.windows(2).find(|w| w[0] == "-p").and_then(|w| w[1].parse::<u16>().ok()).unwrap_or(9008);
    if port != crate::device::agents::U2_PORT {
        return fail(&format!("[server] ERROR: port {port} is not served by the virtual phone (only 9008)\n"), 1);
    }
    if device.agents().listening(port) {
        return fail(
            "java.lang.IllegalStateException: UiAutomationService android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy already registered!\n",
            1,
        );
    }
    let running = device.agents().u2_started();
    // Listening until the host closes the stream (or a `timeout` runs out).
    while env.sleep(Duration::from_secs(1)) {}
    drop(running);
    ok("[server] INFO: [UiAutomator2Server] Starting Server\n")
}

/// Appium's UiAutomator2 server's instrumentation, as its test package declares it.
const UIA2_RUNNER: &str = "io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner";
/// The package the instrumentation targets (the server itself).
const UIA2_TARGET: &str = "io.appium.uiautomator2.server";

/// `pm list instrumentation`: the instrumentations of the installed packages —
/// Appium's server's, once both its packages are installed.
pub(crate) fn list_instrumentation(device: &SimDevice) -> Output {
    let world = device.world();
    let test_package = UIA2_RUNNER.split('/').next().unwrap_or_default();
    let both = world.installed.contains_key(UIA2_TARGET) && world.installed.contains_key(test_package);
    ok(if both { format!("instrumentation:{UIA2_RUNNER} (target={UIA2_TARGET})\n") } else { String::new() })
}

/// `am instrument [-w] [-r] [-e KEY VALUE]... [--no-window-animation] COMPONENT`:
/// only Appium's UiAutomator2 server is known. With `-w` it runs until the host
/// hangs up or the server is told to stop; without, it starts nothing the phone can
/// keep, and says so.
pub(crate) fn instrument(device: &SimDevice, env: &ShellEnv, args: &[&str]) -> Output {
    let mut component = None;
    let mut i = 0;
    while i < args.len() {
        match args[i] {
            "-e" => i += 2,
            "--user" | "-p" | "--abi" => i += 1,
            a if !a.starts_with('-') => component = Some(a),
            _ => {}
        }
        i += 1;
    }
    let Some(component) = component else {
        return fail("Error: no instrumentation component given (am instrument [-w] PACKAGE/RUNNER)\n", 1);
    };
    if component != UIA2_RUNNER || list_instrumentation(device).stdout.is_empty() {
        let message = format!(
            "INSTRUMENTATION_STATUS: Error=Unable to find instrumentation info for: ComponentInfo{{{component}}}\nINSTRUMENTATION_STATUS_CODE: -1\nandroid.util.AndroidException: INSTRUMENTATION_FAILED: {component}\n"
        );
        return fail(&message, 1);
    }
    if !args.contains(&"-w") {
        return fail("Error: the virtual phone runs Appium's server only while `am instrument -w` waits for it\n", 1);
    }
    if device.agents().uia2_running() {
        return fail(
            "java.lang.IllegalStateException: UiAutomation not connected, UiAutomation already registered!\n",
            1,
        );
    }
    let (running, at) = device.agents().uia2_started();
    // Serving until the host closes the stream, or the server is stopped.
    while env.sleep(Duration::from_millis(200)) && !device.agents().uia2_stopped_since(at) {}
    drop(running);
    ok(
        "io.appium.uiautomator2.server.test.AppiumUiAutomator2Server:\nTime: 0\n\nOK (1 test)\n\nINSTRUMENTATION_CODE: -1\n",
    )
}
