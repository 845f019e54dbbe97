//! What every part of the shell shares: the environment a script runs in ([`ShellEnv`],
//! with the caller's [`Commands`] and the host clock they default to), what builtins see
//! ([`Cx`]), the shell's name and the nesting and glob limits. Not what a command
//! produced (`output.rs`), nor running anything (`mod.rs`, `run.rs`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::budget::{Budget, TOO_LARGE};
use super::fs::MemFs;
use super::output::Output;

pub(super) const SH: &str = "/system/bin/sh";
pub(super) const MAX_DEPTH: usize = 8;
/// Most glob candidates kept per pattern.
pub(super) const GLOB_LIMIT: usize = 100_000;
/// Longest slice `ShellEnv::sleep` sleeps before looking at `cancel` again.
const SLEEP_SLICE: Duration = Duration::from_millis(50);

/// Commands the shell does not implement itself (the Android tools: input, am, dumpsys, ...).
pub(crate) trait Commands: Sync {
    /// Runs `argv[0]` with its arguments (argv is non-empty); `None` = no such command.
    fn run_command(&self, argv: &[String], stdin: &[u8], env: &ShellEnv) -> Option<Output>;
    /// The device clock (`date`), in seconds since the Unix epoch; the host's by default.
    fn now_secs(&self) -> i64 {
        host_now_secs()
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

    pub(super) fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// The deadline has passed or the host cancelled the script.
    pub(super) fn expired(&self) -> bool {
        self.cancelled() || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// What builtins see: the environment, the current directory and the output budget.
pub(crate) struct Cx<'e, 'a> {
    pub(crate) env: &'e ShellEnv<'a>,
    /// The script's current directory (absolute).
    pub(crate) cwd: &'e str,
    pub(super) budget: &'e Budget,
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

/// What to hand the file system for `path` (made absolute as `abs`): the path as given
/// when it is already absolute, so that over-long names are still reported as such.
pub(crate) fn path_for_fs<'p>(path: &'p str, abs: &'p str) -> &'p str {
    if path.starts_with('/') { path } else { abs }
}

pub(crate) fn host_now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX / 2))
        .unwrap_or(0)
}
