//! The messages between the runtime and its sandbox worker, and their encoding
//! (on the codec in `wire.rs`). The runtime asks (set up, compile, run, read and set
//! variables); while a snippet runs the worker asks back (a tool call, a read of
//! `ui_state`) and the runtime answers, or sends a cancel. Rarely sent structures
//! (limits, errors) travel as JSON inside a frame; values in the codec's binary form.

use rhai::Dynamic;

use super::wire::WireError;
use crate::sandbox::{FailureKind, Limits, RunError};

/// Bumped whenever a frame changes: a worker of another build is refused.
pub const PROTOCOL: u64 = 4;

/// What a tool's parameter takes, as the worker registers its stand-in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    Any,
    Str,
    Int,
    Bool,
}

impl Param {
    pub(super) fn code(self) -> u8 {
        self as u8
    }

    pub(super) fn from_code(c: u8) -> Result<Self, WireError> {
        Ok(match c {
            0 => Self::Any,
            1 => Self::Str,
            2 => Self::Int,
            3 => Self::Bool,
            other => return Err(WireError::BadTag(other)),
        })
    }
}

/// One tool overload the worker stands in for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSignature {
    pub name: String,
    pub params: Vec<Param>,
    /// The tool's forms as the catalog documents them (`tap(x, y)`), for the error
    /// a call with other arguments gets.
    pub form: String,
}

/// How a tool call ended, as the worker hands it to the script.
#[derive(Debug, Clone)]
pub enum ToolOutcome {
    Value(Dynamic),
    /// The script sees `message` as the error (it may catch it); `failure` says how
    /// the tool failed, for the snippet's final error.
    Failed {
        tool: String,
        failure: Option<FailureKind>,
        message: String,
    },
    /// `complete()` was called: the snippet ends now, uncatchably.
    Completed,
    /// The tool ran into the deadline or a cancel: the snippet ends now.
    Stopped,
    /// Nothing ran: the script's watcher `name` matched `element` first. The worker
    /// runs its function, then makes the call again.
    Watch {
        name: String,
        element: Dynamic,
    },
}

/// From the runtime to the worker.
#[derive(Debug, Clone)]
pub enum ToWorker {
    Setup {
        limits: Limits,
        tools: Vec<ToolSignature>,
        function_hint: String,
    },
    Compile {
        code: String,
    },
    Run {
        seq: u64,
        compiled: u64,
        cancelled: bool,
    },
    Eval {
        seq: u64,
        code: String,
        cancelled: bool,
        /// The value as JSON text rather than as Rhai prints it.
        json: bool,
    },
    Cancel {
        seq: u64,
    },
    /// The snippet's deadline moved this much later (a person was answering).
    Extend {
        ms: u64,
    },
    Tool(ToolOutcome),
    /// `ui_state` or `phone_state` (`None`: the worker's copy of this generation is
    /// still the one to use).
    State {
        generation: u64,
        value: Option<Dynamic>,
    },
    SetVar {
        name: String,
        value: Dynamic,
    },
    Vars,
    Summaries {
        width: u64,
    },
    Reset,
    /// Send each printed line as it is printed (the REPL), or only with the result.
    StreamPrints(bool),
    /// The modules `import` may name from now on (name, source), in an order where
    /// each comes after the ones it imports; empty: none.
    Modules {
        modules: Vec<(String, String)>,
    },
    /// Tools written in Rhai (file name, source): each file's public functions
    /// become functions every snippet can call, protected like the built-in tools.
    Tools {
        files: Vec<(String, String)>,
    },
}

/// What a snippet left, as the worker reports it (actions and completion are the
/// runtime's own).
#[derive(Debug, Clone, Default)]
pub struct Finished {
    pub output: String,
    pub error: Option<RunError>,
    pub value: Option<String>,
}

/// From the worker to the runtime.
#[derive(Debug, Clone)]
pub enum FromWorker {
    Hello {
        protocol: u64,
    },
    Ready,
    Compiled {
        id: u64,
    },
    CompileFailed(RunError),
    ToolCall {
        index: u64,
        args: Vec<Dynamic>,
        /// Watchers may fire first (not inside a script watcher's function, nor on
        /// a call the script's watchers already had their turns at).
        watchers: bool,
    },
    /// A read of `ui_state` (`phone` false) or `phone_state`; `have` is the
    /// generation of `ui_state` the worker holds (0: none).
    StateRead {
        phone: bool,
        have: u64,
    },
    Finished(Finished),
    Vars(Vec<String>),
    Summaries(Vec<(String, String)>),
    Done,
    Refused(String),
    /// A line the running snippet printed, sent as it is printed (when streaming).
    Printed(String),
}
