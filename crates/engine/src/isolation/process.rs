//! The runtime's side of a sandbox worker: spawn it (the worker program re-executed
//! with [`WORKER_ARG`]), hand it the set-up, and drive it — compile, run, variables —
//! answering its tool calls through a [`Host`]. The runtime enforces the wall clock:
//! a worker that outlives its snippet's deadline (plus a short grace) or a cancel
//! (plus a shorter one) is killed. A worker that dies — its memory cap, its stack,
//! an abort, a signal — is reported as one clear error and replaced by a fresh one.
//!
//! Knows no tool and no device: the [`Host`] answers for them.

use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rhai::Dynamic;

use super::death::{explain, keep_tail, stop, tail_text};
use super::entry::WORKER_ARG;
use super::frames::{Finished, FromWorker, PROTOCOL, ToWorker, ToolOutcome, ToolSignature};
use super::host::Host;
use super::pipe::{FrameReader, FrameWriter, PipeError};
use super::program::{IsolationError, WorkerProgram};
use crate::sandbox::{ErrorKind, Limit, Limits, RunError, ValueForm};

/// How long a worker may take to start and accept its set-up.
const START_TIMEOUT: Duration = Duration::from_secs(20);
/// How long the runtime spins for the worker's next frame after sending one.
const SPIN: Duration = Duration::from_micros(300);
/// How often a waiting runtime looks at the clock and for a cancel.
const SLICE: Duration = Duration::from_millis(20);
/// How long a cancelled snippet has to stop before its worker is killed.
const CANCEL_GRACE: Duration = Duration::from_millis(1500);

/// A snippet the worker has parsed, by its id in that worker.
#[derive(Debug, Clone)]
pub struct CompiledRef {
    id: u64,
    incarnation: u64,
    source: Arc<str>,
}

impl CompiledRef {
    pub fn source(&self) -> &str {
        &self.source
    }
}

/// What a snippet did, as the worker (or its death) reports it.
#[derive(Debug)]
pub struct Ran {
    pub finished: Finished,
    /// The worker was replaced while or after running it: the session's variables
    /// and functions are gone.
    pub restarted: bool,
}

struct Live {
    child: Child,
    reader: FrameReader,
    writer: FrameWriter,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_thread: Option<JoinHandle<()>>,
}

impl Live {
    /// Ends the worker and reaps it (how it ended).
    fn stop(&mut self) -> Option<std::process::ExitStatus> {
        stop(&mut self.child, &mut self.stderr_thread)
    }
}

/// One session's worker, replaced when it dies.
pub struct WorkerProcess {
    program: WorkerProgram,
    limits: Limits,
    tools: Vec<ToolSignature>,
    function_hint: String,
    live: Option<Live>,
    /// Counts the workers started, so a compiled snippet of a dead one is re-sent.
    incarnation: u64,
    seq: u64,
    /// How long the last start took.
    pub start_time: Duration,
    /// Printed lines are streamed (told again to every new worker).
    streaming: bool,
}

/// How a dead worker is explained.
enum Death {
    /// Killed here: the snippet ran past its deadline.
    Deadline,
    /// Killed here: it did not stop after a cancel.
    Cancelled,
    /// It died on its own (or broke the protocol).
    Died,
}

impl WorkerProcess {
    pub fn start(
        program: WorkerProgram,
        limits: Limits,
        tools: Vec<ToolSignature>,
        function_hint: String,
    ) -> Result<Self, IsolationError> {
        let mut worker = Self {
            program,
            limits,
            tools,
            function_hint,
            live: None,
            incarnation: 0,
            seq: 0,
            start_time: Duration::ZERO,
            streaming: false,
        };
        worker.spawn()?;
        Ok(worker)
    }

    fn spawn(&mut self) -> Result<(), IsolationError> {
        let started = Instant::now();
        let program = self.program.path().to_path_buf();
        let mut command = Command::new(&program);
        command
            .arg(WORKER_ARG)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Nothing of the environment (keys included) reaches the engine; one
            // malloc arena keeps the address space small under the cap.
            .env_clear()
            .env("MALLOC_ARENA_MAX", "1");
        // Its own process group: a Ctrl-C at the terminal is the runtime's to handle
        // (it cancels the snippet), not a signal that kills the engine.
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().map_err(|source| IsolationError::Spawn { program: program.clone(), source })?;
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(IsolationError::NotAWorker { program });
        };
        let reader = FrameReader::new(stdout.into()).map_err(IsolationError::Lost)?;
        let tail = Arc::new(Mutex::new(Vec::new()));
        let stderr_thread = Some(keep_tail(stderr, tail.clone()));
        let mut live = Live { child, reader, writer: FrameWriter::new(stdin.into()), stderr: tail, stderr_thread };
        let hello = next_within(&mut live.reader, START_TIMEOUT);
        if !matches!(hello, Some(FromWorker::Hello { protocol: PROTOCOL })) {
            live.stop();
            return Err(IsolationError::NotAWorker { program });
        }
        let setup = ToWorker::Setup {
            limits: self.limits.clone(),
            tools: self.tools.clone(),
            function_hint: self.function_hint.clone(),
        };
        send(&mut live.writer, &setup).map_err(IsolationError::Lost)?;
        match next_within(&mut live.reader, START_TIMEOUT) {
            Some(FromWorker::Ready) => {}
            Some(FromWorker::Refused(why)) => {
                live.stop();
                return Err(IsolationError::Refused(why));
            }
            _ => {
                live.stop();
                let tail = tail_text(&live.stderr);
                return Err(IsolationError::Refused(if tail.is_empty() { "no answer".into() } else { tail }));
            }
        }
        if self.streaming {
            send(&mut live.writer, &ToWorker::StreamPrints(true)).map_err(IsolationError::Lost)?;
            if !matches!(next_within(&mut live.reader, START_TIMEOUT), Some(FromWorker::Done)) {
                live.stop();
                return Err(IsolationError::Refused("the new worker would not stream its output".into()));
            }
        }
        self.live = Some(live);
        self.incarnation += 1;
        self.start_time = started.elapsed();
        Ok(())
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The worker, started again if the last one died.
    fn live(&mut self) -> Result<&mut Live, IsolationError> {
        if self.live.is_none() {
            self.spawn()?;
        }
        self.live.as_mut().ok_or(IsolationError::Lost(PipeError::Closed))
    }

    /// Asks something outside a snippet and waits for the answer.
    fn ask(&mut self, msg: &ToWorker) -> Result<FromWorker, IsolationError> {
        let live = self.live()?;
        let answer = send(&mut live.writer, msg).and_then(|()| {
            loop {
                match next_within(&mut live.reader, START_TIMEOUT) {
                    // A module's top level may print while it loads: not the answer.
                    Some(FromWorker::Printed(_)) => continue,
                    Some(answer) => break Ok(answer),
                    None => break Err(PipeError::Closed),
                }
            }
        });
        match answer {
            Ok(a) => Ok(a),
            Err(e) => {
                if let Some(mut live) = self.live.take() {
                    live.stop();
                }
                Err(IsolationError::Lost(e))
            }
        }
    }

    /// Parses `code` in the worker.
    pub fn compile(&mut self, code: &str) -> Result<CompiledRef, RunError> {
        let lost = |e: IsolationError| RunError::plain(codeact_base::error_text::full_message(&e), ErrorKind::Crashed);
        match self.ask(&ToWorker::Compile { code: code.to_string() }).map_err(lost)? {
            FromWorker::Compiled { id } => Ok(CompiledRef { id, incarnation: self.incarnation, source: code.into() }),
            FromWorker::CompileFailed(e) => Err(e),
            _ => Err(RunError::plain("the sandbox worker answered out of turn", ErrorKind::Crashed)),
        }
    }

    /// Runs a compiled snippet (sent again as source if its worker has died since).
    pub fn run(&mut self, code: &CompiledRef, host: &mut dyn Host) -> Ran {
        if code.incarnation != self.incarnation {
            return self.eval(&code.source, host);
        }
        self.seq += 1;
        let msg = ToWorker::Run { seq: self.seq, compiled: code.id, cancelled: host.cancelled() };
        self.drive(&msg, host)
    }

    /// Compiles and runs `code` in one hand-over.
    pub fn eval(&mut self, code: &str, host: &mut dyn Host) -> Ran {
        self.eval_as(code, ValueForm::Rhai, host)
    }

    /// [`eval`](Self::eval), the value given back in `form`.
    pub fn eval_as(&mut self, code: &str, form: ValueForm, host: &mut dyn Host) -> Ran {
        self.seq += 1;
        let json = form == ValueForm::Json;
        let msg = ToWorker::Eval { seq: self.seq, code: code.to_string(), cancelled: host.cancelled(), json };
        self.drive(&msg, host)
    }

    /// Sends a run request and serves the worker until the snippet is over.
    fn drive(&mut self, msg: &ToWorker, host: &mut dyn Host) -> Ran {
        let started = Instant::now();
        let timeout = self.limits.timeout();
        // The engine stops itself at the deadline; this is for when it cannot.
        let mut hard = started + timeout + timeout / 10 + Duration::from_millis(500);
        let seq = self.seq;
        let live = match self.live() {
            Ok(live) => live,
            Err(e) => return self.lost(codeact_base::error_text::full_message(&e)),
        };
        if send(&mut live.writer, msg).is_err() {
            return self.died(Death::Died);
        }
        let mut cancel_sent: Option<Instant> = None;
        let mut spin = SPIN;
        loop {
            let now = Instant::now();
            if now >= hard {
                return self.died(Death::Deadline);
            }
            if cancel_sent.is_some_and(|at| now >= at + CANCEL_GRACE) {
                return self.died(Death::Cancelled);
            }
            let Some(live) = self.live.as_mut() else { return self.died(Death::Died) };
            pass_on_cancel(live, host, seq, &mut cancel_sent);
            let frame = match live.reader.next(spin, Some(SLICE.min(hard - now))) {
                Ok(Some(frame)) => frame,
                Ok(None) => {
                    spin = Duration::ZERO;
                    continue;
                }
                Err(_) => return self.died(Death::Died),
            };
            spin = SPIN;
            let reply = match FromWorker::decode(&frame) {
                Ok(FromWorker::Finished(finished)) => {
                    let crashed = finished.error.as_ref().is_some_and(|e| e.kind == ErrorKind::Crashed);
                    if crashed {
                        // The worker exits after an engine failure; the next one starts fresh.
                        if let Some(mut live) = self.live.take() {
                            live.stop();
                        }
                        let mut finished = finished;
                        if let Some(e) = finished.error.as_mut() {
                            e.message.push_str(LOST);
                        }
                        return Ran { finished, restarted: true };
                    }
                    return Ran { finished, restarted: false };
                }
                Ok(FromWorker::ToolCall { index, args, watchers }) => {
                    let outcome = host.call_tool(index as usize, args, watchers);
                    let moved = host.take_extension();
                    if !moved.is_zero() {
                        hard += moved;
                        let ms = u64::try_from(moved.as_millis()).unwrap_or(u64::MAX);
                        if send(&mut live.writer, &ToWorker::Extend { ms }).is_err() {
                            return self.died(Death::Died);
                        }
                    }
                    ToWorker::Tool(outcome)
                }
                Ok(FromWorker::StateRead { phone, have }) => host.read_state(phone, have),
                // Not a question: nothing goes back.
                Ok(FromWorker::Printed(text)) => {
                    host.printed(&text);
                    continue;
                }
                _ => return self.died(Death::Died),
            };
            // A tool that saw the cancel returns early: the worker hears of it first.
            pass_on_cancel(live, host, seq, &mut cancel_sent);
            let sent = match reply.encode() {
                Ok(bytes) => live.writer.send(&bytes),
                Err(e) => {
                    let failed = ToolOutcome::Failed { tool: String::new(), failure: None, message: e.to_string() };
                    send(&mut live.writer, &ToWorker::Tool(failed))
                }
            };
            if sent.is_err() {
                return self.died(Death::Died);
            }
        }
    }

    /// The worker is gone or must go: kill it, say why in one line, and start the
    /// next one now (so the next snippet does not wait for it).
    fn died(&mut self, how: Death) -> Ran {
        let Some(mut live) = self.live.take() else { return self.lost("the sandbox worker is gone".into()) };
        let status = live.stop();
        let tail = tail_text(&live.stderr);
        let l = &self.limits;
        let (message, kind) = match how {
            Death::Deadline => (
                format!("the snippet ran past its time limit of {:.1} s and was stopped", l.timeout().as_secs_f64()),
                ErrorKind::Limit { limit: Limit::Time },
            ),
            Death::Cancelled => ("the snippet was cancelled".to_string(), ErrorKind::Cancelled),
            Death::Died => explain(status, &tail, l),
        };
        self.lost_with(message, kind)
    }

    fn lost(&mut self, message: String) -> Ran {
        self.lost_with(message, ErrorKind::Crashed)
    }

    fn lost_with(&mut self, message: String, kind: ErrorKind) -> Ran {
        let restarted = self.spawn().is_ok();
        let note = if restarted { LOST } else { "; the sandbox worker could not be started again" };
        let error = RunError::plain(format!("{message}{note}"), kind);
        Ran { finished: Finished { output: String::new(), error: Some(error), value: None }, restarted: true }
    }

    /// Asks for something the worker answers with `Done` (or refuses, saying why).
    fn ask_done(&mut self, msg: &ToWorker) -> Result<(), IsolationError> {
        match self.ask(msg)? {
            FromWorker::Done => Ok(()),
            FromWorker::Refused(why) => Err(IsolationError::Refused(why)),
            _ => Err(IsolationError::Lost(PipeError::Closed)),
        }
    }

    pub fn set_var(&mut self, name: &str, value: Dynamic) -> Result<(), IsolationError> {
        self.ask_done(&ToWorker::SetVar { name: name.to_string(), value })
    }

    pub fn vars(&mut self) -> Vec<String> {
        match self.ask(&ToWorker::Vars) {
            Ok(FromWorker::Vars(v)) => v,
            _ => Vec::new(),
        }
    }

    pub fn var_summaries(&mut self, width: usize) -> Vec<(String, String)> {
        match self.ask(&ToWorker::Summaries { width: width as u64 }) {
            Ok(FromWorker::Summaries(v)) => v,
            _ => Vec::new(),
        }
    }

    /// Whether printed lines come back as they are printed ([`Host::printed`]).
    pub fn stream_prints(&mut self, on: bool) -> Result<(), IsolationError> {
        self.streaming = on;
        self.ask_done(&ToWorker::StreamPrints(on))
    }

    /// Gives the engine the modules `import` may name (see `Sandbox::set_modules`).
    pub fn set_modules(&mut self, modules: Vec<(String, String)>) -> Result<(), IsolationError> {
        self.ask_done(&ToWorker::Modules { modules })
    }

    /// Gives the engine tools written in Rhai (see `Sandbox::set_tools`).
    pub fn set_tools(&mut self, files: Vec<(String, String)>) -> Result<(), IsolationError> {
        self.ask_done(&ToWorker::Tools { files })
    }

    pub fn reset(&mut self) -> Result<(), IsolationError> {
        self.ask_done(&ToWorker::Reset)
    }
}

/// Said after an error that cost the session its engine.
const LOST: &str = "; the engine was restarted, so this session's variables and functions are gone";

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        if let Some(mut live) = self.live.take() {
            live.stop();
        }
    }
}

/// Tells the worker once that snippet `seq` is cancelled, when the host says so.
fn pass_on_cancel(live: &mut Live, host: &dyn Host, seq: u64, sent: &mut Option<Instant>) {
    if sent.is_none() && host.cancelled() {
        let _ = send(&mut live.writer, &ToWorker::Cancel { seq });
        *sent = Some(Instant::now());
    }
}

fn send(writer: &mut FrameWriter, msg: &ToWorker) -> Result<(), PipeError> {
    match msg.encode() {
        Ok(bytes) => writer.send(&bytes),
        Err(_) => Err(PipeError::Closed),
    }
}

fn next_within(reader: &mut FrameReader, wait: Duration) -> Option<FromWorker> {
    let frame = reader.next(SPIN, Some(wait)).ok()??;
    FromWorker::decode(&frame).ok()
}
