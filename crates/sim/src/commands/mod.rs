//! The Android command-line tools of the virtual device (`input`, `am`, `pm`, `wm`,
//! `dumpsys`, `uiautomator`, `screencap`, `getprop`, `settings`, `ime`, `svc`,
//! `monkey`, `cmd`, `logcat`) and the test-only `simctl`; on the HarmonyOS door, HarmonyOS's
//! tools instead (`harmony/`).
//!
//! Each answers in the exact text a real Android 14 (or HarmonyOS) device prints. The shell
//! (`shell/`) parses the command line and calls these tools, through the
//! [`Commands`] impl below, for names it does not implement itself.

mod android;
mod harmony;
mod simctl;

use crate::shell::{fail, ok};

use android::{activity, agents, capture, content, input, install, logcat, process, system};

use crate::device::SimDevice;
use crate::shell::{Commands, Output, ShellEnv};

/// The shell runs the device's command lines and calls these tools for the names it
/// does not implement itself.
impl Commands for SimDevice {
    fn run_command(&self, argv: &[String], stdin: &[u8], env: &ShellEnv) -> Option<Output> {
        run_tool(self, argv, stdin, env)
    }
    fn now_secs(&self) -> i64 {
        self.world().now_secs()
    }
}

/// Runs an Android tool; `None` when `argv[0]` is not one.
fn run_tool(device: &SimDevice, argv: &[String], stdin: &[u8], env: &ShellEnv) -> Option<Output> {
    let name = argv.first()?.as_str();
    let args: Vec<&str> = argv.iter().skip(1).map(String::as_str).collect();
    let _ = stdin;
    if device.config().platform == crate::SimPlatform::Harmony {
        // A HarmonyOS phone has its own tools and none of Android's.
        return match name {
            "simctl" => Some(simctl::simctl(device, &args)),
            _ => harmony::run_tool(device, name, &args, env),
        };
    }
    Some(match name {
        "input" => input::input(device, &args, env),
        "am" => match args.split_first() {
            Some((&"instrument", rest)) => agents::instrument(device, env, rest),
            _ => activity::am(device, &args),
        },
        "pm" => match args.split_first() {
            Some((&"list", ["instrumentation", ..])) => agents::list_instrumentation(device),
            Some((&"install", rest)) => install::install_file(device, env, rest),
            Some((&"uninstall", rest)) => install::uninstall(device, rest.last().copied().unwrap_or("")),
            _ => activity::pm(device, &args),
        },
        "monkey" => activity::monkey(device, &args),
        "cmd" => match args.split_first() {
            Some((&"package", ["install", rest @ ..])) => install::install_file(device, env, rest),
            Some((&"package", ["uninstall", rest @ ..])) => {
                install::uninstall(device, rest.last().copied().unwrap_or(""))
            }
            Some((&"package", rest)) => activity::pm(device, rest),
            Some((&"input_method", rest)) => system::ime(device, rest),
            Some((&"activity", ["instrument", rest @ ..])) => agents::instrument(device, env, rest),
            Some((&"activity", rest)) => activity::am(device, rest),
            Some((&"wifi", rest)) => system::cmd_wifi(device, rest),
            Some((&"notification", rest)) => install::notification(device, rest),
            Some((&"uimode", rest)) => system::uimode(device, rest),
            Some((service, _)) => fail(&format!("cmd: Can't find service: {service}\n"), 20),
            None => fail("cmd: No service specified; use -l to list all running services.\n", 20),
        },
        "wm" => system::wm(device, &args),
        "appops" => install::appops(device, &args),
        "dumpsys" => system::dumpsys(device, &args),
        "logcat" => logcat::logcat(device, &args),
        "getprop" => system::getprop(device, &args),
        "settings" => system::settings(device, &args),
        "ime" => system::ime(device, &args),
        "svc" => system::svc(device, &args),
        "uiautomator" => capture::uiautomator(device, &args, env),
        "screencap" => capture::screencap(device, &args, env),
        "simctl" => simctl::simctl(device, &args),
        "md5sum" => agents::md5sum(env, &args),
        "toybox" => match args.split_first() {
            Some((&"md5sum", rest)) => agents::md5sum(env, rest),
            Some((tool, _)) => fail(&format!("toybox: Unknown command {tool}\n"), 1),
            None => ok("md5sum\n"),
        },
        "app_process" => agents::app_process(device, env, &args),
        "content" => content::content(device, &args),
        "ps" => process::ps(device, &args),
        "pidof" => process::pidof(device, &args),
        "kill" => process::kill(device, &args),
        _ => return None,
    })
}
