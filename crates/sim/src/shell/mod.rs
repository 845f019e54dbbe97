//! The simulated device's `/system/bin/sh`, mksh-style over an in-memory file system: the
//! entry point, [`Output`], [`ShellEnv`], the builtins' [`Cx`] and the script-wide limits.
//! Not the executor (`run`, `expand`, `glob`, `redirect`, `special`), nor a full mksh (no
//! control flow, functions or job control); Android tools come from the caller's [`Commands`].

mod arith;
mod budget;
pub(crate) mod builtins;
mod expand;
pub(crate) mod fs;
mod glob;
pub(crate) mod parse;
mod patterns;
mod redirect;
mod run;
mod special;
mod state;

#[cfg(test)]
mod tests;

pub(crate) use fs::{FsError, MemFs, Meta};

use budget::{Budget, TOO_LARGE};
use run::run_nested;
use state::State;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const SH: &str = "/system/bin/sh";
const MAX_DEPTH: usize = 8;
/// Bytes a whole `run_script` may produce (stdout, stderr, pipes, `$(...)`, expansions).
const OUTPUT_LIMIT: usize = 64 << 20;
/// Simple commands a whole `run_script` may run (nested shells included).
const COMMAND_LIMIT: usize = 100_000;
/// Most glob candidates kept per pattern.
const GLOB_LIMIT: usize = 100_000;
/// Longest slice `ShellEnv::sleep` sleeps before looking at `cancel` again.
const SLEEP_SLICE: Duration = Duration::from_millis(50);

/// What a command (or a whole script) produced.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Output {
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: Vec<u8>,
    pub(crate) code: i32,
}

impl Output {
    /// An error result: `msg` plus a newline on stderr.
    pub(crate) fn error(msg: &str, code: i32) -> Output {
        Output { stdout: Vec::new(), stderr: format!("{msg}\n").into_bytes(), code }
    }
}

/// Commands the shell does not implement itself (the Android tools: input, am, dumpsys, ...).
pub(crate) trait Commands: Sync {
    /// Runs `argv[0]` with its arguments (argv is non-empty); `None` = no such command.
    fn run_command(&self, argv: &[String], stdin: &[u8], env: &ShellEnv) -> Option<Output>;
    /// The device clock (`date`), in seconds since the Unix epoch; the host's by default.
    fn now_secs(&self) -> i64 {
        builtins::host_now_secs()
    }
}

pub(crate) struct ShellEnv<'a> {
    pub(crate) fs: &'a MemFs,
    pub(crate) commands: &'a dyn Commands,
    /// Commands past this instant are cut short (set by `timeout N ...`).
    pub(crate) deadline: Option<Instant>,
    /// Set (by the host side) when the client closed the stream, like SIGHUP: sleeps stop
    /// within 50 ms and no further command starts, as if the deadline had passed.
    pub(crate) cancel: Option<Arc<AtomicBool>>,
}

impl ShellEnv<'_> {
    /// Sleeps for `d` in slices of at most 50 ms, cut at the deadline or when `cancel` is
    /// set; returns false when it was cut.
    pub(crate) fn sleep(&self, d: Duration) -> bool {
        let end = Instant::now().checked_add(d);
        // The instant to wake at, and whether reaching it means "cut".
        let (target, cut) = match (end, self.deadline) {
            (Some(e), Some(dl)) if dl < e => (Some(dl), true),
            (None, Some(dl)) => (Some(dl), true),
            (e, _) => (e, false),
        };
        loop {
            if self.cancelled() {
                return false;
            }
            let now = Instant::now();
            let slice = match target {
                Some(t) if now >= t => return !cut,
                Some(t) => t.saturating_duration_since(now).min(SLEEP_SLICE),
                None => SLEEP_SLICE,
            };
            std::thread::sleep(slice);
        }
    }

    fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// The deadline has passed or the host cancelled the script.
    fn expired(&self) -> bool {
        self.cancelled() || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// What builtins see: the environment, the current directory and the output budget.
pub(crate) struct Cx<'e, 'a> {
    pub(crate) env: &'e ShellEnv<'a>,
    /// The script's current directory (absolute).
    pub(crate) cwd: &'e str,
    budget: &'e Budget,
}

impl Cx<'_, '_> {
    /// `p` made absolute against the current directory.
    pub(crate) fn abs(&self, p: &str) -> String {
        MemFs::normalize(p, self.cwd)
    }

    /// The path to hand to [`MemFs`] for operand `p`: relative ones resolved against the
    /// current directory, absolute ones as given (so over-long names are reported).
    pub(crate) fn path(&self, p: &str) -> String {
        path_for_fs(p, &self.abs(p)).to_string()
    }

    /// Whether `o` may grow by `extra` more bytes within the output budget.
    pub(crate) fn room(&self, o: &Output, extra: usize) -> bool {
        o.stdout.len().saturating_add(o.stderr.len()).saturating_add(extra) <= self.budget.output.get()
    }

    /// Ends a builtin that ran out of output budget: drops its output and stops the script.
    pub(crate) fn too_large(&self) -> Output {
        self.budget.stop.set(Some(TOO_LARGE));
        Output { code: 1, ..Output::default() }
    }
}

/// Parses and runs a whole command line; a parse error gives code 2 or 1 with
/// `/system/bin/sh: <msg>` on stderr, like mksh.
pub(crate) fn run_script(script: &str, env: &ShellEnv) -> Output {
    run_limited(script, env, OUTPUT_LIMIT, COMMAND_LIMIT)
}

fn run_limited(script: &str, env: &ShellEnv, output: usize, commands: usize) -> Output {
    let budget = Budget::new(output, commands);
    let st = State {
        last: 0,
        depth: 0,
        exited: false,
        subshell: false,
        cwd: "/".into(),
        vars: Rc::default(),
        budget: &budget,
    };
    let mut out = run_nested(script, env, &[], st);
    if let Some(why) = budget.stop.get() {
        out.stderr.extend(format!("{SH}: {why}\n").bytes());
        out.code = 1;
    }
    out
}

/// What to hand the file system for `path` (made absolute as `abs`): the path as given
/// when it is already absolute, so that over-long names are still reported as such.
pub(crate) fn path_for_fs<'p>(path: &'p str, abs: &'p str) -> &'p str {
    if path.starts_with('/') { path } else { abs }
}
