//! Ctrl-C, one policy for every mode, and the async runtime every mode runs on.
//!
//! The first Ctrl-C cancels: a run finishes its directory (events, summary, report),
//! a suite the instances under way, a heal its run directory, and each says so on
//! stderr; the second Ctrl-C exits 130 at once. The REPL's Ctrl-C stops the snippet
//! that runs, never the REPL (at its prompt the line editor reads the key), and
//! `codeact sim` serves until Ctrl-C. Not the library's cancelling (a
//! `CancellationToken` the library takes and honours).

use anyhow::Context;
use codeact::sandbox::CancelHandle;
use tokio::runtime::Runtime;
use tokio_util::sync::CancellationToken;

/// The exit code of a process the second Ctrl-C ends (128 + SIGINT).
const EXIT_INTERRUPTED: i32 = 130;

/// The runtime every mode's async work runs on (the agent loop needs more than
/// one thread: device and sandbox work block in place).
pub(super) fn runtime() -> anyhow::Result<Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// A token the first Ctrl-C cancels, after telling the person that `finishing`
/// goes on (and that a second Ctrl-C quits at once, exit 130).
pub(super) fn cancel_on_ctrl_c(runtime: &Runtime, finishing: &'static str) -> CancellationToken {
    let interrupt = CancellationToken::new();
    let on_signal = interrupt.clone();
    runtime.spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            codeact::errln!("\ninterrupted: finishing {finishing} (Ctrl-C again to quit at once)");
            on_signal.cancel();
            if tokio::signal::ctrl_c().await.is_ok() {
                std::process::exit(EXIT_INTERRUPTED);
            }
        }
    });
    interrupt
}

/// The REPL's Ctrl-C: each one stops the snippet that runs (if any), not the REPL.
/// A thread of its own, as the REPL has no runtime.
pub(super) fn stop_snippets_on_ctrl_c(handle: CancelHandle) {
    let _ = std::thread::Builder::new().name("codeact-ctrl-c".into()).spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
        rt.block_on(async {
            while tokio::signal::ctrl_c().await.is_ok() {
                handle.cancel();
            }
        });
    });
}

/// Waits for Ctrl-C (a server's way to stop); `false` when the signal cannot be
/// listened for.
#[cfg(feature = "sim")]
pub(super) fn wait_for_ctrl_c() -> anyhow::Result<bool> {
    let rt =
        tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the async runtime")?;
    Ok(rt.block_on(tokio::signal::ctrl_c()).is_ok())
}
