//! The sandbox worker: the child process a session's engine lives in. It reads its
//! set-up (limits, the tools it may stand in for), caps its own memory and CPU,
//! builds the engine and then serves the runtime: compile, run, variables. A tool
//! call or a read of `ui_state` inside a snippet goes back to the runtime over the
//! pipe and waits for the answer; the worker itself holds no device, no key, no file
//! and no socket, and after start-up cannot open or spawn anything.
//!
//! It speaks on a copy of its stdin/stdout; its stdout proper is pointed at stderr,
//! so nothing a dependency prints can corrupt a frame. What is not here: spawning,
//! watching and restarting the worker (`process.rs`).

use std::any::TypeId;
use std::collections::{HashMap, VecDeque};
use std::os::fd::AsFd;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rhai::{Dynamic, EvalAltResult, FnPtr, ImmutableString, Position};
use tokio_util::sync::CancellationToken;

use super::frames::{Finished, FromWorker, PROTOCOL, Param, ToWorker, ToolOutcome, ToolSignature};
use super::os_limits;
use super::pipe::{FrameReader, FrameWriter, PipeError};
use crate::sandbox::{Compiled, Limits, RunResult, Sandbox, Shared, Stopped, ValueForm};

/// How long the worker spins for a tool's answer before it sleeps.
const SPIN: Duration = Duration::from_micros(200);

/// How often a running snippet looks for a cancel on the pipe.
const CANCEL_POLL: Duration = Duration::from_millis(2);

/// Compiled snippets kept for a later run.
const KEPT_COMPILED: usize = 32;

/// Exit codes the runtime tells apart.
pub mod exit {
    /// The pipe broke or a frame made no sense.
    pub const PROTOCOL: i32 = 3;
    /// The set-up could not be applied.
    pub const SETUP: i32 = 4;
    /// The engine failed in a way that may have left it inconsistent.
    pub const ENGINE: i32 = 5;
}

/// The worker's end of the pipes, and what a running snippet needs of them.
struct Link {
    reader: FrameReader,
    writer: FrameWriter,
    /// The snippet that runs now (a cancel names it).
    seq: u64,
    last_poll: Instant,
    /// `ui_state` as last received, with its generation.
    ui_state: Option<(u64, Dynamic)>,
    /// Modules are being loaded: their top level may not call tools (the runtime
    /// answers none then).
    loading_modules: bool,
    /// Printed lines go to the runtime as they are printed.
    stream_prints: bool,
    /// The functions of the script's watchers (`watch(sel, fn)`), by name.
    watchers: HashMap<String, FnPtr>,
    /// A watcher's function is running: its own calls do not fire watchers.
    in_watcher: bool,
}

/// How many times the script's watchers may fire before one call goes ahead.
const MAX_WATCH_FIRINGS: usize = 3;

const WATCH_NEEDS_FN: &str =
    "watch: the last argument must be a function, e.g. watch(\"Rate this app\", |el| tap(\"Not now\"))";

type SharedLink = Arc<Mutex<Link>>;

fn lock(link: &SharedLink) -> MutexGuard<'_, Link> {
    link.lock().unwrap_or_else(|e| e.into_inner())
}

/// The end of the snippet: the pipe broke (the runtime is gone) or the runtime
/// broke the protocol. The worker can only exit.
fn die(_: impl std::fmt::Debug) -> ! {
    std::process::exit(exit::PROTOCOL)
}

/// [`die`], where an error is expected.
fn broken(e: impl std::fmt::Debug) -> Box<EvalAltResult> {
    die(e)
}

impl Link {
    fn send(&mut self, msg: &FromWorker) -> Result<(), PipeError> {
        match msg.encode() {
            Ok(bytes) => self.writer.send(&bytes),
            Err(_) => Err(PipeError::Closed),
        }
    }

    /// Handles a frame that came while a snippet ran: a cancel for it is applied;
    /// anything else is returned.
    fn absorb(&mut self, bytes: &[u8], shared: &Shared) -> Option<ToWorker> {
        match ToWorker::decode(bytes) {
            Ok(ToWorker::Cancel { seq }) => {
                if seq == self.seq {
                    shared.cancel_snippet();
                }
                None
            }
            Ok(ToWorker::Extend { ms }) => {
                shared.extend_deadline(Duration::from_millis(ms));
                None
            }
            Ok(other) => Some(other),
            Err(e) => {
                die(e);
            }
        }
    }

    /// Waits for the runtime's answer to a question asked mid-snippet.
    fn answer(&mut self, shared: &Shared) -> ToWorker {
        loop {
            match self.reader.next(SPIN, None) {
                Ok(Some(bytes)) => {
                    if let Some(msg) = self.absorb(&bytes, shared) {
                        return msg;
                    }
                }
                Ok(None) => {}
                Err(e) => die(e),
            }
        }
    }

    /// Looks for a cancel now and then, without waiting.
    fn poll_cancel(&mut self, shared: &Shared) {
        if self.last_poll.elapsed() < CANCEL_POLL {
            return;
        }
        self.last_poll = Instant::now();
        loop {
            match self.reader.poll_frame() {
                Ok(Some(bytes)) => {
                    let _ = self.absorb(&bytes, shared);
                }
                Ok(None) => break,
                // The runtime is gone (killed, or quit at a second Ctrl-C): so is its work.
                Err(PipeError::Closed) => die("the runtime closed the pipe"),
                Err(_) => break,
            }
        }
    }

    /// Sleeps `duration` (at most until the deadline), woken by a cancel.
    fn pause(&mut self, duration: Duration, shared: &Shared) -> Result<(), Stopped> {
        let until = Instant::now() + duration.min(shared.time_left());
        loop {
            if shared.cancelled() {
                return Err(Stopped);
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            match self.reader.next(Duration::ZERO, Some(left)) {
                Ok(Some(bytes)) => {
                    let _ = self.absorb(&bytes, shared);
                }
                Ok(None) => {}
                Err(e) => die(e),
            }
        }
    }
}

/// How a tool's answer reaches the script.
fn outcome(o: ToolOutcome, shared: &Shared) -> Result<Dynamic, Box<EvalAltResult>> {
    match o {
        ToolOutcome::Value(v) => Ok(v),
        ToolOutcome::Failed { tool, failure: Some(kind), message } => Err(shared.fail(&tool, kind, message)),
        ToolOutcome::Failed { failure: None, message, .. } => {
            Err(EvalAltResult::ErrorRuntime(Dynamic::from(message), Position::NONE).into())
        }
        ToolOutcome::Completed => Err(shared.stop(crate::sandbox::STOP_COMPLETE)),
        ToolOutcome::Stopped => Err(shared.stop(crate::sandbox::STOP_TIMEOUT)),
        // Handled by the stand-in; never reaches here in a well-formed exchange.
        ToolOutcome::Watch { name, .. } => Err(format!("watcher {name}: not expected here").into()),
    }
}

fn type_of(p: Param) -> TypeId {
    match p {
        Param::Any => TypeId::of::<Dynamic>(),
        Param::Str => TypeId::of::<ImmutableString>(),
        Param::Int => TypeId::of::<rhai::INT>(),
        Param::Bool => TypeId::of::<bool>(),
    }
}

/// A printed line: kept for the result, and sent at once when streaming.
fn print_line(link: &SharedLink, shared: &Shared, line: &str) {
    if shared.print(line) {
        let mut link = lock(link);
        if link.stream_prints {
            let _ = link.send(&FromWorker::Printed(line.to_string()));
        }
    }
}

/// Builds the engine: the sandbox's built-ins, a stand-in for every tool, the state
/// variables, and waits and cancel checks that listen on the pipe.
fn build(
    limits: Limits,
    tools: Vec<ToolSignature>,
    hint: String,
    link: SharedLink,
) -> Result<Sandbox, crate::sandbox::SandboxError> {
    let mut builder = Sandbox::builder(limits)?;
    let shared = builder.shared();
    for tool in &tools {
        builder.protect(&tool.name);
        builder.document(&tool.name, &tool.form);
    }
    let engine = builder.engine_mut();
    for (index, tool) in tools.into_iter().enumerate() {
        let types: Vec<TypeId> = tool.params.iter().map(|p| type_of(*p)).collect();
        let (link, shared) = (link.clone(), shared.clone());
        let name = tool.name.clone();
        engine.register_raw_fn(tool.name, types, move |context, args| {
            let mut args: Vec<Dynamic> = args.iter().map(|a| (**a).clone()).collect();
            // watch(..., fn): the function stays here; the runtime gets its name.
            let watch_fn = if name == "watch" {
                let Some(f) = args.last().and_then(|a| a.clone().try_cast::<FnPtr>()) else {
                    return Err(WATCH_NEEDS_FN.into());
                };
                // What the action record shows for it: its name, or "closure".
                if let Some(last) = args.last_mut() {
                    let shown = if f.is_anonymous() { "closure".to_string() } else { format!("fn {}", f.fn_name()) };
                    *last = Dynamic::from(shown);
                }
                Some(f)
            } else {
                None
            };
            let mut fired = 0;
            loop {
                let answer = {
                    let mut l = lock(&link);
                    if l.loading_modules {
                        return Err(format!(
                            "{name}: a module's top level cannot call tools; call them from its functions"
                        )
                        .into());
                    }
                    let watchers = !l.in_watcher && fired < MAX_WATCH_FIRINGS;
                    let call = FromWorker::ToolCall { index: index as u64, args: args.clone(), watchers };
                    match call.encode() {
                        Ok(bytes) => l.writer.send(&bytes).map_err(broken)?,
                        Err(e) => return Err(format!("{name}: {e}").into()),
                    }
                    l.answer(&shared)
                };
                match answer {
                    ToWorker::Tool(ToolOutcome::Watch { name: watcher, element }) => {
                        fired += 1;
                        let f = lock(&link).watchers.get(&watcher).cloned();
                        // A watcher the runtime knows and this worker does not (it
                        // was restarted) is skipped: the call is made again.
                        if let Some(f) = f {
                            lock(&link).in_watcher = true;
                            let ran = f.call_within_context::<Dynamic>(&context, (element,));
                            lock(&link).in_watcher = false;
                            // Its value is not used; its error ends the call, named.
                            match ran {
                                Ok(_) => {}
                                Err(e) if matches!(*e, EvalAltResult::ErrorTerminated(..)) => return Err(e),
                                Err(e) => {
                                    // Rhai's message keeps the line inside the function.
                                    let what = e.to_string();
                                    let what = what.strip_prefix("Runtime error: ").unwrap_or(&what);
                                    return Err(format!("watcher {watcher:?}: {what}").into());
                                }
                            }
                        }
                    }
                    ToWorker::Tool(o) => {
                        let value = outcome(o, &shared)?;
                        let mut l = lock(&link);
                        if let Some(f) = watch_fn {
                            l.watchers.insert(value.to_string(), f);
                        } else if name == "unwatch" {
                            l.watchers.remove(&args.first().map(|a| a.to_string()).unwrap_or_default());
                        }
                        return Ok(value);
                    }
                    other => return Err(broken(other)),
                }
            }
        });
    }
    let (l, s) = (link.clone(), shared.clone());
    // Marked deprecated only as "volatile"; it is the way to serve live variables.
    #[allow(deprecated)]
    engine.on_var(move |name, _, _| {
        let phone = match name {
            "ui_state" => false,
            "phone_state" => true,
            _ => return Ok(None),
        };
        let mut link = lock(&l);
        if link.loading_modules {
            return Err(format!("{name}: a module's top level cannot read it; read it from its functions").into());
        }
        let have = if phone { 0 } else { link.ui_state.as_ref().map_or(0, |(g, _)| *g) };
        link.send(&FromWorker::StateRead { phone, have }).map_err(broken)?;
        match link.answer(&s) {
            ToWorker::State { generation, value: Some(v) } => {
                if !phone {
                    link.ui_state = Some((generation, v.clone()));
                }
                Ok(Some(v))
            }
            ToWorker::State { value: None, .. } => Ok(link.ui_state.as_ref().map(|(_, v)| v.clone())),
            ToWorker::Tool(o) => outcome(o, &s).map(Some),
            other => Err(broken(other)),
        }
    });
    // Printing: kept for the result as always, and sent at once when streaming.
    let (l, s) = (link.clone(), shared.clone());
    engine.on_print(move |text| print_line(&l, &s, text));
    let (l, s) = (link.clone(), shared.clone());
    engine.on_debug(move |text, _, pos| match pos.line() {
        Some(n) => print_line(&l, &s, &format!("[line {n}] {text}")),
        None => print_line(&l, &s, text),
    });
    let (l, s) = (link.clone(), shared.clone());
    engine.on_progress(move |_| s.tick(|| lock(&l).poll_cancel(&s)));
    // A sleep that the pipe wakes: a cancel arrives there.
    let s = shared.clone();
    crate::sandbox::register_sleep(engine, s, move |wanted| lock(&link).pause(wanted, &shared));
    builder.start(hint)
}

/// The worker's main loop; returns the exit code. A process becomes a worker
/// through `entry.rs`.
pub(super) fn serve() -> i32 {
    os_limits::ignore_stop_signals();
    let Some((reader, writer)) = protocol_pipes() else { return exit::PROTOCOL };
    let link = Arc::new(Mutex::new(Link {
        reader,
        writer,
        seq: 0,
        last_poll: Instant::now(),
        ui_state: None,
        loading_modules: false,
        stream_prints: false,
        watchers: HashMap::new(),
        in_watcher: false,
    }));
    if lock(&link).send(&FromWorker::Hello { protocol: PROTOCOL }).is_err() {
        return exit::PROTOCOL;
    }
    let Some(ToWorker::Setup { limits, tools, function_hint }) = next_request(&link) else { return exit::PROTOCOL };
    let timeout = limits.timeout();
    let max_memory_mb = limits.max_memory_mb;
    let mut sandbox = match build(limits, tools, function_hint, link.clone()) {
        Ok(sandbox) => sandbox,
        Err(why) => {
            let _ = lock(&link).send(&FromWorker::Refused(codeact_base::error_text::full_message(&why)));
            return exit::SETUP;
        }
    };
    // Once the engine stands: `max_memory_mb` is what snippets may take on top.
    if let Err(e) = os_limits::cap_memory(max_memory_mb) {
        let _ = lock(&link).send(&FromWorker::Refused(codeact_base::error_text::full_message(&e)));
        return exit::SETUP;
    }
    os_limits::forbid_spawning();
    if lock(&link).send(&FromWorker::Ready).is_err() {
        return exit::PROTOCOL;
    }
    // The loop runs on the engine's thread: a snippet starts without a hand-over.
    sandbox.serve_on_engine_thread(|sandbox| serve_requests(sandbox, &link, timeout))
}

/// Answers requests until the runtime closes the pipe; returns the exit code.
fn serve_requests(sandbox: &mut Sandbox, link: &SharedLink, timeout: Duration) -> i32 {
    let mut compiled: VecDeque<(u64, Compiled)> = VecDeque::new();
    let mut next_id = 1u64;
    let cancelled = CancellationToken::new();
    cancelled.cancel();
    loop {
        let Some(request) = next_request(link) else { return 0 };
        let reply = match request {
            ToWorker::Compile { code } => match sandbox.compile(&code) {
                Ok(c) => {
                    if compiled.len() == KEPT_COMPILED {
                        compiled.pop_front();
                    }
                    compiled.push_back((next_id, c));
                    next_id += 1;
                    FromWorker::Compiled { id: next_id - 1 }
                }
                Err(e) => FromWorker::CompileFailed(e),
            },
            ToWorker::Run { seq, compiled: id, cancelled: stop } => {
                let Some(code) = compiled.iter().find(|(i, _)| *i == id).map(|(_, c)| c.clone()) else {
                    let _ = lock(link).send(&FromWorker::Refused(format!("no compiled snippet {id}")));
                    continue;
                };
                begin(link, sandbox, seq, stop, &cancelled, timeout);
                finished(sandbox.run(&code))
            }
            ToWorker::Eval { seq, code, cancelled: stop, json } => {
                begin(link, sandbox, seq, stop, &cancelled, timeout);
                let form = if json { ValueForm::Json } else { ValueForm::Rhai };
                finished(sandbox.eval_as(&code, form))
            }
            ToWorker::SetVar { name, value } => match sandbox.set_var(&name, value) {
                Ok(()) => FromWorker::Done,
                Err(e) => FromWorker::Refused(e.to_string()),
            },
            ToWorker::Vars => FromWorker::Vars(sandbox.vars()),
            ToWorker::Summaries { width } => FromWorker::Summaries(sandbox.var_summaries(width as usize)),
            ToWorker::Reset => {
                lock(link).ui_state = None;
                lock(link).watchers.clear();
                match sandbox.reset() {
                    Ok(()) => FromWorker::Done,
                    Err(e) => FromWorker::Refused(e.to_string()),
                }
            }
            ToWorker::StreamPrints(on) => {
                lock(link).stream_prints = on;
                FromWorker::Done
            }
            ToWorker::Modules { modules } => load_sources(sandbox, link, timeout, |s| s.set_modules(modules)),
            ToWorker::Tools { files } => load_sources(sandbox, link, timeout, |s| s.set_tools(files)),
            // A cancel (or a deadline move) that came after its snippet ended.
            ToWorker::Cancel { .. } | ToWorker::Extend { .. } => continue,
            ToWorker::Setup { .. } | ToWorker::Tool(_) | ToWorker::State { .. } => return exit::PROTOCOL,
        };
        let crashed = matches!(&reply, FromWorker::Finished(f) if f.error.as_ref().is_some_and(|e| e.kind == crate::sandbox::ErrorKind::Crashed));
        if lock(link).send(&reply).is_err() {
            return exit::PROTOCOL;
        }
        // A panic inside the engine may have left values locked: start afresh.
        if crashed {
            return exit::ENGINE;
        }
    }
}

/// Readies the engine for snippet `seq`: its cancel state and its CPU allowance.
/// Loads sources whose top level runs once (modules, tools written in Rhai) under
/// the snippet limits, with `ui_state` unreadable while it does.
fn load_sources(
    sandbox: &mut Sandbox,
    link: &SharedLink,
    timeout: Duration,
    load: impl FnOnce(&mut Sandbox) -> Result<(), crate::sandbox::RunError>,
) -> FromWorker {
    sandbox.shared().begin(timeout);
    lock(link).loading_modules = true;
    let loaded = load(sandbox);
    lock(link).loading_modules = false;
    match loaded {
        Ok(()) => FromWorker::Done,
        Err(e) => FromWorker::Refused(e.to_string()),
    }
}

fn begin(link: &SharedLink, sandbox: &Sandbox, seq: u64, stop: bool, cancelled: &CancellationToken, timeout: Duration) {
    lock(link).seq = seq;
    sandbox.stop_on(if stop { cancelled.clone() } else { CancellationToken::new() });
    // The wall-clock limit with room to spare: only a snippet stuck where the
    // engine cannot stop it meets this.
    let _ = os_limits::allow_cpu(timeout.as_secs() * 2 + 5);
}

fn finished(r: RunResult) -> FromWorker {
    FromWorker::Finished(Finished { output: r.output, error: r.error, value: r.value })
}

fn next_request(link: &SharedLink) -> Option<ToWorker> {
    loop {
        let bytes = match lock(link).reader.next(SPIN, None) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => continue,
            Err(_) => return None,
        };
        return ToWorker::decode(&bytes).ok();
    }
}

/// The pipes the protocol runs on: copies of stdin and stdout; stdout itself then
/// points at stderr.
fn protocol_pipes() -> Option<(FrameReader, FrameWriter)> {
    let input = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let output = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
    nix::unistd::dup2_stdout(std::io::stderr()).ok()?;
    Some((FrameReader::new(input).ok()?, FrameWriter::new(output)))
}
