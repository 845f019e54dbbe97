//! The operating system's backstops for the sandbox worker, applied by the worker to
//! itself: an address-space cap (`max_memory_mb`), no core dumps, a CPU-time cap
//! renewed for each snippet, and (once its threads run) no new processes and few
//! files. The engine's own limits stop a snippet first wherever they can; these
//! stop what slips past them (a built-in that allocates gigabytes at once, a native
//! call that never returns).

use nix::sys::resource::{Resource, UsageWho, getrlimit, getrusage, setrlimit};

/// Why a cap could not be set.
#[derive(Debug, thiserror::Error)]
#[error("cannot set the worker's {what} limit")]
pub struct OsLimitError {
    what: &'static str,
    #[source]
    source: nix::Error,
}

fn set(resource: Resource, soft: u64, what: &'static str) -> Result<(), OsLimitError> {
    let (_, hard) = getrlimit(resource).map_err(|source| OsLimitError { what, source })?;
    setrlimit(resource, soft.min(hard), hard).map_err(|source| OsLimitError { what, source })
}

/// Caps the address space at what the worker maps now (its program, libraries, the
/// engine's thread and stack) plus `max_memory_mb` MiB — the limit is what a
/// snippet may take, the same on every build whatever the worker itself maps —
/// and turns core dumps off (a worker stopped by a limit must not leave gigabytes
/// on disk).
pub fn cap_memory(max_memory_mb: u64) -> Result<(), OsLimitError> {
    set(Resource::RLIMIT_CORE, 0, "core dump")?;
    let allowed = max_memory_mb.saturating_mul(1024 * 1024);
    set(Resource::RLIMIT_AS, mapped_now().saturating_add(allowed), "address space")
}

/// The bytes of address space this process maps now (0 where it cannot be read).
fn mapped_now() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap_or(0);
    kib.saturating_mul(1024)
}

/// After the worker's threads are up: no new processes or threads, no more than a
/// few open files. Best effort (a privileged user is not bound by the first).
pub fn forbid_spawning() {
    let _ = set(Resource::RLIMIT_NPROC, 0, "process");
    let _ = set(Resource::RLIMIT_NOFILE, 16, "open files");
    let _ = set(Resource::RLIMIT_FSIZE, 0, "file size");
}

/// Lets the worker use `budget_secs` more seconds of CPU from now: past them the
/// kernel stops it (SIGXCPU), whatever it is doing.
pub fn allow_cpu(budget_secs: u64) -> Result<(), OsLimitError> {
    let used = getrusage(UsageWho::RUSAGE_SELF).map_err(|source| OsLimitError { what: "CPU", source })?;
    let used = used.user_time().tv_sec() + used.system_time().tv_sec();
    set(Resource::RLIMIT_CPU, (used.max(0) as u64).saturating_add(budget_secs), "CPU")
}

/// The runtime owns a worker's life: Ctrl-C, a CI job's SIGTERM (sent to the whole
/// process group by `timeout`) or a closed terminal's SIGHUP is the runtime's to
/// answer (it cancels the snippet, then stops the worker); a worker they killed
/// first would look like a crash.
pub fn ignore_stop_signals() {
    use nix::sys::signal::{SigHandler, Signal, signal};
    for sig in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
        // SAFETY: SIG_IGN installs no handler code; nothing else in the worker
        // depends on these signals' dispositions.
        let _ = unsafe { signal(sig, SigHandler::SigIgn) };
    }
}
