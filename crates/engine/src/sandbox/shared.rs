//! The state a running snippet shares with the engine's callbacks and the host
//! functions (tools): its output, its actions, its completion, its deadline and its
//! stop signal. The sandbox resets it before each snippet and collects it after.
//!
//! Stopping is a [`CancellationToken`] per snippet, a child of the session's own
//! token: cancelling the session's token (the agent's Ctrl-C) stops the snippet that
//! runs and every one that starts later, while [`CancelHandle::cancel`] (the REPL's
//! Ctrl-C) stops only the snippet that runs. Waits park the worker thread and are
//! woken by a cancel, so nothing polls.

use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use rhai::{Dynamic, EvalAltResult, ImmutableString, Position};
use tokio_util::sync::CancellationToken;

use super::action::{ARG_BYTES, ARGS_NOT_KEPT, Action, ActionSink, Capture};
use super::error::FailureKind;
use super::limits::Limits;

/// The token a limit hit, a cancel or `complete()` stops a script with.
pub const STOP_TIMEOUT: &str = "codeact:timeout";
pub const STOP_COMPLETE: &str = "codeact:complete";
pub(crate) const STOP_OPERATIONS: &str = "codeact:operations";

/// The actions one snippet keeps (and hands to the sink, a trajectory): a loop of
/// cheap calls must not fill the memory or the disk. Calls past it are counted.
pub const KEPT_ACTIONS: usize = 1000;

/// The most argument text the actions of one snippet keep in all; past it, an
/// action's arguments are only counted.
pub const SNIPPET_ARG_BYTES: usize = 256 * 1024;

/// How often (in operations) the deadline and the stop signal are checked.
pub(crate) const CLOCK_EVERY: u64 = 256;

/// The most of a flipped toggle's selector, name and label an action keeps.
const TOGGLE_BYTES: usize = 1024;

/// The most of an action's result (an error) and of its effect that is kept.
const RESULT_BYTES: usize = 4096;

/// Why a snippet must stop at its next operation (kept in [`Shared::halt`]).
const RUNNING: u8 = 0;
const HALT_COMPLETE: u8 = 1;
const HALT_TIMEOUT: u8 = 2;
const HALT_OPERATIONS: u8 = 3;

/// How a snippet ended when it called `complete()`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Completion {
    pub success: bool,
    pub reason: String,
}

/// A host function's failure, remembered so the final error can be classified. The
/// message is the very string the script saw: only that value (or a re-throw of it)
/// is taken for this failure, never a script's own string that happens to read alike.
#[derive(Debug, Clone)]
pub struct HostFailure {
    pub tool: String,
    pub kind: FailureKind,
    pub message: ImmutableString,
}

/// Where a tool's notices go (see [`Shared::notice`]).
pub type NoticeSink = Box<dyn Fn(&str) + Send + Sync>;

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
    /// The thread waiting in [`pause`](Self::pause) now, if one is (a tool's wait runs
    /// on the runtime's thread, not the engine's): a cancel wakes it too.
    waiter: Mutex<Option<std::thread::Thread>>,
    max_output: usize,
    sink: Mutex<Option<ActionSink>>,
    /// Where a tool's word to whoever watches goes (a long wait under way), when
    /// someone watches: not the script's output.
    notices: Mutex<Option<NoticeSink>>,
    /// Operations the snippet has run, callbacks of built-ins included: Rhai counts
    /// a callback's operations on a copy of its counter and forgets them, so the
    /// sandbox counts every operation itself.
    ops: AtomicU64,
    max_operations: u64,
    /// Calls past [`KEPT_ACTIONS`] in this snippet.
    more_actions: AtomicU64,
    /// Bytes of arguments this snippet's actions have kept.
    kept_arg_bytes: AtomicUsize,
    /// Set once the snippet must stop (a limit, a cancel, `complete()`), kept until
    /// the next snippet begins: every later operation stops it again, so a built-in
    /// that swallows the first stop (rhai's `sort` and `dedup` with a comparer) cannot
    /// let the script run on.
    halt: AtomicU8,
    /// Milliseconds the deadline was moved by (a person answering) and not yet
    /// passed on to the engine's process.
    extended_ms: AtomicU64,
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
pub fn stop_error(token: &str) -> Box<EvalAltResult> {
    EvalAltResult::ErrorTerminated(Dynamic::from(token.to_string()), Position::NONE).into()
}

/// The longest a wait sleeps before it looks whether it was stopped: every
/// blocking tool observes a cancel (Ctrl-C, a CI job's SIGTERM) well within 200 ms.
const PAUSE_SLICE: Duration = Duration::from_millis(50);

impl Shared {
    pub fn new(limits: &Limits) -> Self {
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
            waiter: Mutex::new(None),
            max_output: limits.max_output,
            sink: Mutex::new(None),
            notices: Mutex::new(None),
            ops: AtomicU64::new(0),
            more_actions: AtomicU64::new(0),
            kept_arg_bytes: AtomicUsize::new(0),
            max_operations: limits.max_operations,
            halt: AtomicU8::new(RUNNING),
            extended_ms: AtomicU64::new(0),
        }
    }

    pub(crate) fn set_worker(&self, thread: std::thread::Thread) {
        let _ = self.worker.set(thread);
    }

    /// Clears what the last snippet left and starts the clock for the next one.
    pub fn begin(&self, timeout: Duration) -> Instant {
        let started = Instant::now();
        *lock(&self.output) = Output { text: String::new(), cut: false };
        lock(&self.actions).clear();
        self.more_actions.store(0, Ordering::Relaxed);
        self.kept_arg_bytes.store(0, Ordering::Relaxed);
        *lock(&self.completion) = None;
        *lock(&self.failure) = None;
        *lock(&self.started) = started;
        *lock(&self.deadline) = started + timeout;
        self.ops.store(0, Ordering::Relaxed);
        self.halt.store(RUNNING, Ordering::Relaxed);
        self.extended_ms.store(0, Ordering::Relaxed);
        // A child of the session's token: a session stopped before this snippet
        // started stops it at once (no cancel can slip in between).
        *lock(&self.snippet_stop) = lock(&self.session_stop).child_token();
        started
    }

    /// What the snippet printed, its actions (with how many more were only counted)
    /// and its completion, taken out.
    pub fn collect(&self) -> (String, Vec<Action>, usize, Option<Completion>) {
        let output = std::mem::take(&mut lock(&self.output).text);
        let more = self.more_actions.swap(0, Ordering::Relaxed) as usize;
        (output, std::mem::take(&mut *lock(&self.actions)), more, lock(&self.completion).take())
    }

    pub fn failure(&self) -> Option<HostFailure> {
        lock(&self.failure).clone()
    }

    /// Appends a line of output, cutting it at the limit; false once the output is
    /// full (the line was dropped or cut).
    pub fn print(&self, text: &str) -> bool {
        let mut out = lock(&self.output);
        if out.cut {
            return false;
        }
        let room = self.max_output.saturating_sub(out.text.len());
        if text.len() < room {
            out.text.push_str(text);
            out.text.push('\n');
            true
        } else {
            out.text.push_str(&text[..text.floor_char_boundary(room)]);
            out.text.push_str(&format!("\n[output cut at {} bytes]\n", self.max_output));
            out.cut = true;
            false
        }
    }

    /// Records a tool call that started at `started`, and hands it to the sink.
    /// Past [`KEPT_ACTIONS`] in one snippet a call is only counted.
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
            Err((kind, message)) => (
                codeact_base::secrets::redact(&codeact_base::clip::clip(&message, RESULT_BYTES)).into_owned(),
                Some(kind),
            ),
        };
        let args = self.kept_args(args);
        let mut capture = capture;
        // A typed secret shows on screen, so in what an action says it changed.
        if let Some(effect) = capture.effect.as_mut() {
            *effect = codeact_base::secrets::redact(&codeact_base::clip::clip(effect, RESULT_BYTES)).into_owned();
        }
        // A toggle is kept only as a selector that finds it: one too long to keep
        // whole, or that shows a secret, is dropped rather than cut or masked.
        capture.toggled.retain(|t| {
            let text = format!("{}{}{}", t.selector, t.name, t.label);
            text.len() <= TOGGLE_BYTES && matches!(codeact_base::secrets::redact(&text), std::borrow::Cow::Borrowed(_))
        });
        let action = Action {
            tool: tool.into(),
            args,
            result,
            failure,
            started_ms: started.saturating_duration_since(base).as_secs_f64() * 1000.0,
            duration_ms: started.elapsed().as_secs_f64() * 1000.0,
            capture,
        };
        let mut actions = lock(&self.actions);
        if actions.len() >= KEPT_ACTIONS {
            self.more_actions.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let mut action = action;
        if let Some(sink) = lock(&self.sink).as_mut() {
            sink(&action);
            // The sink took the pictures and dumps (a run folder has them on disk):
            // the kept action lets them go, so a run of many screens stays flat in
            // memory.
            action.capture.screenshot = None;
            action.capture.ui_xml = None;
        }
        actions.push(action);
    }

    /// What an action keeps of its arguments: each cut at [`ARG_BYTES`], redacted as
    /// the Rhai literals they are (a bare number is nobody's PIN: a coordinate),
    /// and once the snippet's actions have kept [`SNIPPET_ARG_BYTES`], only their size.
    fn kept_args(&self, args: Vec<String>) -> Vec<String> {
        let args: Vec<String> = args
            .into_iter()
            .map(|a| codeact_base::secrets::redact_code(&codeact_base::clip::clip(&a, ARG_BYTES)).into_owned())
            .collect();
        let bytes: usize = args.iter().map(String::len).sum();
        let before = self.kept_arg_bytes.fetch_add(bytes, Ordering::Relaxed);
        if before + bytes <= SNIPPET_ARG_BYTES {
            return args;
        }
        vec![format!(
            "{ARGS_NOT_KEPT}{bytes} bytes; this snippet's calls passed {} KiB of arguments]",
            SNIPPET_ARG_BYTES / 1024
        )]
    }

    /// The error a failed host call hands the script: `message`, remembered as this
    /// call's failure so the snippet's final error can say which tool failed and how.
    pub fn fail(&self, tool: &str, kind: FailureKind, message: String) -> Box<EvalAltResult> {
        let message = ImmutableString::from(message);
        *lock(&self.failure) = Some(HostFailure { tool: tool.to_string(), kind, message: message.clone() });
        EvalAltResult::ErrorRuntime(Dynamic::from(message), Position::NONE).into()
    }

    /// Sends every later action to `sink` as it is recorded (replacing any earlier
    /// one). The sink takes the action's screenshot and dump: the action the run
    /// keeps holds neither.
    pub fn set_sink(&self, sink: Option<ActionSink>) {
        *lock(&self.sink) = sink;
    }

    /// Sends a tool's words to whoever watches the run (a terminal), or no longer.
    pub fn set_notice_sink(&self, sink: Option<NoticeSink>) {
        *lock(&self.notices) = sink;
    }

    /// Tells whoever watches what a tool is doing (a wait that takes long), when
    /// someone does; the script's output does not hold it.
    pub fn notice(&self, text: &str) {
        if let Some(sink) = lock(&self.notices).as_ref() {
            sink(text);
        }
    }

    /// Time left before the snippet's deadline (tools bound their waits by it).
    pub fn time_left(&self) -> Duration {
        lock(&self.deadline).saturating_duration_since(Instant::now())
    }

    /// Moves the snippet's deadline `by` later (the time a person took to answer is
    /// not the snippet's); the engine's process hears of it with the tool's answer.
    pub fn extend_deadline(&self, by: Duration) {
        *lock(&self.deadline) += by;
        let ms = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        self.extended_ms.fetch_add(ms, Ordering::Relaxed);
    }

    /// How far the deadline moved since the last call.
    pub fn take_extension(&self) -> Duration {
        Duration::from_millis(self.extended_ms.swap(0, Ordering::Relaxed))
    }

    /// True once the snippet must stop (deadline passed or cancelled).
    pub fn must_stop(&self) -> bool {
        self.cancelled() || Instant::now() >= *lock(&self.deadline)
    }

    pub fn cancelled(&self) -> bool {
        lock(&self.snippet_stop).is_cancelled()
    }

    /// Waits `duration`, at most until the deadline (the caller tells the two apart
    /// by the clock). `Err(Stopped)` when the snippet is cancelled meanwhile: a
    /// cancel wakes the wait at once.
    pub fn pause(&self, duration: Duration) -> Result<(), Stopped> {
        let until = Instant::now() + duration.min(self.time_left());
        *lock(&self.waiter) = Some(std::thread::current());
        let waited = self.pause_until(until);
        *lock(&self.waiter) = None;
        waited
    }

    fn pause_until(&self, until: Instant) -> Result<(), Stopped> {
        loop {
            if self.cancelled() {
                return Err(Stopped);
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            // Woken at once by `cancel`; a session's token (a signal cancels it)
            // wakes nobody, so the wait looks again every slice. An early or
            // spurious wake-up goes round again.
            std::thread::park_timeout(left.min(PAUSE_SLICE));
        }
    }

    /// Ends the snippet as `complete(success, reason)` asked. The first call counts:
    /// a second one (after a built-in swallowed the first stop) changes nothing.
    pub fn complete(&self, success: bool, reason: &str) -> Box<EvalAltResult> {
        lock(&self.completion).get_or_insert_with(|| Completion { success, reason: reason.to_string() });
        self.stop(STOP_COMPLETE)
    }

    /// The error that ends the snippet with `token` (scripts cannot catch it), also
    /// kept so that every later operation ends it again.
    pub fn stop(&self, token: &str) -> Box<EvalAltResult> {
        let halt = match token {
            STOP_COMPLETE => HALT_COMPLETE,
            STOP_OPERATIONS => HALT_OPERATIONS,
            _ => HALT_TIMEOUT,
        };
        let _ = self.halt.compare_exchange(RUNNING, halt, Ordering::Relaxed, Ordering::Relaxed);
        stop_error(token)
    }

    /// Why the snippet was told to stop, if it was (the token it was stopped with).
    pub(crate) fn halted(&self) -> Option<&'static str> {
        match self.halt.load(Ordering::Relaxed) {
            RUNNING => None,
            HALT_COMPLETE => Some(STOP_COMPLETE),
            HALT_OPERATIONS => Some(STOP_OPERATIONS),
            _ => Some(STOP_TIMEOUT),
        }
    }

    /// Called by the engine at every operation: counts it, and says with which
    /// token the snippet must stop (past `max_operations`, once halted, or every
    /// [`CLOCK_EVERY`] operations past the deadline or after a
    /// cancel). `now_and_then` runs just before that clock check (the worker looks
    /// for a cancel on its pipe there).
    pub(crate) fn tick(&self, now_and_then: impl FnOnce()) -> Option<Dynamic> {
        let n = self.ops.load(Ordering::Relaxed) + 1;
        self.ops.store(n, Ordering::Relaxed);
        let halted = self.halted().or_else(|| {
            if n > self.max_operations {
                self.halt.store(HALT_OPERATIONS, Ordering::Relaxed);
                return Some(STOP_OPERATIONS);
            }
            if !n.is_multiple_of(CLOCK_EVERY) {
                return None;
            }
            now_and_then();
            self.must_stop().then(|| {
                self.halt.store(HALT_TIMEOUT, Ordering::Relaxed);
                STOP_TIMEOUT
            })
        });
        halted.map(|token| Dynamic::from(token.to_string()))
    }

    /// Stops the snippet that runs now, at its next operation or wait.
    pub(crate) fn cancel_snippet(&self) {
        lock(&self.snippet_stop).cancel();
        if let Some(worker) = self.worker.get() {
            worker.unpark();
        }
        if let Some(waiter) = lock(&self.waiter).as_ref() {
            waiter.unpark();
        }
    }

    /// Every snippet from now on stops when `token` is cancelled.
    pub fn stop_on(&self, token: CancellationToken) {
        *lock(&self.session_stop) = token;
    }
}

/// Stops a running snippet from another thread (Ctrl-C).
#[derive(Debug, Clone)]
pub struct CancelHandle(pub Arc<Shared>);

impl CancelHandle {
    /// Stops the snippet that runs now (not the ones after it).
    pub fn cancel(&self) {
        self.0.cancel_snippet();
    }
}
