//! Ctrl-C and SIGTERM, one policy for every mode, and the async runtime every mode
//! runs on.
//!
//! The first SIGINT (Ctrl-C) or SIGTERM (a CI job's timeout, `kill`) cancels: a run
//! finishes its directory (events, summary, report), a suite the instances under way,
//! a heal its run directory, `exec` the script in hand (its JUnit case marked
//! interrupted) and then its records, and each says so on stderr; the mode then exits
//! 130 (SIGINT) or 143 (SIGTERM). A second signal exits at once — unless it came
//! within [`SAME_SIGNAL`] of the first: coreutils `timeout` (a CI job's limit) sends
//! its signal to the process and then to its group, so one signal arrives twice in
//! the same instant, and counts once. Listening starts before a mode does any work,
//! so a signal during start-up is heard too. The REPL's Ctrl-C
//! stops the snippet that runs, never the REPL (at its prompt the line editor reads
//! the key), and `codeact sim` serves until Ctrl-C. Not the library's cancelling (a
//! `CancellationToken` the library takes and honours).

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use codeact::sandbox::CancelHandle;
use tokio::runtime::Runtime;
use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio_util::sync::CancellationToken;

/// The runtime every mode's async work runs on (the agent loop needs more than
/// one thread: device and sandbox work block in place).
pub(super) fn runtime() -> anyhow::Result<Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// A mode's interruption: the token the first signal cancels, and which signal it
/// was.
#[derive(Clone)]
pub(super) struct Interrupt {
    pub(super) token: CancellationToken,
    /// 128 + the signal's number once one came (130 SIGINT, 143 SIGTERM), else 0.
    exit_code: Arc<AtomicU8>,
}

impl Interrupt {
    /// The exit code of a mode the first signal ended, when one came.
    pub(super) fn exit_code(&self) -> Option<u8> {
        Some(self.exit_code.load(Ordering::SeqCst)).filter(|c| *c != 0)
    }
}

/// Within this of the first signal, another is the same one delivered twice (to the
/// process, then to its group); a person's second Ctrl-C comes later.
pub(super) const SAME_SIGNAL: Duration = Duration::from_millis(250);

/// The next SIGINT or SIGTERM, as the exit code it calls for; `None` when neither
/// can be listened for.
async fn next_signal(int: &mut Option<Signal>, term: &mut Option<Signal>) -> Option<u8> {
    if int.is_none() && term.is_none() {
        return None;
    }
    let interrupted = async {
        match int {
            Some(s) => s.recv().await.map(|()| 130),
            None => std::future::pending().await,
        }
    };
    let terminated = async {
        match term {
            Some(s) => s.recv().await.map(|()| 143),
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        code = interrupted => code,
        code = terminated => code,
    }
}

/// An [`Interrupt`] the first SIGINT or SIGTERM cancels, after telling the person
/// that `finishing` goes on (and that a second signal quits at once). The signals
/// are listened for from this call on, before the mode starts any work.
pub(super) fn cancel_on_signal(runtime: &Runtime, finishing: &'static str) -> Interrupt {
    let interrupt = Interrupt { token: CancellationToken::new(), exit_code: Arc::default() };
    let on_signal = interrupt.clone();
    let (mut int, mut term) = {
        let _in_runtime = runtime.enter();
        (signal(SignalKind::interrupt()).ok(), signal(SignalKind::terminate()).ok())
    };
    runtime.spawn(async move {
        let Some(code) = next_signal(&mut int, &mut term).await else { return };
        let first = Instant::now();
        let name = if code == 143 { "terminated" } else { "interrupted" };
        codeact::errln!("\n{name}: finishing {finishing} (Ctrl-C again to quit at once)");
        on_signal.exit_code.store(code, Ordering::SeqCst);
        on_signal.token.cancel();
        while let Some(again) = next_signal(&mut int, &mut term).await {
            if first.elapsed() >= SAME_SIGNAL {
                std::process::exit(i32::from(again));
            }
        }
    });
    interrupt
}

/// The REPL's Ctrl-C: each one stops the snippet that runs (if any), not the REPL.
/// Listened for from this call on (so after the line editor, which takes SIGINT for
/// itself when it starts: the listener set up last is called first, then hands the
/// signal on), on a thread of its own, as the REPL has no runtime.
pub(super) fn stop_snippets_on_ctrl_c(handle: CancelHandle) {
    let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
    let interrupts = {
        let _in_runtime = rt.enter();
        signal(SignalKind::interrupt())
    };
    let Ok(mut interrupts) = interrupts else { return };
    let _ = std::thread::Builder::new().name("codeact-ctrl-c".into()).spawn(move || {
        rt.block_on(async {
            while interrupts.recv().await.is_some() {
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
