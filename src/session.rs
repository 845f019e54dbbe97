//! A session: one sandbox bound to one device through the tool catalog, with only the
//! tools a persona allows. `exec`, the REPL and the agent each open one and go
//! through this façade only: observe the phone, compile a snippet once, run it on the
//! observation it was written for, cancel it. Where the sandbox runs (a thread today)
//! and how the tools keep their state are its own business.

use std::sync::Arc;

use rhai::Dynamic;
use tokio_util::sync::CancellationToken;

use crate::config::Settings;
use crate::device::{Device, DeviceError, Observation};
use crate::sandbox::{
    ActionSink, CancelHandle, Compiled, Limits, RunError, RunResult, Sandbox, SandboxError, WorkerError,
};
use crate::tools::{self, Registered, SharedContext, ToolContext};

pub struct Session {
    sandbox: Sandbox,
    tools: SharedContext,
    tool_names: Vec<&'static str>,
    registered: Registered,
}

impl Session {
    /// A sandbox with the settings' limits and the persona's tools (all tools without
    /// a persona), acting on `device`.
    pub fn new(device: Box<dyn Device>, settings: &Settings) -> Result<Self, SandboxError> {
        let mut builder = Sandbox::builder(settings.limits.clone())?;
        let persona = settings.persona.as_ref();
        let allows = |t: &str| persona.is_none_or(|p| p.allows(t));
        let tools = ToolContext::new(device, settings.tools.clone(), builder.shared());
        let (tool_names, registered) = tools::install(&mut builder, tools.clone(), &allows);
        let hint = format!("the functions this session has: {}", tool_names.join(", "));
        let sandbox = builder.start(hint)?;
        Ok(Self { sandbox, tools, tool_names, registered })
    }

    fn tools(&self) -> std::sync::MutexGuard<'_, ToolContext> {
        self.tools.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The device's name, for messages.
    pub fn device_name(&self) -> String {
        self.tools().device_name().to_string()
    }

    /// The tools this session has, in catalog order.
    pub fn tool_names(&self) -> &[&'static str] {
        &self.tool_names
    }

    /// Each (name, arity) this session registered in its engine.
    pub fn registered(&self) -> &Registered {
        &self.registered
    }

    /// This session's tools with their docs, as the prompt and `:help` show them.
    pub fn describe_tools(&self) -> String {
        tools::describe(&|t| self.tool_names.contains(&t))
    }

    pub fn limits(&self) -> &Limits {
        self.sandbox.limits()
    }

    /// Integer coordinates are 0..N of the screen when this is N.
    pub fn coordinate_scale(&self) -> Option<u32> {
        self.tools().options.coordinate_scale
    }

    /// Reads the phone once: the tree and the phone's state, and a screenshot when
    /// asked. A dropped connection is reopened by the next call, so a failed read is
    /// tried once more. A screenshot can fail where the hierarchy does not (secure
    /// windows): the observation then says why it has none.
    pub fn observe(&mut self, screenshot: bool) -> Result<Arc<Observation>, DeviceError> {
        let mut tools = self.tools();
        let device = tools.device();
        let mut obs = device.observe().or_else(|_| device.observe())?;
        if screenshot {
            match device.screenshot() {
                Ok(png) => obs.screenshot = Some(Arc::from(png)),
                Err(e) => obs.screenshot_error = Some(Arc::new(e)),
            }
        }
        Ok(Arc::new(obs))
    }

    /// The apps a model may open: the third-party ones plus the system apps people
    /// ask for by name (Settings, Clock...); a phone's whole system list is hundreds
    /// of packages.
    pub fn apps_worth_naming(&mut self) -> Result<Vec<String>, DeviceError> {
        let mut tools = self.tools();
        let apps = tools.options.apps.clone();
        let device = tools.device();
        let all = device.list_packages(true)?;
        let third_party = device.list_packages(false).unwrap_or_default();
        Ok(all.into_iter().filter(|p| third_party.contains(p) || apps.knows(p)).collect())
    }

    /// A screenshot of the phone now.
    pub fn screenshot(&mut self) -> Result<Vec<u8>, DeviceError> {
        self.tools().device().screenshot()
    }

    /// Parses `code` once, in this session's engine.
    pub fn compile(&self, code: &str) -> Result<Compiled, RunError> {
        self.sandbox.compile(code)
    }

    /// Runs a snippet written for `seen`: `ui_state` shows it, and its indices are
    /// the ones the writer read (an action since then makes them checked).
    pub fn run(&mut self, code: &Compiled, seen: &Arc<Observation>) -> RunResult {
        self.tools().set_snapshot(Some(seen.clone()));
        self.sandbox.run(code)
    }

    /// Runs a snippet on the phone as it is now: `ui_state` is read when the snippet
    /// first uses it.
    pub fn run_fresh(&mut self, code: &Compiled) -> RunResult {
        self.tools().set_snapshot(None);
        self.sandbox.run(code)
    }

    /// Compiles and runs `code` on the phone as it is now (a syntax error is the
    /// result's error): scripts and the REPL.
    pub fn eval(&mut self, code: &str) -> RunResult {
        self.tools().set_snapshot(None);
        self.sandbox.eval(code)
    }

    /// Stops the snippet that runs now, from another thread (Ctrl-C).
    pub fn cancel_handle(&self) -> CancelHandle {
        self.sandbox.cancel_handle()
    }

    /// Every snippet from now on stops when `token` is cancelled.
    pub fn stop_on(&self, token: CancellationToken) {
        self.sandbox.stop_on(token);
    }

    /// Sends every later action to `sink` the moment it is recorded (or no longer).
    pub fn set_action_sink(&self, sink: Option<ActionSink>) {
        self.sandbox.shared().set_sink(sink);
    }

    /// The facts `remember()` kept.
    pub fn memory(&self) -> Vec<String> {
        self.tools().memory.clone()
    }

    pub fn set_var(&mut self, name: &str, value: Dynamic) -> Result<(), WorkerError> {
        self.sandbox.set_var(name, value)
    }

    /// Names of the variables the session holds.
    pub fn var_names(&self) -> Vec<String> {
        self.sandbox.vars()
    }

    /// Each variable with a short view of its value and its type.
    pub fn var_summaries(&self, width: usize) -> Vec<(String, String)> {
        self.sandbox.var_summaries(width)
    }

    /// Forgets variables, functions and remembered facts; the next `ui_state` is read
    /// fresh. The device and the tools stay.
    pub fn reset(&mut self) -> Result<(), WorkerError> {
        self.sandbox.reset()?;
        let mut tools = self.tools();
        tools.memory.clear();
        tools.set_snapshot(None);
        Ok(())
    }
}
