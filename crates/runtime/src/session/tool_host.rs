//! The session's side of a snippet's tool calls: the worker sends an overload index
//! and its arguments, this runs the tool against the device and answers with the
//! outcome (or the state a snippet reads). Not the session's own API (`mod.rs`).

use std::sync::Arc;
use std::time::Duration;

use rhai::{Dynamic, EvalAltResult};

use codeact_engine::isolation::{Host, ToWorker, ToolOutcome};
use codeact_engine::sandbox::{FailureKind, STOP_COMPLETE, Shared};
use codeact_tools::{self as tools, SharedContext, ToolTable};

/// Receives each line a snippet prints, the moment it is printed.
pub type PrintSink = Box<dyn FnMut(&str) + Send>;

/// Answers the worker's tool calls and state reads.
pub(super) struct ToolHost {
    /// Only these tools answer (a sub-agent's persona, and its name), when set.
    pub(super) allowed: Option<(String, Vec<String>)>,
    pub(super) table: ToolTable,
    pub(super) tools: SharedContext,
    pub(super) shared: Arc<Shared>,
    /// Where printed lines go as they are printed, when someone watches.
    pub(super) print_sink: Option<PrintSink>,
}

impl Host for ToolHost {
    fn call_tool(&mut self, index: usize, args: Vec<Dynamic>, watchers: bool) -> ToolOutcome {
        let tool = self.table.tool(index).unwrap_or("?");
        if let Some((persona, allowed)) = &self.allowed
            && tool != "complete"
            && !allowed.iter().any(|t| t == tool)
        {
            let message =
                format!("{tool} is not one of the {persona} sub-agent's tools; it has: {}", allowed.join(", "));
            return ToolOutcome::Failed { tool: tool.into(), failure: Some(FailureKind::BadArgument), message };
        }
        tools::lock(&self.tools).allow_watchers(watchers);
        let result = self.table.call(index, args);
        if let Some((name, element)) = tools::lock(&self.tools).take_fired_watch() {
            return ToolOutcome::Watch { name, element };
        }
        match result {
            None => ToolOutcome::Failed { tool: tool.into(), failure: None, message: "no such tool".into() },
            Some(Ok(value)) => ToolOutcome::Value(value),
            Some(Err(e)) => self.outcome_of(tool, &e),
        }
    }

    fn read_state(&mut self, phone: bool, have: u64) -> ToWorker {
        if !phone && have != 0 && have == tools::state_generation(&self.tools) {
            return ToWorker::State { generation: have, value: None };
        }
        let name = if phone { "phone_state" } else { "ui_state" };
        match tools::state_value(&self.tools, &self.shared, phone) {
            (generation, Ok(value)) => ToWorker::State { generation, value: Some(value) },
            (_, Err(e)) => ToWorker::Tool(self.outcome_of(name, &e)),
        }
    }

    fn cancelled(&self) -> bool {
        self.shared.cancelled()
    }

    fn printed(&mut self, text: &str) {
        if let Some(sink) = self.print_sink.as_mut() {
            // Streamed as printed (to a terminal, a client): a typed secret read
            // back, or rebuilt, is blotted as in the run's output.
            sink(&codeact_base::secrets::redact(text));
        }
    }

    fn take_extension(&mut self) -> Duration {
        self.shared.take_extension()
    }
}

impl ToolHost {
    /// A tool's error as the worker hands it to the script.
    fn outcome_of(&self, tool: &str, e: &EvalAltResult) -> ToolOutcome {
        match e {
            EvalAltResult::ErrorTerminated(token, _) if token.to_string() == STOP_COMPLETE => ToolOutcome::Completed,
            EvalAltResult::ErrorTerminated(..) => ToolOutcome::Stopped,
            EvalAltResult::ErrorRuntime(value, _) => {
                let message = value.to_string();
                let failure = self.shared.failure().filter(|f| f.message.as_str() == message);
                match failure {
                    Some(f) => ToolOutcome::Failed { tool: f.tool, failure: Some(f.kind), message },
                    None => ToolOutcome::Failed { tool: tool.into(), failure: None, message },
                }
            }
            other => ToolOutcome::Failed { tool: tool.into(), failure: None, message: other.to_string() },
        }
    }
}
