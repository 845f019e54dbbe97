//! The sandboxed Rhai engine: one persistent session that runs snippets (from an LLM
//! or a person) under operation, time, depth, size and output limits, keeping
//! variables and `fn` definitions from one snippet to the next.
//!
//! Built from `Engine::new_raw()` plus the pure standard packages: no module
//! resolver, no `eval`, no file, network or process access; `sleep` honours the
//! deadline. Tools are registered by the tool catalog through [`Sandbox::engine_mut`]
//! and record what they do through [`Shared`]; this module knows no device.

mod limits;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rhai::packages::Package;
use rhai::{AST, Dynamic, Engine, EvalAltResult, ParseError, Position, Scope};
use serde::Serialize;

pub use limits::{LIMIT_NAMES, Limits};

/// The stack a snippet runs on: deep (bounded) recursion in debug builds needs it.
const SCRIPT_STACK: usize = 32 * 1024 * 1024;
/// How often (in operations) the deadline and cancel flag are checked.
const CLOCK_EVERY: u64 = 256;
/// The token a limit hit or `complete()` stops a script with.
const STOP_TIMEOUT: &str = "codeact:timeout";
const STOP_COMPLETE: &str = "codeact:complete";

/// How a snippet ended when it called `complete()`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Completion {
    pub success: bool,
    pub reason: String,
}

/// What a tool captured after acting, when recording is on: opaque bytes to this
/// module, files in a trajectory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Capture {
    /// A PNG screenshot.
    pub screenshot: Option<Arc<[u8]>>,
    /// The UI hierarchy dump (XML).
    pub ui_xml: Option<Arc<str>>,
    /// What an index-based action acted on, as a selector (Rhai source) that finds the
    /// same element without its index: exported replays use it.
    pub target: Option<String>,
}

/// One tool call, as recorded by the tool that made it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Action {
    pub tool: String,
    pub args: Vec<String>,
    pub result: String,
    /// Milliseconds since the snippet started.
    pub started_ms: f64,
    pub duration_ms: f64,
    #[serde(skip)]
    pub capture: Capture,
}

/// Receives each action the moment it is recorded (a trajectory writing as it goes).
pub type ActionSink = Box<dyn FnMut(&Action) + Send>;

/// Why a snippet failed, in a form an LLM (or a person) can act on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunError {
    pub message: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// The offending source line, when the error has a position.
    pub source_line: Option<String>,
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "line {l}, column {c}: {}", self.message)?,
            (Some(l), None) => write!(f, "line {l}: {}", self.message)?,
            _ => f.write_str(&self.message)?,
        }
        if let (Some(src), Some(c)) = (&self.source_line, self.column) {
            write!(f, "\n  {src}\n  {}^", " ".repeat(c.saturating_sub(1)))?;
        }
        Ok(())
    }
}

/// What one snippet did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RunResult {
    /// Captured `print`/`debug` output (bounded).
    pub output: String,
    pub error: Option<RunError>,
    pub actions: Vec<Action>,
    pub completion: Option<Completion>,
    /// The value of the snippet's last expression, when it has one (not `()`), as
    /// Rhai prints it (bounded like output).
    pub value: Option<String>,
    pub duration_ms: f64,
}

impl RunResult {
    pub fn ok(&self) -> bool {
        self.error.is_none() && self.completion.as_ref().is_none_or(|c| c.success)
    }
}

/// State the engine's callbacks and the tools share with the session.
pub struct Shared {
    output: Mutex<(String, bool)>,
    actions: Mutex<Vec<Action>>,
    completion: Mutex<Option<Completion>>,
    deadline: Mutex<Instant>,
    started: Mutex<Instant>,
    cancel: AtomicBool,
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

impl Shared {
    fn new(max_output: usize) -> Self {
        let now = Instant::now();
        Self {
            output: Mutex::new((String::new(), false)),
            actions: Mutex::new(Vec::new()),
            completion: Mutex::new(None),
            deadline: Mutex::new(now),
            started: Mutex::new(now),
            cancel: AtomicBool::new(false),
            max_output,
            sink: Mutex::new(None),
        }
    }

    /// Appends a line of output, cutting it at the limit.
    pub fn print(&self, text: &str) {
        let mut out = lock(&self.output);
        if out.1 {
            return;
        }
        let room = self.max_output.saturating_sub(out.0.len());
        if text.len() < room {
            out.0.push_str(text);
            out.0.push('\n');
        } else {
            let mut cut = room;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            out.0.push_str(&text[..cut]);
            out.0.push_str(&format!("\n[output cut at {} bytes]\n", self.max_output));
            out.1 = true;
        }
    }

    /// Records a tool call that started at `started`, and hands it to the sink.
    pub fn record(&self, tool: &str, args: Vec<String>, result: String, started: Instant, capture: Capture) {
        let base = *lock(&self.started);
        let action = Action {
            tool: tool.into(),
            args,
            result,
            started_ms: started.saturating_duration_since(base).as_secs_f64() * 1000.0,
            duration_ms: started.elapsed().as_secs_f64() * 1000.0,
            capture,
        };
        if let Some(sink) = lock(&self.sink).as_mut() {
            sink(&action);
        }
        lock(&self.actions).push(action);
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
        self.cancel.load(Ordering::Relaxed) || Instant::now() >= *lock(&self.deadline)
    }

    /// Stops the running snippet at its next operation (Ctrl-C, a closing session).
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// A persistent, locked-down Rhai session.
pub struct Sandbox {
    engine: Engine,
    scope: Scope<'static>,
    /// The `fn` definitions kept from earlier snippets (statements are dropped).
    lib: AST,
    shared: Arc<Shared>,
    limits: Limits,
    /// Appended to "function not found" errors (the session names its tools).
    function_hint: String,
    /// One long-lived thread with a deep stack that runs every snippet (starting a
    /// thread per snippet cost 70 µs, most of a 10-call snippet's budget).
    worker: Option<rayon::ThreadPool>,
}

impl Drop for Sandbox {
    /// Script values are dropped on the deep-stack worker too (a deeply nested array
    /// drops recursively).
    fn drop(&mut self) {
        let scope = std::mem::replace(&mut self.scope, Scope::new());
        if let Some(pool) = &self.worker {
            pool.install(move || drop(scope));
        }
    }
}

fn stop(token: &str) -> Box<EvalAltResult> {
    EvalAltResult::ErrorTerminated(Dynamic::from(token.to_string()), Position::NONE).into()
}

impl Sandbox {
    pub fn new(limits: Limits) -> Result<Self, String> {
        limits.validate()?;
        let shared = Arc::new(Shared::new(limits.max_output));
        let mut engine = Engine::new_raw();
        engine.register_global_module(rhai::packages::StandardPackage::new().as_shared_module());
        engine.set_module_resolver(rhai::module_resolvers::DummyModuleResolver::new());
        engine.set_max_modules(0);
        engine.disable_symbol("eval");
        engine.set_max_operations(limits.max_operations);
        engine.set_max_call_levels(limits.max_call_levels);
        engine.set_max_expr_depths(limits.max_expr_depth, limits.max_expr_depth);
        engine.set_max_string_size(limits.max_string_size);
        engine.set_max_array_size(limits.max_array_size);
        engine.set_max_map_size(limits.max_map_size);
        engine.set_max_variables(limits.max_variables);
        engine.set_max_functions(limits.max_functions);

        let s = shared.clone();
        engine.on_print(move |text| s.print(text));
        let s = shared.clone();
        engine.on_debug(move |text, _, pos| match pos.line() {
            Some(l) => s.print(&format!("[line {l}] {text}")),
            None => s.print(text),
        });
        let s = shared.clone();
        engine.on_progress(move |ops| {
            (ops % CLOCK_EVERY == 0 && s.must_stop()).then(|| Dynamic::from(STOP_TIMEOUT.to_string()))
        });
        // The package's `sleep` cannot be interrupted; this one honours the deadline.
        for_each_sleep(&mut engine, shared.clone());
        let s = shared.clone();
        engine.register_fn("complete", move |success: bool| -> Result<(), Box<EvalAltResult>> {
            complete(&s, success, "")
        });
        let s = shared.clone();
        engine.register_fn("complete", move |success: bool, reason: &str| -> Result<(), Box<EvalAltResult>> {
            complete(&s, success, reason)
        });
        let worker = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .stack_size(SCRIPT_STACK)
            .thread_name(|_| "codeact-script".into())
            .build()
            .ok();
        Ok(Self {
            engine,
            scope: Scope::new(),
            lib: AST::empty(),
            shared,
            limits,
            function_hint: String::new(),
            worker,
        })
    }

    /// For the tool catalog: register functions before the first snippet.
    pub fn engine_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }

    /// Text added to every "function not found" error, e.g. the tools that exist.
    pub fn set_function_hint(&mut self, hint: String) {
        self.function_hint = hint;
    }

    pub fn shared(&self) -> Arc<Shared> {
        self.shared.clone()
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Sets (or replaces) a variable every later snippet sees, e.g. `ui_state`.
    pub fn set_var(&mut self, name: &str, value: Dynamic) {
        self.scope.set_or_push(name.to_string(), value);
    }

    /// Names of the variables the session holds.
    pub fn vars(&self) -> Vec<String> {
        self.scope.iter().map(|(name, _, _)| name.to_string()).collect()
    }

    /// Each variable with its value, shortened to `width` characters.
    pub fn var_summaries(&self, width: usize) -> Vec<(String, String)> {
        self.scope
            .iter()
            .map(|(name, _, value)| {
                let shown = format!("{value:?}");
                let short: String = shown.chars().take(width).collect();
                let shown = if short.len() < shown.len() { format!("{short}…") } else { short };
                (name.to_string(), format!("{shown} ({})", value.type_name()))
            })
            .collect()
    }

    /// Forgets every variable and `fn` definition.
    pub fn reset(&mut self) {
        let (scope, lib) = (&mut self.scope, &mut self.lib);
        let mut clear = move || {
            scope.clear();
            *lib = AST::empty();
        };
        match &self.worker {
            Some(pool) => pool.install(clear),
            None => clear(),
        }
    }

    /// Parses `code` without running it.
    pub fn check(&self, code: &str) -> Result<(), RunError> {
        let compile = || self.engine.compile_with_scope(&self.scope, code).map(drop);
        let result = match &self.worker {
            Some(pool) => pool.install(compile),
            None => compile(),
        };
        result.map_err(|e| parse_error(&e, code))
    }

    /// Runs one snippet under every limit; variables and `fn`s persist.
    pub fn run(&mut self, code: &str) -> RunResult {
        let started = Instant::now();
        *lock(&self.shared.output) = (String::new(), false);
        lock(&self.shared.actions).clear();
        *lock(&self.shared.completion) = None;
        *lock(&self.shared.started) = started;
        *lock(&self.shared.deadline) = started + self.limits.timeout();
        self.shared.cancel.store(false, Ordering::Relaxed);

        // Everything that walks script values (parsing, running, printing the value,
        // tidying the scope) happens on the deep-stack worker: a deeply nested value
        // would overflow a small caller's stack (a tokio worker has 2 MiB).
        let (engine, scope, lib, max_output) = (&self.engine, &mut self.scope, &mut self.lib, self.limits.max_output);
        let work = move || {
            let ran = match engine.compile_with_scope(scope, code) {
                Err(e) => Ran::Parse(e),
                Ok(ast) => {
                    let mut program = lib.clone();
                    program += ast;
                    let out = engine.eval_ast_with_scope::<Dynamic>(scope, &program);
                    program.clear_statements();
                    *lib = program;
                    match out {
                        Ok(v) => Ran::Value((!v.is_unit()).then(|| shown(&v, max_output))),
                        Err(e) => Ran::Eval(e),
                    }
                }
            };
            dedupe(scope);
            ran
        };
        let outcome = match &self.worker {
            Some(pool) => pool.install(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))),
            None => std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)),
        };
        let mut value = None;
        let error = match outcome {
            Ok(Ran::Value(v)) => {
                value = v;
                None
            }
            Ok(Ran::Parse(e)) => Some(parse_error(&e, code)),
            Ok(Ran::Eval(e)) => self.eval_error(&e, code),
            Err(_) => Some(plain("the snippet crashed its worker thread (a bug in codeact: please report it)")),
        };
        let (output, _) = std::mem::take(&mut *lock(&self.shared.output));
        RunResult {
            output,
            error,
            actions: std::mem::take(&mut *lock(&self.shared.actions)),
            completion: lock(&self.shared.completion).take(),
            value,
            duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        }
    }

    fn eval_error(&self, e: &EvalAltResult, code: &str) -> Option<RunError> {
        let inner = e.unwrap_inner();
        let l = &self.limits;
        let message = match inner {
            EvalAltResult::ErrorTerminated(token, _) if token.to_string() == STOP_COMPLETE => return None,
            EvalAltResult::ErrorTerminated(token, _) if token.to_string() == STOP_TIMEOUT => {
                if self.shared.cancel.load(Ordering::Relaxed) {
                    "the snippet was cancelled".to_string()
                } else {
                    format!("the snippet ran past its time limit of {:.1} s", l.timeout().as_secs_f64())
                }
            }
            EvalAltResult::ErrorTooManyOperations(_) => {
                format!("the snippet exceeded {} operations (an endless loop?)", l.max_operations)
            }
            EvalAltResult::ErrorStackOverflow(_) => {
                format!("calls nested deeper than {} levels (endless recursion?)", l.max_call_levels)
            }
            EvalAltResult::ErrorDataTooLarge(what, _) => format!(
                "{what} grew past its limit (strings {} bytes, arrays {} items, maps {} entries)",
                l.max_string_size, l.max_array_size, l.max_map_size
            ),
            EvalAltResult::ErrorFunctionNotFound(..) if !self.function_hint.is_empty() => {
                format!("{}; {}", strip_position(&inner.to_string()), self.function_hint)
            }
            other => strip_position(&other.to_string()),
        };
        // The outer error points at the call site in this snippet; inner ones may
        // point into a function defined earlier.
        let pos = if e.position().is_none() { inner.position() } else { e.position() };
        Some(located(message, pos, code))
    }
}

/// True when `code` fails to parse only because it stops early (an open block, a
/// missing operand, an unterminated string): the REPL then reads another line.
pub fn is_incomplete(code: &str) -> bool {
    use rhai::{LexError, ParseErrorType as P};
    let engine = Engine::new_raw();
    let Err(e) = engine.compile(code) else { return false };
    // At the end means past the last character that is not white space.
    let trimmed = code.trim_end();
    let last_line = trimmed.lines().count().max(1);
    let last_len = trimmed.lines().last().map_or(0, |l| l.chars().count());
    let pos = e.position();
    let at_end = match (pos.line(), pos.position()) {
        (None, _) => true,
        (Some(l), _) if l > last_line => true,
        (Some(l), Some(c)) => l == last_line && c > last_len,
        (Some(l), None) => l == last_line,
    };
    match e.err_type() {
        P::UnexpectedEOF => true,
        P::BadInput(LexError::UnterminatedString) => true,
        P::MissingToken(..) | P::MissingSymbol(..) | P::ExprExpected(..) => at_end,
        _ => false,
    }
}

/// How a snippet ended on the worker.
enum Ran {
    Parse(ParseError),
    Eval(Box<EvalAltResult>),
    /// The last expression's value, as shown to the caller.
    Value(Option<String>),
}

/// A value as Rhai prints it, cut at `max` bytes.
fn shown(v: &Dynamic, max: usize) -> String {
    let mut shown = format!("{v:?}");
    if shown.len() > max {
        let mut cut = max;
        while !shown.is_char_boundary(cut) {
            cut -= 1;
        }
        shown.truncate(cut);
        shown.push_str(" [cut]");
    }
    shown
}

/// `let x` in two snippets leaves two `x`s in a kept scope: keep the newest.
fn dedupe(scope: &mut Scope<'static>) {
    let entries: Vec<(String, bool, Dynamic)> = scope.iter().map(|(n, c, v)| (n.to_string(), c, v)).collect();
    let mut seen = std::collections::HashSet::new();
    let mut kept: Vec<(String, bool, Dynamic)> =
        entries.into_iter().rev().filter(|(n, _, _)| seen.insert(n.clone())).collect();
    kept.reverse();
    scope.clear();
    for (name, constant, value) in kept {
        if constant {
            scope.push_constant_dynamic(name, value);
        } else {
            scope.push_dynamic(name, value);
        }
    }
}

fn complete(shared: &Shared, success: bool, reason: &str) -> Result<(), Box<EvalAltResult>> {
    if !success && reason.trim().is_empty() {
        return Err("complete(false) needs a reason: complete(false, \"why it failed\")".into());
    }
    *lock(&shared.completion) = Some(Completion { success, reason: reason.to_string() });
    Err(stop(STOP_COMPLETE))
}

fn for_each_sleep(engine: &mut Engine, shared: Arc<Shared>) {
    let wait = move |secs: f64| -> Result<(), Box<EvalAltResult>> {
        if !secs.is_finite() || secs < 0.0 {
            return Err("sleep() needs a number of seconds ≥ 0".into());
        }
        let until = Instant::now() + Duration::from_secs_f64(secs.min(86_400.0));
        while Instant::now() < until {
            if shared.must_stop() {
                return Err(stop(STOP_TIMEOUT));
            }
            std::thread::sleep(until.saturating_duration_since(Instant::now()).min(Duration::from_millis(20)));
        }
        Ok(())
    };
    let w = wait.clone();
    engine.register_fn("sleep", move |secs: f64| w(secs));
    engine.register_fn("sleep", move |secs: i64| wait(secs as f64));
}

fn plain(message: &str) -> RunError {
    RunError { message: message.into(), line: None, column: None, source_line: None }
}

/// Rhai appends ` (line L, position C)`, reported separately here, and prefixes
/// errors thrown by functions with `Runtime error: `, which says nothing.
fn strip_position(message: &str) -> String {
    let message = message.strip_prefix("Runtime error: ").unwrap_or(message);
    match message.rfind(" (line ") {
        Some(i) if message.ends_with(')') => message[..i].to_string(),
        _ => message.to_string(),
    }
}

fn located(message: String, pos: Position, code: &str) -> RunError {
    let line = pos.line();
    RunError {
        message,
        line,
        column: pos.position(),
        source_line: line.and_then(|l| code.lines().nth(l.saturating_sub(1))).map(str::to_string),
    }
}

fn parse_error(e: &ParseError, code: &str) -> RunError {
    let message = strip_position(&e.err_type().to_string());
    located(format!("syntax error: {message}"), e.position(), code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_and_functions_persist() {
        let mut sb = Sandbox::new(Limits::default()).unwrap();
        assert!(sb.run("let n = 40; fn twice(x) { x * 2 }").ok());
        let r = sb.run("let n = n + 1; print(twice(n));");
        assert_eq!((r.output.as_str(), r.error.is_none()), ("82\n", true));
        for _ in 0..50 {
            assert!(sb.run("let n = 1;").ok());
        }
        assert_eq!(sb.vars(), ["n"], "re-declared variables do not pile up");
    }

    #[test]
    fn errors_carry_line_column_and_source() {
        let sb = Sandbox::new(Limits::default()).unwrap();
        let err = sb.check("let a = 1;\nlet b = ;").unwrap_err();
        assert_eq!(err.line, Some(2));
        assert_eq!(err.source_line.as_deref(), Some("let b = ;"));
        let mut sb = sb;
        let r = sb.run("let x = 1;\nx.no_such_method();");
        let e = r.error.unwrap();
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("no_such_method"), "{}", e.message);
        assert!(e.to_string().contains('^'));
    }

    #[test]
    fn unfinished_input_is_told_from_wrong_input() {
        for code in ["fn f(x) {", "let a = [1,\n2", "if true {\n print(1);", "let s = \"abc", "let x = 1 +"] {
            assert!(is_incomplete(code), "{code:?} is unfinished");
        }
        for code in ["let x = 1;", "fn f(x) { x }", "let = 3;", "print(1))", "let x = 1 + ;", ""] {
            assert!(!is_incomplete(code), "{code:?} is finished (or plainly wrong)");
        }
    }

    #[test]
    fn complete_ends_the_snippet() {
        let mut sb = Sandbox::new(Limits::default()).unwrap();
        let r = sb.run("print(\"a\"); complete(true, \"done\"); print(\"never\");");
        assert_eq!(r.output, "a\n");
        assert_eq!(r.completion, Some(Completion { success: true, reason: "done".into() }));
        assert!(r.ok());
        let r = sb.run("complete(false);");
        assert!(r.error.unwrap().message.contains("needs a reason"));
        let r = sb.run("complete(false, \"no wifi\");");
        assert!(!r.ok() && r.error.is_none());
    }
}
