//! The sandboxed Rhai engine: one persistent session that compiles and runs snippets
//! (from an LLM or a person) under operation, time, depth, size and output limits,
//! keeping variables and `fn` definitions from one snippet to the next.
//!
//! Built from `Engine::new_raw()` plus the pure standard packages: no module
//! resolver, no `eval`, no file, network or process access; `sleep` honours the
//! deadline and a cancel. Host functions (the tool catalog) are registered on the
//! [`SandboxBuilder`] before the engine moves onto its worker thread (`engine_thread.rs`);
//! they record what they do and how they fail through [`Shared`]. How a snippet's
//! end becomes a [`RunError`] is `snippet_end.rs`'s; what its text must be, `source.rs`'s;
//! `sleep`, `sleep.rs`'s. This module knows no device and no tool.

mod action;
mod callbacks;
mod calls;
mod engine_thread;
mod error;
mod json;
mod limits;
mod loading;
mod session;
mod shared;
mod sized;
mod sleep;
mod slip;
mod snippet_end;
pub(crate) mod source;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use rhai::packages::Package;
use rhai::{AST, Dynamic, Engine, EvalAltResult, Scope};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

pub use action::{
    ALREADY_DONE, ARG_BYTES, ARGS_NOT_KEPT, Action, ActionSink, Capture, Located, Resolved, Screen, Toggled,
};
pub use calls::UnknownCall;
pub use engine_thread::EngineThreadError;
pub use error::{ErrorKind, FailureKind, Limit, RunError};
pub use limits::{LIMIT_NAMES, LIMIT_RANGES, LimitError, Limits};
pub use session::{Compiled, Sandbox};
pub use shared::{CancelHandle, Completion, KEPT_ACTIONS, NoticeSink, SNIPPET_ARG_BYTES, Shared, Stopped};

use engine_thread::{EngineState, EngineThread};
pub use shared::{STOP_COMPLETE, STOP_TIMEOUT, stop_error};
pub(crate) use sleep::register_sleep;
pub use slip::near;
use snippet_end::Judge;
pub use source::{is_incomplete, is_variable_name};

/// How a snippet's value is given back: as Rhai prints it (the REPL, reports), or
/// as JSON text (a server answering a client in JSON: `execute_driver`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValueForm {
    #[default]
    Rhai,
    Json,
}

/// The most modules a script's imports may bring in.
pub const MAX_MODULES: usize = 64;

/// Why a sandbox could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("invalid limits")]
    Limits(#[from] LimitError),
    #[error(transparent)]
    EngineThread(#[from] EngineThreadError),
}

impl Compiled {
    /// The code as it was written.
    pub fn source(&self) -> &str {
        &self.source
    }
}

/// What one snippet did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RunResult {
    /// Captured `print`/`debug` output (bounded).
    pub output: String,
    pub error: Option<RunError>,
    /// The calls the snippet made, up to [`KEPT_ACTIONS`].
    pub actions: Vec<Action>,
    /// Calls past those, counted only.
    #[serde(skip_serializing_if = "is_zero")]
    pub more_actions: usize,
    pub completion: Option<Completion>,
    /// The value of the snippet's last expression, when it has one (not `()`), as
    /// Rhai prints it (bounded like output).
    pub value: Option<String>,
    pub duration_ms: f64,
}

impl RunResult {
    /// No error, and no `complete(false, ..)`.
    pub fn ok(&self) -> bool {
        self.error.is_none() && self.completion.as_ref().is_none_or(|c| c.success)
    }

    /// The first `max` actions, for a listing, with the line that says how many more
    /// calls there were ("… and 49,990 more calls"), when there were.
    pub fn listed_actions(&self, max: usize) -> (&[Action], Option<String>) {
        let shown = &self.actions[..self.actions.len().min(max)];
        let hidden = self.actions.len() - shown.len() + self.more_actions;
        let more = (hidden > 0).then(|| {
            let calls = if hidden == 1 { "call" } else { "calls" };
            format!("… and {} more {calls}", thousands(hidden))
        });
        (shown, more)
    }
}

/// How many actions a listing shows (the REPL, `exec`, `run`, the model's feedback).
pub const LISTED_ACTIONS: usize = 50;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// `49990` as `49,990`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// An engine being set up: limits applied, built-ins in place, host functions still
/// to be registered. [`start`](Self::start) moves it onto its worker thread.
pub struct SandboxBuilder {
    engine: Engine,
    shared: Arc<Shared>,
    limits: Limits,
    protected: std::collections::BTreeSet<String>,
    forms: std::collections::BTreeMap<String, Vec<String>>,
}

impl SandboxBuilder {
    /// For the tool catalog: register host functions before the first snippet.
    pub fn engine_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }

    pub fn shared(&self) -> Arc<Shared> {
        self.shared.clone()
    }

    /// Makes `name` a function scripts may not define (a tool): a snippet that does
    /// is refused before it runs, naming it.
    pub fn protect(&mut self, name: &str) {
        self.protected.insert(name.to_string());
    }

    /// Adds `form` (`tap(x, y)`) to how the errors of a call to `name` with other
    /// arguments name the ways to call it.
    pub fn document(&mut self, name: &str, form: &str) {
        let forms = self.forms.entry(name.to_string()).or_default();
        if !forms.iter().any(|f| f == form) {
            forms.push(form.to_string());
        }
    }

    /// Starts the worker. `function_hint` is added to every "function not found"
    /// error (the session names the tools that exist).
    pub fn start(self, function_hint: String) -> Result<Sandbox, SandboxError> {
        let state =
            EngineState { engine: self.engine, scope: Scope::new(), lib: AST::empty(), fn_sources: HashMap::new() };
        let worker = EngineThread::start(state)?;
        self.shared.set_worker(worker.thread());
        let judge = Judge {
            shared: self.shared.clone(),
            limits: self.limits.clone(),
            function_hint,
            protected: self.protected,
            forms: self.forms,
        };
        Ok(Sandbox { worker, shared: self.shared, limits: self.limits, judge })
    }
}

impl Sandbox {
    /// An engine with `limits` and the built-ins (`print`, `debug`, a deadline-aware
    /// `sleep`), ready for host functions.
    pub fn builder(limits: Limits) -> Result<SandboxBuilder, SandboxError> {
        limits.validate()?;
        let shared = Arc::new(Shared::new(&limits));
        let mut engine = Engine::new_raw();
        engine.register_global_module(rhai::packages::StandardPackage::new().as_shared_module());
        callbacks::register(&mut engine);
        sized::register(&mut engine);
        json::register(&mut engine);
        engine.set_module_resolver(rhai::module_resolvers::DummyModuleResolver::new());
        engine.set_max_modules(0);
        engine.disable_symbol("eval");
        // Counted by `Shared::tick` instead, callbacks of built-ins included.
        engine.set_max_operations(0);
        engine.set_max_call_levels(limits.max_call_levels);
        engine.set_max_expr_depths(limits.max_expr_depth, limits.max_expr_depth);
        engine.set_max_string_size(limits.max_string_size);
        engine.set_max_array_size(limits.max_array_size);
        engine.set_max_map_size(limits.max_map_size);
        engine.set_max_variables(limits.max_variables);
        engine.set_max_functions(limits.max_functions);

        let s = shared.clone();
        engine.on_print(move |text| {
            s.print(text);
        });
        let s = shared.clone();
        engine.on_debug(move |text, _, pos| {
            match pos.line() {
                Some(l) => s.print(&format!("[line {l}] {text}")),
                None => s.print(text),
            };
        });
        let s = shared.clone();
        engine.on_progress(move |_| s.tick(|| ()));
        let s = shared.clone();
        register_sleep(&mut engine, s.clone(), move |wanted| s.pause(wanted));
        let protected = ["sleep".to_string()].into();
        Ok(SandboxBuilder { engine, shared, limits, protected, forms: Default::default() })
    }

    /// A sandbox with no host functions (the built-ins only).
    pub fn new(limits: Limits) -> Result<Self, SandboxError> {
        Self::builder(limits)?.start(String::new())
    }

    pub fn shared(&self) -> Arc<Shared> {
        self.shared.clone()
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Stops a running snippet from another thread.
    pub fn cancel_handle(&self) -> CancelHandle {
        CancelHandle(self.shared.clone())
    }

    /// Every snippet from now on stops when `token` is cancelled (as well as by
    /// [`CancelHandle::cancel`]).
    pub fn stop_on(&self, token: CancellationToken) {
        self.shared.stop_on(token);
    }

    /// Sets (or replaces) a variable every later snippet sees.
    pub fn set_var(&mut self, name: &str, value: Dynamic) -> Result<(), EngineThreadError> {
        let name = name.to_string();
        self.worker.submit(move |s| {
            s.scope.set_or_push(name, value);
        })
    }

    /// Names of the variables the session holds.
    pub fn vars(&self) -> Vec<String> {
        self.worker.submit(|s| s.scope.iter().map(|(name, _, _)| name.to_string()).collect()).unwrap_or_default()
    }

    /// Each variable with its value, shortened to `width` characters, and its type.
    pub fn var_summaries(&self, width: usize) -> Vec<(String, String)> {
        self.worker
            .submit(move |s| {
                s.scope
                    .iter()
                    .map(|(name, _, value)| {
                        let shown = format!("{value:?}");
                        let short: String = shown.chars().take(width).collect();
                        let shown = if short.len() < shown.len() { format!("{short}…") } else { short };
                        (name.to_string(), format!("{shown} ({})", value.type_name()))
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Forgets every variable and `fn` definition.
    pub fn reset(&mut self) -> Result<(), EngineThreadError> {
        self.worker.submit(|s| {
            s.scope.clear();
            s.lib = AST::empty();
            s.fn_sources.clear();
        })
    }

    /// Runs `f` on the engine's own thread, where every call it makes on this sandbox
    /// runs inline (no hand-over per snippet): for a process that does nothing but
    /// serve one sandbox.
    pub fn serve_on_engine_thread<R: Send>(&mut self, f: impl FnOnce(&mut Self) -> R + Send) -> R {
        let pool = self.worker.pool();
        pool.install(|| f(self))
    }

    /// Parses `code` once; the result runs with [`run`](Self::run).
    pub fn compile(&self, code: &str) -> Result<Compiled, RunError> {
        let code = source::checked(code)?;
        let source: Arc<str> = Arc::from(code);
        let judge = &self.judge;
        let parsed = self.worker.submit(|s| judge.parse(&s.engine, code));
        match parsed {
            Ok(Ok(ast)) => Ok(Compiled { ast: Arc::new(ast), source }),
            Ok(Err(e)) => Err(e),
            Err(e) => Err(RunError::plain(e.to_string(), ErrorKind::Crashed)),
        }
    }

    /// Runs a compiled snippet under every limit; variables and `fn`s persist.
    pub fn run(&mut self, code: &Compiled) -> RunResult {
        let started = self.shared.begin(self.limits.timeout());
        let judge = &self.judge;
        let ran = self.worker.submit(|s| execute(s, &code.ast, judge, &code.source));
        self.finish(started, ran)
    }

    /// Compiles and runs `code` in one go on the worker (a syntax error is the
    /// result's error): scripts and the REPL, which run what they parse at once.
    pub fn eval(&mut self, code: &str) -> RunResult {
        self.eval_as(code, ValueForm::Rhai)
    }

    /// [`eval`](Self::eval), the value given back in `form`.
    pub fn eval_as(&mut self, code: &str, form: ValueForm) -> RunResult {
        let started = self.shared.begin(self.limits.timeout());
        let judge = &self.judge;
        let ran = self.worker.submit(|s| match source::checked(code) {
            Ok(code) => match judge.parse(&s.engine, code) {
                Ok(ast) => execute_as(s, &ast, judge, code, form),
                Err(e) => (Some(e), None),
            },
            Err(e) => (Some(e), None),
        });
        self.finish(started, ran)
    }

    /// What the snippet left in the shared state, with how it ended.
    fn finish(
        &self,
        started: Instant,
        ran: Result<(Option<RunError>, Option<String>), EngineThreadError>,
    ) -> RunResult {
        let (error, value) = match ran {
            Ok(pair) => pair,
            Err(EngineThreadError::Crashed(what)) => (Some(self.after_panic(&what)), None),
            Err(e) => (Some(RunError::plain(e.to_string(), ErrorKind::Crashed)), None),
        };
        let (output, actions, more_actions, completion) = self.shared.collect();
        let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
        RunResult { output, error, actions, more_actions, completion, value, duration_ms }
    }
}

impl Sandbox {
    /// A panic inside the engine (a bug in rhai or a host function) stopped the
    /// snippet: the session goes on without the variables the panic left unusable
    /// (a value whose lock was held when it struck stays locked for ever), and the
    /// snippet fails with a script error that says so. Only when the engine's state
    /// itself is gone is it a crash (the worker process then starts afresh).
    fn after_panic(&self, what: &str) -> RunError {
        let dropped = self.worker.submit(|s| {
            // Read raw: reading a poisoned value's contents would panic again.
            let mut broken = Vec::new();
            let mut kept = Vec::new();
            for (name, constant, value) in s.scope.iter_raw() {
                if value.is_locked() {
                    broken.push(name.to_string());
                } else {
                    kept.push((name.to_string(), constant, value.clone()));
                }
            }
            s.scope.clear();
            for (name, constant, value) in kept {
                if constant {
                    s.scope.push_constant_dynamic(name, value);
                } else {
                    s.scope.push_dynamic(name, value);
                }
            }
            dedupe(&mut s.scope);
            broken.dedup();
            broken
        });
        match dropped {
            Ok(dropped) => {
                let lost = match dropped.len() {
                    0 => String::new(),
                    _ => format!("; variables it left unusable are gone: {}", dropped.join(", ")),
                };
                RunError::plain(
                    format!(
                        "the engine failed inside this snippet ({what}), a bug in rhai or codeact; the snippet stopped there and the session goes on{lost}"
                    ),
                    ErrorKind::Script,
                )
            }
            Err(e) => RunError::plain(e.to_string(), ErrorKind::Crashed),
        }
    }
}

/// Runs `ast` after the kept `fn`s, keeps its `fn`s, and turns its value or error
/// into strings here, on the deep stack.
fn execute(s: &mut EngineState, ast: &AST, judge: &Judge, source: &str) -> (Option<RunError>, Option<String>) {
    execute_as(s, ast, judge, source, ValueForm::Rhai)
}

/// [`execute`], the value written in `form`.
fn execute_as(
    s: &mut EngineState,
    ast: &AST,
    judge: &Judge,
    source: &str,
    form: ValueForm,
) -> (Option<RunError>, Option<String>) {
    // Only a snippet that defines functions keeps its source (errors in them quote it).
    if ast.iter_functions().next().is_some() {
        let defined: Arc<str> = Arc::from(source);
        for f in ast.iter_functions() {
            s.fn_sources.insert(f.name.to_string(), defined.clone());
        }
    }
    let mut program = s.lib.merge(ast);
    let out = s.engine.eval_ast_with_scope::<Dynamic>(&mut s.scope, &program);
    program.clear_statements();
    s.lib = program;
    dedupe(&mut s.scope);
    // A stop that a built-in swallowed (or that came as the snippet ended) still
    // ends it as that stop.
    let out = match (out, judge.shared.halted()) {
        (Err(e), _) if matches!(e.unwrap_inner(), EvalAltResult::ErrorTerminated(..)) => Err(e),
        (_, Some(token)) => Err(stop_error(token)),
        (out, None) => out,
    };
    match out {
        Ok(v) if form == ValueForm::Json => match json::value_text(&v, judge.limits.max_output) {
            Ok(text) => (None, Some(text)),
            Err(why) => (Some(RunError::plain(why, ErrorKind::Script)), None),
        },
        Ok(v) => (None, (!v.is_unit()).then(|| shown(&v, judge.limits.max_output))),
        Err(e) => (judge.error(&e, source, &s.fn_sources), None),
    }
}

/// A value as Rhai prints it, cut at `max` bytes.
fn shown(v: &Dynamic, max: usize) -> String {
    let mut shown = format!("{v:?}");
    if shown.len() > max {
        shown.truncate(shown.floor_char_boundary(max));
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

#[cfg(test)]
mod tests;
