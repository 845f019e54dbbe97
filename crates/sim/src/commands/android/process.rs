//! The phone's processes as toybox's `ps`, `pidof`, `kill` and `dumpsys activity
//! processes` show and end them:
//! the system's few, each app with a task (at its stable pid), Appium's settings
//! helper while its service runs and Appium's UiAutomator2 server while its
//! instrumentation runs. `kill` ends only what the phone can stop (an app's task,
//! the helper, the server); the system's processes are not the shell user's to
//! kill. Not starting them (`activity.rs`, `agents.rs`, `install.rs`).

use crate::device::SimDevice;
use crate::shell::Output;
use crate::shell::{fail, ok};
use crate::world::misbehave::pid_of;

/// Fixed pids for what is not an app (below Android's app range).
const HELPER_PID: u32 = 8_101;
const UIA2_PID: u32 = 8_202;
const UIA2_PROCESS: &str = "io.appium.uiautomator2.server";

/// One line of the process table.
struct Process {
    user: &'static str,
    pid: u32,
    ppid: u32,
    name: String,
}

/// Every process now, in pid order.
fn table(device: &SimDevice) -> Vec<Process> {
    let mut all = vec![
        Process { user: "root", pid: 1, ppid: 0, name: "init".into() },
        Process { user: "root", pid: 612, ppid: 1, name: "zygote64".into() },
        Process { user: "system", pid: 1_103, ppid: 612, name: "system_server".into() },
        Process { user: "shell", pid: 4_210, ppid: 1, name: "adbd".into() },
    ];
    let world = device.world();
    let mut apps: Vec<usize> = world.tasks.iter().map(|t| t.app).collect();
    apps.sort_unstable();
    apps.dedup();
    for app in apps {
        if let Some(spec) = world.catalog.apps.get(app) {
            all.push(Process { user: "u0_a101", pid: pid_of(app), ppid: 612, name: spec.package.clone() });
        }
    }
    if world.helper_running {
        all.push(Process { user: "u0_a190", pid: HELPER_PID, ppid: 612, name: "io.appium.settings".into() });
    }
    drop(world);
    if device.agents().uia2_running() {
        all.push(Process { user: "u0_a191", pid: UIA2_PID, ppid: 612, name: UIA2_PROCESS.into() });
    }
    all.sort_by_key(|p| p.pid);
    all
}

/// `dumpsys activity processes`: the app processes as the activity manager lists
/// them (`ProcessRecord{HASH PID:NAME/UID}`, which Appium reads to stop an app).
pub(crate) fn dumpsys_processes(device: &SimDevice) -> Output {
    let mut text =
        String::from("ACTIVITY MANAGER RUNNING PROCESSES (dumpsys activity processes)\n  All known processes:\n");
    let apps: Vec<Process> = table(device).into_iter().filter(|p| p.user.starts_with("u0_")).collect();
    // A stable hash-like token and app uid per process, as the records show them.
    let record = |p: &Process| {
        let token = u64::from(p.pid).wrapping_mul(2_654_435_761) % 0xfff_ffff;
        format!("ProcessRecord{{{token:07x} {}:{}/u0a{}}}", p.pid, p.name, p.pid % 1000)
    };
    for p in &apps {
        let uid = 10_000 + p.pid % 1000;
        text.push_str(&format!("  *APP* UID {uid} {}\n    user #0 uid={uid}\n", record(p)));
    }
    text.push_str("\n  PID mappings:\n");
    for p in &apps {
        text.push_str(&format!("    PID #{}: {}\n", p.pid, record(p)));
    }
    ok(text)
}

/// `ps [-A]`, `ps --help`: toybox's columns.
pub(crate) fn ps(device: &SimDevice, args: &[&str]) -> Output {
    if args.contains(&"--help") || args.contains(&"-h") {
        return ok(
            "usage: ps [-AadefLlnwZ] [-gG GROUP,] [-k FIELD,] [-o FIELD,] [-p PID,] [-t TTY,] [-uU USER,]\n\nList processes.\n\nWhich processes to show (-gGuUpPt selections may be comma separated lists):\n\n-A  All\t\t\t\t\t-a  Has terminal not session leader\n-d  All but session leaders\t\t-e  Synonym for -A\n",
        );
    }
    let mut text =
        String::from("USER            PID   PPID     VSZ    RSS WCHAN            ADDR S NAME                       \n");
    for p in table(device) {
        text.push_str(&format!(
            "{:<12}{:>7}{:>7} {:>7} {:>6} {:<16} {:>4} S {}\n",
            p.user, p.pid, p.ppid, 14_825_460, 98_212, "do_epoll_wait", 0, p.name
        ));
    }
    ok(text)
}

/// `pidof NAME...`: the pids of the processes so named, on one line.
pub(crate) fn pidof(device: &SimDevice, args: &[&str]) -> Output {
    let names: Vec<&str> = args.iter().copied().filter(|a| !a.starts_with('-')).collect();
    let pids: Vec<String> =
        table(device).into_iter().filter(|p| names.contains(&p.name.as_str())).map(|p| p.pid.to_string()).collect();
    if pids.is_empty() { fail("", 1) } else { ok(format!("{}\n", pids.join(" "))) }
}

/// `kill [-SIGNAL] PID...`.
pub(crate) fn kill(device: &SimDevice, args: &[&str]) -> Output {
    let pids: Vec<&str> = args.iter().copied().filter(|a| !a.starts_with('-')).collect();
    if pids.is_empty() {
        return fail("usage: kill [-s SIGNAL] PID...\n", 1);
    }
    let mut errors = String::new();
    for pid in pids {
        let found = pid.parse::<u32>().ok().and_then(|n| table(device).into_iter().find(|p| p.pid == n));
        match found {
            None => errors.push_str(&format!("/system/bin/sh: kill: {pid}: No such process\n")),
            Some(p) if p.pid == UIA2_PID => device.agents().stop_uia2(),
            Some(p) if p.pid == HELPER_PID => device.world().helper_running = false,
            Some(p) if p.user.starts_with("u0_") => {
                let mut world = device.world();
                if let Some(app) = world.catalog.app_index(&p.name) {
                    world.force_stop(app);
                }
            }
            Some(_) => errors.push_str(&format!("/system/bin/sh: kill: {pid}: Operation not permitted\n")),
        }
    }
    if errors.is_empty() { ok("") } else { fail(&errors, 1) }
}
