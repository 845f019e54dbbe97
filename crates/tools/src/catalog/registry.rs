//! How a [`ToolSpec`](crate::ToolSpec)'s behaviour becomes callable: each spec's
//! `register` function hands its overloads to a [`Registrar`] with the [`tool!`]
//! macro, which wraps every one in [`call`] (lock the context, bound the device by
//! the snippet's deadline, record the action, turn a [`ToolError`] into a classified
//! script error). The overloads land in a [`ToolTable`]: the sandbox worker registers
//! a stand-in with each one's name and parameter types, and the session runs the
//! real one when the stand-in is called.
//!
//! `ui_state` and `phone_state` are read here too ([`state_value`]).

use std::sync::Arc;
use std::time::Instant;

use rhai::{Dynamic, EvalAltResult, ImmutableString};

use crate::context::{SharedContext, ToolContext, lock};
use crate::declaration::Gate;
use crate::error::ToolError;
use codeact_base::error_text::full_message;
use codeact_engine::isolation::{Param, ToolSignature};
use codeact_engine::sandbox::{FailureKind, STOP_TIMEOUT, Shared};

type ScriptResult<T> = Result<T, Box<EvalAltResult>>;

/// The body of one overload: its arguments in, the script's value or error out.
pub type ToolFn = Box<dyn Fn(Vec<Dynamic>) -> ScriptResult<Dynamic> + Send + Sync>;

/// One overload of a tool.
pub struct Overload {
    pub tool: &'static str,
    /// The documented form of the tool this overload belongs to.
    pub form: String,
    pub params: Vec<Param>,
    call: ToolFn,
}

/// Every overload a session has, in registration order (a stand-in names one by
/// its index).
#[derive(Default)]
pub struct ToolTable {
    overloads: Vec<Overload>,
}

impl ToolTable {
    /// Each overload's name and parameter types, for the worker's stand-ins.
    pub fn signatures(&self) -> Vec<ToolSignature> {
        self.overloads
            .iter()
            .map(|o| ToolSignature { name: o.tool.to_string(), params: o.params.clone(), form: o.form.clone() })
            .collect()
    }

    /// Each (name, arity) registered, for checking against the docs.
    pub fn arities(&self) -> Vec<(&'static str, usize)> {
        self.overloads.iter().map(|o| (o.tool, o.params.len())).collect()
    }

    /// The name of overload `index`.
    pub fn tool(&self, index: usize) -> Option<&'static str> {
        self.overloads.get(index).map(|o| o.tool)
    }

    /// Runs overload `index`; `None` when there is none.
    pub fn call(&self, index: usize, args: Vec<Dynamic>) -> Option<ScriptResult<Dynamic>> {
        let o = self.overloads.get(index)?;
        if args.len() != o.params.len() {
            return Some(Err(format!("{}: wrong number of arguments", o.tool).into()));
        }
        Some((o.call)(args))
    }
}

/// A parameter type a tool may take.
pub trait ToolParam: Sized {
    const PARAM: Param;
    fn from_dynamic(d: Dynamic) -> Option<Self>;
    /// The argument as the Rhai literal a replay passes again (written by the one
    /// emitter, so a text from the screen is always data in the replay).
    fn literal(&self) -> String;
    /// Whether the argument holds a typed secret as text (a number never does:
    /// a PIN's digits may be anybody's coordinate).
    fn holds_secret(&self) -> bool {
        false
    }
}

impl ToolParam for Dynamic {
    const PARAM: Param = Param::Any;
    fn from_dynamic(d: Dynamic) -> Option<Self> {
        Some(d)
    }
    fn literal(&self) -> String {
        codeact_engine::emit::rhai::value(self).unwrap_or_else(|| {
            format!("{}a {} has no literal to replay]", codeact_engine::sandbox::ARGS_NOT_KEPT, self.type_name())
        })
    }
    fn holds_secret(&self) -> bool {
        dynamic_holds_secret(self, 0)
    }
}

/// Whether a string inside `v` (a map's or an array's, at any depth the wire allows)
/// holds a typed secret.
fn dynamic_holds_secret(v: &Dynamic, depth: usize) -> bool {
    if depth > codeact_engine::isolation::MAX_NESTING {
        return false;
    }
    if let Some(s) = v.read_lock::<ImmutableString>() {
        return codeact_base::secrets::refused_in(&s);
    }
    if let Some(items) = v.read_lock::<rhai::Array>() {
        return items.iter().any(|i| dynamic_holds_secret(i, depth + 1));
    }
    if let Some(map) = v.read_lock::<rhai::Map>() {
        return map.values().any(|i| dynamic_holds_secret(i, depth + 1));
    }
    false
}

impl ToolParam for ImmutableString {
    const PARAM: Param = Param::Str;
    fn from_dynamic(d: Dynamic) -> Option<Self> {
        d.into_immutable_string().ok()
    }
    fn literal(&self) -> String {
        codeact_engine::emit::rhai::string(self)
    }
    fn holds_secret(&self) -> bool {
        codeact_base::secrets::refused_in(self)
    }
}

impl ToolParam for i64 {
    const PARAM: Param = Param::Int;
    fn from_dynamic(d: Dynamic) -> Option<Self> {
        d.as_int().ok()
    }
    fn literal(&self) -> String {
        self.to_string()
    }
}

impl ToolParam for bool {
    const PARAM: Param = Param::Bool;
    fn from_dynamic(d: Dynamic) -> Option<Self> {
        d.as_bool().ok()
    }
    fn literal(&self) -> String {
        self.to_string()
    }
}

/// The next argument as the overload's type (the stand-in was called with that type).
pub(crate) fn take<T: ToolParam>(tool: &str, args: &mut impl Iterator<Item = Dynamic>) -> ScriptResult<T> {
    args.next().and_then(T::from_dynamic).ok_or_else(|| format!("{tool}: an argument of the wrong type").into())
}

/// Registers the overloads of one tool.
pub struct Registrar<'a> {
    table: &'a mut ToolTable,
    ctx: SharedContext,
    shared: Arc<Shared>,
    tool: &'static str,
    form: String,
    /// The gate's checks the current form's acts may pass.
    gates: &'static [Gate],
}

/// Registers one overload of the tool a [`Registrar`] is on:
/// `tool!(r, |c, x: Dynamic, y: i64| body)`, where `c` is the locked
/// [`ToolContext`] and `body` returns `Result<T, ToolError>`. The call goes through
/// [`call`]; its arguments are recorded as Rhai literals.
macro_rules! tool {
    ($r:expr, |$c:ident $(, $arg:ident : $ty:ty)*| $body:expr) => {{
        let (ctx, shared, tool, gates) = $r.context();
        let params = vec![$(<$ty as $crate::catalog::registry::ToolParam>::PARAM),*];
        $r.add(params, Box::new(move |args: Vec<rhai::Dynamic>| {
            #[allow(unused_mut, unused_variables)]
            let mut args = args.into_iter();
            $(let $arg: $ty = $crate::catalog::registry::take(tool, &mut args)?;)*
            let secret = false $(|| $crate::catalog::registry::ToolParam::holds_secret(&$arg))*;
            let shown: Vec<String> = vec![$($crate::catalog::registry::ToolParam::literal(&$arg)),*];
            $crate::catalog::registry::call(&ctx, &shared, (tool, gates), shown, secret, |$c: &mut $crate::context::ToolContext| $body)
                .map(rhai::Dynamic::from)
        }));
    }};
}
pub(crate) use tool;

impl<'a> Registrar<'a> {
    pub(crate) fn new(table: &'a mut ToolTable, ctx: SharedContext, shared: Arc<Shared>) -> Self {
        Self { table, ctx, shared, tool: "", form: String::new(), gates: &[] }
    }

    /// The tool form the next overloads belong to: its name, its signature, and the
    /// gate's checks its acts may pass.
    pub(crate) fn for_form(&mut self, tool: &'static str, form: String, gates: &'static [Gate]) -> &mut Self {
        self.tool = tool;
        self.form = form;
        self.gates = gates;
        self
    }

    /// What an overload of the current tool needs: the context, the shared state,
    /// the tool's name and the gate's checks its acts may pass.
    pub(crate) fn context(&self) -> (SharedContext, Arc<Shared>, &'static str, &'static [Gate]) {
        (self.ctx.clone(), self.shared.clone(), self.tool, self.gates)
    }

    /// Adds an overload of the current tool.
    pub(crate) fn add(&mut self, params: Vec<Param>, call: ToolFn) {
        self.table.overloads.push(Overload { tool: self.tool, form: self.form.clone(), params, call });
    }
}

/// Runs one tool call: locks the context, bounds the device by the snippet's
/// deadline, holds the call to the gate's checks its tool declared, records the call
/// (with whatever it captured), and turns an error into a script error that names
/// the tool and says how it failed. Every device tool goes through here.
pub(crate) fn call<T>(
    ctx: &SharedContext,
    shared: &Shared,
    (tool, gates): (&'static str, &'static [Gate]),
    args: Vec<String>,
    holds_secret: bool,
    body: impl FnOnce(&mut ToolContext) -> Result<T, ToolError>,
) -> ScriptResult<T> {
    // Nothing starts once the snippet must stop.
    if shared.must_stop() {
        return Err(shared.stop(STOP_TIMEOUT));
    }
    // A secret read off the screen goes nowhere as text (into a URL, a shell
    // command, another field): only type_secret types it.
    if holds_secret {
        let e = ToolError::SecretInArguments(tool.to_string());
        shared.record(tool, args, Err((e.kind(), e.to_string())), Instant::now(), Default::default());
        return Err(shared.fail(tool, e.kind(), e.to_string()));
    }
    let started = Instant::now();
    let deadline = started + shared.time_left();
    let mut c = lock(ctx);
    c.begin_call(tool, gates);
    let result = c.bounded(deadline, body);
    let capture = c.call_record().take_capture();
    drop(c);
    // Nothing ran: the worker runs the watcher's function and calls again.
    if let Err(ToolError::WatcherDue(name)) = &result {
        return Err(format!("the script's watcher {name:?} fires first").into());
    }
    // A call that ended at the deadline or by a cancel ends the snippet as the limit
    // or the cancel, whatever the device said meanwhile ("timed out" would blame the
    // phone). The action keeps what the call itself said.
    let stopped = shared.must_stop() || matches!(result, Err(ToolError::Stopped));
    let outcome = match &result {
        Ok(_) => Ok(()),
        Err(e) if stopped => {
            Err((if shared.cancelled() { FailureKind::Cancelled } else { FailureKind::TimeLimit }, full_message(e)))
        }
        Err(e) => Err((e.kind(), full_message(e))),
    };
    shared.record(tool, args, outcome, started, capture);
    match result {
        _ if stopped => Err(shared.stop(STOP_TIMEOUT)),
        Ok(value) => Ok(value),
        Err(e) => Err(shared.fail(tool, e.kind(), format!("{tool}: {}", full_message(&e)))),
    }
}

/// `ui_state` (or `phone_state`) as the session shows it now, with the generation
/// of `ui_state` (it changes whenever the snapshot does). The first read of a
/// snippet observes, and that read too ends by the snippet's deadline.
pub fn state_value(ctx: &SharedContext, shared: &Shared, phone: bool) -> (u64, ScriptResult<Dynamic>) {
    let name = if phone { "phone_state" } else { "ui_state" };
    let mut c = lock(ctx);
    let deadline = Instant::now() + shared.time_left();
    let value = c.bounded(deadline, |c| if phone { c.phone_value() } else { c.ui_value() });
    let generation = c.generation();
    drop(c);
    let value = value.map_err(|e| {
        if shared.must_stop() {
            shared.stop(STOP_TIMEOUT)
        } else {
            shared.fail(name, FailureKind::Device, format!("reading {name}: {}", full_message(&e)))
        }
    });
    (generation, value)
}

/// The generation of `ui_state` now (0 before any).
pub fn state_generation(ctx: &SharedContext) -> u64 {
    let c = lock(ctx);
    // 0 is "none yet": the worker's copy is then read again.
    if c.must_reread() { 0 } else { c.generation() }
}
