//! The state a running snippet shares with the engine's callbacks and the host
//! functions (tools): its output, its actions, its completion, its deadline and its
//! stop signal. The sandbox resets it before each snippet and collects it after.
//!
//! Stopping is a [`CancellationToken`] per snippet, a child of the session's own
//! token: cancelling the session's token (the agent's Ctrl-C) stops the snippet that
//! runs and every one that starts later, while [`CancelHandle::cancel`] (the REPL's
//! Ctrl-C) stops only the snippet that runs. Waits park the worker thread and are
//! woken by a cancel, so nothing polls.

use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use rhai::{Dynamic, EvalAltResult, ImmutableString, Position};
use tokio_util::sync::CancellationToken;

use super::FailureKind;
use super::action::{Action, ActionSink, Capture};

/// The token a limit hit, a cancel or `complete()` stops a script with.
pub(crate) const STOP_TIMEOUT: &str = "codeact:timeout";
pub(crate) const STOP_COMPLETE: &str = "codeact:complete";

/// How a snippet ended when it called `complete()`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Completion {
    pub success: bool,
    pub reason: String,
}

/// A host function's failure, remembered so the final error can be classified. The
/// message is the very string the script saw: only that value (or a re-throw of it)
/// is taken for this failure, never a script's own string that happens to read alike.
#[derive(Debug, Clone)]
pub(crate) struct HostFailure {
    pub(crate) tool: String,
    pub(crate) kind: FailureKind,
    pub(crate) message: ImmutableString,
}

/// The snippet was cancelled while it waited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the snippet was cancelled")]
pub struct Stopped;

pub(crate) struct Output {
    text: String,
    cut: bool,
}

/// State the engine's callbacks and the tools share with the sandbox.
pub struct Shared {
    output: Mutex<Output>,
    actions: Mutex<Vec<Action>>,
    completion: Mutex<Option<Completion>>,
    failure: Mutex<Option<HostFailure>>,
    deadline: Mutex<Instant>,
    started: Mutex<Instant>,
    /// The session's token: cancelled, it stops every snippet from then on.
    session_stop: Mutex<CancellationToken>,
    /// The running snippet's token (a child of the session's).
    snippet_stop: Mutex<CancellationToken>,
    /// The thread snippets run on, woken from its waits by a cancel.
    worker: OnceLock<std::thread::Thread>,
    max_output: usize,
    sink: Mutex<Option<ActionSink>>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").field("max_output", &self.max_output).finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// An error that ends the script at once; scripts cannot catch it.
pub(crate) fn stop_error(token: &str) -> Box<EvalAltResult> {
    EvalAltResult::ErrorTerminated(Dynamic::from(token.to_string()), Position::NONE).into()
}

impl Shared {
    pub(crate) fn new(max_output: usize) -> Self {
        let now = Instant::now();
        Self {
            output: Mutex::new(Output { text: String::new(), cut: false }),
            actions: Mutex::new(Vec::new()),
            completion: Mutex::new(None),
            failure: Mutex::new(None),
            deadline: Mutex::new(now),
            started: Mutex::new(now),
            session_stop: Mutex::new(CancellationToken::new()),
            snippet_stop: Mutex::new(CancellationToken::new()),
            worker: OnceLock::new(),
            max_output,
            sink: Mutex::new(None),
        }
    }

    pub(crate) fn set_worker(&self, thread: std::thread::Thread) {
        let _ = self.worker.set(thread);
    }

    /// Clears what the last snippet left and starts the clock for the next one.
    pub(crate) fn begin(&self, timeout: Duration) -> Instant {
        let started = Instant::now();
        *lock(&self.output) = Output { text: String::new(), cut: false };
        lock(&self.actions).clear();
        *lock(&self.completion) = None;
        *lock(&self.failure) = None;
        *lock(&self.started) = started;
        *lock(&self.deadline) = started + timeout;
        // A child of the session's token: a session stopped before this snippet
        // started stops it at once (no cancel can slip in between).
        *lock(&self.snippet_stop) = lock(&self.session_stop).child_token();
        started
    }

    /// What the snippet printed, its actions and its completion, taken out.
    pub(crate) fn collect(&self) -> (String, Vec<Action>, Option<Completion>) {
        let output = std::mem::take(&mut lock(&self.output).text);
        (output, std::mem::take(&mut *lock(&self.actions)), lock(&self.completion).take())
    }

    pub(crate) fn failure(&self) -> Option<HostFailure> {
        lock(&self.failure).clone()
    }

    /// Appends a line of output, cutting it at the limit.
    pub fn print(&self, text: &str) {
        let mut out = lock(&self.output);
        if out.cut {
            return;
        }
        let room = self.max_output.saturating_sub(out.text.len());
        if text.len() < room {
            out.text.push_str(text);
            out.text.push('\n');
        } else {
            let mut cut = room;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            out.text.push_str(&text[..cut]);
            out.text.push_str(&format!("\n[output cut at {} bytes]\n", self.max_output));
            out.cut = true;
        }
    }

    /// Records a tool call that started at `started`, and hands it to the sink.
    pub fn record(
        &self,
        tool: &str,
        args: Vec<String>,
        outcome: Result<(), (FailureKind, String)>,
        started: Instant,
        capture: Capture,
    ) {
        let base = *lock(&self.started);
        let (result, failure) = match outcome {
            Ok(()) => ("ok".to_string(), None),
            Err((kind, message)) => (message, Some(kind)),
        };
        let action = Action {
            tool: tool.into(),
            args,
            result,
            failure,
            started_ms: started.saturating_duration_since(base).as_secs_f64() * 1000.0,
            duration_ms: started.elapsed().as_secs_f64() * 1000.0,
            capture,
        };
        if let Some(sink) = lock(&self.sink).as_mut() {
            sink(&action);
        }
        lock(&self.actions).push(action);
    }

    /// The error a failed host call hands the script: `message`, remembered as this
    /// call's failure so the snippet's final error can say which tool failed and how.
    pub fn fail(&self, tool: &str, kind: FailureKind, message: String) -> Box<EvalAltResult> {
        let message = ImmutableString::from(message);
        *lock(&self.failure) = Some(HostFailure { tool: tool.to_string(), kind, message: message.clone() });
        EvalAltResult::ErrorRuntime(Dynamic::from(message), Position::NONE).into()
    }

    /// Sends every later action to `sink` as it is recorded (replacing any earlier one).
    pub fn set_sink(&self, sink: Option<ActionSink>) {
        *lock(&self.sink) = sink;
    }

    /// Time left before the snippet's deadline (tools bound their waits by it).
    pub fn time_left(&self) -> Duration {
        lock(&self.deadline).saturating_duration_since(Instant::now())
    }

    /// True once the snippet must stop (deadline passed or cancelled).
    pub fn must_stop(&self) -> bool {
        self.cancelled() || Instant::now() >= *lock(&self.deadline)
    }

    pub(crate) fn cancelled(&self) -> bool {
        lock(&self.snippet_stop).is_cancelled()
    }

    /// Waits `duration`, at most until the deadline (the caller tells the two apart
    /// by the clock). `Err(Stopped)` when the snippet is cancelled meanwhile: a
    /// cancel wakes the wait at once.
    pub fn pause(&self, duration: Duration) -> Result<(), Stopped> {
        let until = Instant::now() + duration.min(self.time_left());
        loop {
            if self.cancelled() {
                return Err(Stopped);
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            // Woken by `cancel`; an early or spurious wake-up goes round again.
            std::thread::park_timeout(left);
        }
    }

    /// Ends the snippet as `complete(success, reason)` asked.
    pub fn complete(&self, success: bool, reason: &str) -> Box<EvalAltResult> {
        *lock(&self.completion) = Some(Completion { success, reason: reason.to_string() });
        stop_error(STOP_COMPLETE)
    }

    /// Stops the snippet that runs now, at its next operation or wait.
    pub(crate) fn cancel_snippet(&self) {
        lock(&self.snippet_stop).cancel();
        if let Some(worker) = self.worker.get() {
            worker.unpark();
        }
    }

    /// Every snippet from now on stops when `token` is cancelled.
    pub(crate) fn stop_on(&self, token: CancellationToken) {
        *lock(&self.session_stop) = token;
    }
}

/// Stops a running snippet from another thread (Ctrl-C).
#[derive(Debug, Clone)]
pub struct CancelHandle(pub(crate) Arc<Shared>);

impl CancelHandle {
    /// Stops the snippet that runs now (not the ones after it).
    pub fn cancel(&self) {
        self.0.cancel_snippet();
    }
}
