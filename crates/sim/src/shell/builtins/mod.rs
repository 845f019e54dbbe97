//! The toybox tools the shell implements itself, with toybox's messages and exit codes over
//! [`MemFs`](super::MemFs): the lookup table and `which`, which reads it; what every tool
//! shares (options, operands, failures) is `shared`. The tools (no `--help`, few flags)
//! live by kind in `text`, `grep`, `printf`, `files`, `system`; not here:
//! `sh`/`timeout`/`exit` (`super::special`), Android tools.

mod bre;
mod escapes;
mod files;
mod grep;
mod printf;
mod shared;
mod system;
mod text;

#[cfg(test)]
mod tests;

pub(crate) use files::copy_tree;
pub(crate) use system::parse_duration;

use super::env::Cx;
use super::output::Output;
use files::{cp, ls, mkdir, mv, rm, stat, touch};
use grep::{egrep, fgrep, grep};
use printf::printf;
use shared::{status, text};
use system::{date, sleep, uname};
use text::{base64, cat, echo, head, tail, wc};

/// A builtin: arguments after the command name, stdin, environment.
pub(crate) type Builtin = fn(&[String], &[u8], &Cx) -> Output;

const TABLE: &[(&str, Builtin)] = &[
    ("echo", echo),
    ("cat", cat),
    ("ls", ls),
    ("rm", rm),
    ("mkdir", mkdir),
    ("touch", touch),
    ("grep", grep),
    ("egrep", egrep),
    ("fgrep", fgrep),
    ("head", head),
    ("tail", tail),
    ("wc", wc),
    ("sleep", sleep),
    ("true", |_, _, _| Output::default()),
    ("false", |_, _, _| status(1)),
    ("pwd", |_, _, cx| text(format!("{}\n", cx.cwd))),
    ("base64", base64),
    ("printf", printf),
    ("id", |_, _, _| text("uid=2000(shell) gid=2000(shell) groups=2000(shell)\n")),
    ("whoami", |_, _, _| text("shell\n")),
    ("uname", uname),
    ("date", date),
    ("which", which),
    ("stat", stat),
    ("cp", cp),
    ("mv", mv),
];

/// Finds a builtin by (path-stripped) name.
pub(crate) fn lookup(name: &str) -> Option<Builtin> {
    TABLE.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// Names `which` reports besides the builtins: executor-level commands and the Android tools.
const OTHER_COMMANDS: &[&str] = &[
    "sh",
    "timeout",
    "input",
    "am",
    "pm",
    "wm",
    "dumpsys",
    "uiautomator",
    "screencap",
    "monkey",
    "getprop",
    "settings",
    "ime",
    "cmd",
    "svc",
    "simctl",
    "appops",
];

fn which(args: &[String], _: &[u8], _: &Cx) -> Output {
    let mut out = Output::default();
    let known = |n: &str| lookup(n).is_some() || OTHER_COMMANDS.contains(&n);
    for a in args.iter().filter(|a| !a.starts_with('-')) {
        let name = a.strip_prefix("/system/bin/").unwrap_or(a);
        if known(name) {
            out.stdout.extend(format!("/system/bin/{name}\n").bytes());
        } else {
            out.code = 1;
        }
    }
    if args.is_empty() {
        out.code = 1;
    }
    out
}
