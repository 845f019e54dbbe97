//! The commands an on-device agent's client runs: toybox's `md5sum` (uiautomator2's
//! client checks its server jar with it before it pushes one) and `app_process`,
//! which starts uiautomator2's server the way its client does
//! (`CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p 9008`):
//! the server listens on device port 9008 while the command runs, that is until
//! the host closes the shell stream. Not the server itself (`agents/u2.rs`).

use std::time::Duration;

use md5::{Digest, Md5};

use super::{fail, ok};
use crate::device::SimDevice;
use crate::shell::{Output, ShellEnv};

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
    if port != crate::doors::agents::U2_PORT {
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
