//! A session: one sandbox bound to one device through the tool catalog, with only the
//! tools a persona allows. `exec`, the REPL and the agent each open one; this module
//! wires the parts together and holds no policy of its own.

use rhai::Dynamic;

use crate::config::Settings;
use crate::device::Device;
use crate::sandbox::{RunResult, Sandbox};
use crate::tools::{self, CATALOG, SharedContext, ToolContext};

pub struct Session {
    pub sandbox: Sandbox,
    pub tools: SharedContext,
    allowed: Vec<&'static str>,
}

impl Session {
    /// A sandbox with the settings' limits and the persona's tools (all tools without
    /// a persona), acting on `device`.
    pub fn new(device: Box<dyn Device>, settings: &Settings) -> Result<Self, String> {
        let mut sandbox = Sandbox::new(settings.limits.clone())?;
        let persona = settings.persona.as_ref();
        let allows = |t: &str| persona.is_none_or(|p| p.allows(t));
        let tools = ToolContext::with_options(device, settings.tools.clone());
        tools::install(&mut sandbox, tools.clone(), &allows);
        let mut allowed: Vec<&'static str> = Vec::new();
        for t in CATALOG.iter().map(|t| t.name).filter(|t| allows(t)) {
            if !allowed.contains(&t) {
                allowed.push(t);
            }
        }
        sandbox.set_function_hint(format!("the functions this session has: {}", allowed.join(", ")));
        Ok(Self { sandbox, tools, allowed })
    }

    /// The tools this session has, in catalog order.
    pub fn tool_names(&self) -> &[&'static str] {
        &self.allowed
    }

    /// This session's tools with their docs, as the prompt and `:help` show them.
    pub fn describe_tools(&self) -> String {
        tools::describe(&|t| self.allowed.contains(&t))
    }

    pub fn set_var(&mut self, name: &str, value: Dynamic) {
        self.sandbox.set_var(name, value);
    }

    /// Runs a snippet; `ui_state` and `phone_state` are read fresh when it first
    /// uses them.
    pub fn run(&mut self, code: &str) -> RunResult {
        self.tools.lock().unwrap_or_else(|e| e.into_inner()).forget_snapshot();
        self.sandbox.run(code)
    }

    /// Runs a snippet on the snapshot already taken (the agent's observation, which
    /// the model saw): its indices are the ones the model read.
    pub fn run_on_snapshot(&mut self, code: &str) -> RunResult {
        self.sandbox.run(code)
    }

    /// Forgets variables, functions and remembered facts; the next `ui_state` is read
    /// fresh. The device and the tools stay.
    pub fn reset(&mut self) {
        self.sandbox.reset();
        let mut c = self.tools.lock().unwrap_or_else(|e| e.into_inner());
        c.memory.clear();
        c.forget_snapshot();
    }
}

/// A `--var KEY=VALUE` value typed as a script expects: whole numbers, decimals and
/// true/false are typed, anything else is a string.
pub fn typed_value(value: &str) -> Dynamic {
    match value {
        "true" => Dynamic::from(true),
        "false" => Dynamic::from(false),
        v => v
            .parse::<i64>()
            .map(Dynamic::from)
            .ok()
            .or_else(|| v.parse::<f64>().ok().filter(|f| f.is_finite()).map(Dynamic::from))
            .unwrap_or_else(|| Dynamic::from(v.to_string())),
    }
}
