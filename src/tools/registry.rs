//! How a [`ToolSpec`](super::ToolSpec)'s behaviour gets into the engine: each spec's
//! `register` function hands its overloads to a [`Registrar`] with the [`tool!`]
//! macro, which wraps every one in [`call`] (lock the context, bound the device by
//! the snippet's deadline, record the action, turn a [`ToolError`] into a classified
//! script error); the registrar notes the name and arity of each, so a test can hold
//! registrations to the docs.
//!
//! `ui_state` and `phone_state` are served here too, as variables read live.

use std::sync::Arc;
use std::time::Instant;

use rhai::{Engine, EvalAltResult};

use super::context::{SharedContext, ToolContext, lock};
use super::error::ToolError;
use crate::error_text::full_message;
use crate::sandbox::{Capture, FailureKind, Shared};

type ScriptResult<T> = Result<T, Box<EvalAltResult>>;

/// Registers the overloads of one tool.
pub struct Registrar<'a> {
    engine: &'a mut Engine,
    ctx: SharedContext,
    shared: Arc<Shared>,
    tool: &'static str,
    registered: &'a mut Vec<(&'static str, usize)>,
}

/// Registers one overload of the tool a [`Registrar`] is on:
/// `tool!(r, |c, x: Dynamic, y: Dynamic| body)`, where `c` is the locked
/// [`ToolContext`] and `body` returns `Result<T, ToolError>`. The call goes through
/// [`call`]; its arguments are recorded as Rhai literals.
macro_rules! tool {
    ($r:expr, |$c:ident $(, $arg:ident : $ty:ty)*| $body:expr) => {{
        let (engine, ctx, shared, tool) = $r.overload(<[&str]>::len(&[$(stringify!($arg)),*]));
        engine.register_fn(tool, move |$($arg: $ty),*| {
            let args: Vec<String> = vec![$(format!("{:?}", $arg)),*];
            $crate::tools::registry::call(&ctx, &shared, tool, args, |$c: &mut $crate::tools::ToolContext| $body)
        });
    }};
}
pub(crate) use tool;

impl<'a> Registrar<'a> {
    pub(crate) fn new(
        engine: &'a mut Engine,
        ctx: SharedContext,
        shared: Arc<Shared>,
        registered: &'a mut Vec<(&'static str, usize)>,
    ) -> Self {
        Self { engine, ctx, shared, tool: "", registered }
    }

    /// The tool the next overloads belong to.
    pub(crate) fn for_tool(&mut self, name: &'static str) -> &mut Self {
        self.tool = name;
        self
    }

    /// For one overload of the current tool: the engine to register it in, what the
    /// call needs, and a note of its arity.
    pub(crate) fn overload(&mut self, arity: usize) -> (&mut Engine, SharedContext, Arc<Shared>, &'static str) {
        self.registered.push((self.tool, arity));
        (self.engine, self.ctx.clone(), self.shared.clone(), self.tool)
    }

    /// For a tool that is not a device call (it records no action): the engine, the
    /// shared state, and a note of the arity it registers.
    pub(crate) fn host(&mut self, arity: usize) -> (&mut Engine, Arc<Shared>, &'static str) {
        self.registered.push((self.tool, arity));
        (self.engine, self.shared.clone(), self.tool)
    }
}

/// Runs one tool call: locks the context, bounds the device by the snippet's
/// deadline, records the call (with whatever it captured), and turns an error into a
/// script error that names the tool and says how it failed. Every device tool goes
/// through here.
pub(crate) fn call<T>(
    ctx: &SharedContext,
    shared: &Shared,
    tool: &str,
    args: Vec<String>,
    body: impl FnOnce(&mut ToolContext) -> Result<T, ToolError>,
) -> ScriptResult<T> {
    let started = Instant::now();
    let deadline = started + shared.time_left();
    let mut c = lock(ctx);
    c.capture = Capture::default();
    let result = c.bounded(deadline, body);
    let capture = std::mem::take(&mut c.capture);
    drop(c);
    match result {
        Ok(value) => {
            shared.record(tool, args, Ok(()), started, capture);
            Ok(value)
        }
        Err(e) => {
            let (mut kind, mut message) = (e.kind(), full_message(&e));
            // A call that ran out of time failed because of the limit, whatever the
            // device said about it.
            if Instant::now() >= deadline && kind != FailureKind::Cancelled {
                kind = FailureKind::TimeLimit;
                message.push_str(" (stopped at the snippet's time limit)");
            }
            shared.record(tool, args, Err((kind, message.clone())), started, capture);
            Err(shared.fail(tool, kind, format!("{tool}: {message}")))
        }
    }
}

/// `ui_state` and `phone_state`: variables that always show the session's snapshot.
/// The first read observes, and that read too ends by the snippet's deadline.
pub(crate) fn serve_state_variables(engine: &mut Engine, ctx: SharedContext, shared: Arc<Shared>) {
    // Marked deprecated only as "volatile"; it is the way to serve live variables.
    #[allow(deprecated)]
    engine.on_var(move |name, _, _| match name {
        "ui_state" | "phone_state" => {
            let mut c = lock(&ctx);
            let deadline = Instant::now() + shared.time_left();
            let value = c.bounded(deadline, |c| if name == "ui_state" { c.ui_value() } else { c.phone_value() });
            drop(c);
            value.map(Some).map_err(|e| {
                let kind = if Instant::now() >= deadline { FailureKind::TimeLimit } else { FailureKind::Device };
                shared.fail(name, kind, format!("reading {name}: {}", full_message(&e)))
            })
        }
        _ => Ok(None),
    });
}
