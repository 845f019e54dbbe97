//! The messages between the runtime and its sandbox worker, and their encoding
//! (on the codec in `wire.rs`). The runtime asks (set up, compile, run, read and set
//! variables); while a snippet runs the worker asks back (a tool call, a read of
//! `ui_state`) and the runtime answers, or sends a cancel. Rarely sent structures
//! (limits, errors) travel as JSON inside a frame; values in the codec's binary form.

use rhai::Dynamic;

use super::wire::{Reader, WireError, Writer};
use crate::sandbox::{FailureKind, Limits, RunError};

/// Bumped whenever a frame changes: a worker of another build is refused.
pub const PROTOCOL: u64 = 3;

/// What a tool's parameter takes, as the worker registers its stand-in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    Any,
    Str,
    Int,
    Bool,
}

impl Param {
    fn code(self) -> u8 {
        self as u8
    }

    fn from_code(c: u8) -> Result<Self, WireError> {
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

/// Why a frame could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("malformed frame")]
    Wire(#[from] WireError),
    #[error("malformed frame")]
    Json(#[from] serde_json::Error),
}

fn json<T: serde::Serialize>(w: &mut Writer, v: &T) {
    // Plain structs of numbers, strings and enums always serialise.
    w.str(&serde_json::to_string(v).unwrap_or_default());
}

fn from_json<T: serde::de::DeserializeOwned>(r: &mut Reader) -> Result<T, FrameError> {
    Ok(serde_json::from_str(r.str()?)?)
}

fn opt_str(w: &mut Writer, s: Option<&str>) {
    match s {
        Some(s) => {
            w.u8(1);
            w.str(s);
        }
        None => w.u8(0),
    }
}

fn read_opt_str(r: &mut Reader) -> Result<Option<String>, FrameError> {
    Ok(if r.u8()? == 1 { Some(r.str()?.to_string()) } else { None })
}

/// (name, source) pairs: modules, tools files.
fn write_named_sources(w: &mut Writer, sources: &[(String, String)]) {
    w.len(sources.len());
    for (name, source) in sources {
        w.str(name);
        w.str(source);
    }
}

fn named_sources(r: &mut Reader) -> Result<Vec<(String, String)>, FrameError> {
    let n = r.len()?;
    let mut out = Vec::with_capacity(n.min(64));
    for _ in 0..n {
        out.push((r.str()?.to_string(), r.str()?.to_string()));
    }
    Ok(out)
}

impl ToWorker {
    /// The frame's bytes; `Err` when a value in it cannot cross.
    pub fn encode(&self) -> Result<Vec<u8>, WireError> {
        let mut w = Writer::default();
        match self {
            Self::Setup { limits, tools, function_hint } => {
                w.u8(0);
                json(&mut w, limits);
                w.str(function_hint);
                w.len(tools.len());
                for t in tools {
                    w.str(&t.name);
                    w.str(&t.form);
                    w.len(t.params.len());
                    for p in &t.params {
                        w.u8(p.code());
                    }
                }
            }
            Self::Compile { code } => {
                w.u8(1);
                w.str(code);
            }
            Self::Run { seq, compiled, cancelled } => {
                w.u8(2);
                w.u64(*seq);
                w.u64(*compiled);
                w.u8(u8::from(*cancelled));
            }
            Self::Eval { seq, code, cancelled } => {
                w.u8(3);
                w.u64(*seq);
                w.str(code);
                w.u8(u8::from(*cancelled));
            }
            Self::Cancel { seq } => {
                w.u8(4);
                w.u64(*seq);
            }
            Self::Extend { ms } => {
                w.u8(13);
                w.u64(*ms);
            }
            Self::Tool(outcome) => {
                w.u8(5);
                match outcome {
                    ToolOutcome::Value(v) => {
                        w.u8(0);
                        w.value(v)?;
                    }
                    ToolOutcome::Failed { tool, failure, message } => {
                        w.u8(1);
                        w.str(tool);
                        json(&mut w, failure);
                        w.str(message);
                    }
                    ToolOutcome::Completed => w.u8(2),
                    ToolOutcome::Stopped => w.u8(3),
                    ToolOutcome::Watch { name, element } => {
                        w.u8(4);
                        w.str(name);
                        w.value(element)?;
                    }
                }
            }
            Self::State { generation, value } => {
                w.u8(6);
                w.u64(*generation);
                match value {
                    Some(v) => {
                        w.u8(1);
                        w.value(v)?;
                    }
                    None => w.u8(0),
                }
            }
            Self::SetVar { name, value } => {
                w.u8(7);
                w.str(name);
                w.value(value)?;
            }
            Self::Vars => w.u8(8),
            Self::Summaries { width } => {
                w.u8(9);
                w.u64(*width);
            }
            Self::Reset => w.u8(10),
            Self::StreamPrints(on) => {
                w.u8(12);
                w.u8(u8::from(*on));
            }
            Self::Modules { modules } => {
                w.u8(11);
                write_named_sources(&mut w, modules);
            }
            Self::Tools { files } => {
                w.u8(14);
                write_named_sources(&mut w, files);
            }
        }
        Ok(w.bytes)
    }

    pub fn decode(bytes: &[u8]) -> Result<Self, FrameError> {
        let mut r = Reader::new(bytes);
        Ok(match r.u8()? {
            0 => {
                let limits = from_json(&mut r)?;
                let function_hint = r.str()?.to_string();
                let n = r.len()?;
                let mut tools = Vec::with_capacity(n);
                for _ in 0..n {
                    let name = r.str()?.to_string();
                    let form = r.str()?.to_string();
                    let k = r.len()?;
                    let params = (0..k).map(|_| Param::from_code(r.u8()?)).collect::<Result<_, _>>()?;
                    tools.push(ToolSignature { name, params, form });
                }
                Self::Setup { limits, tools, function_hint }
            }
            1 => Self::Compile { code: r.str()?.to_string() },
            2 => Self::Run { seq: r.u64()?, compiled: r.u64()?, cancelled: r.u8()? == 1 },
            3 => Self::Eval { seq: r.u64()?, code: r.str()?.to_string(), cancelled: r.u8()? == 1 },
            4 => Self::Cancel { seq: r.u64()? },
            13 => Self::Extend { ms: r.u64()? },
            5 => Self::Tool(match r.u8()? {
                0 => ToolOutcome::Value(r.value()?),
                1 => ToolOutcome::Failed {
                    tool: r.str()?.to_string(),
                    failure: from_json(&mut r)?,
                    message: r.str()?.to_string(),
                },
                2 => ToolOutcome::Completed,
                3 => ToolOutcome::Stopped,
                4 => ToolOutcome::Watch { name: r.str()?.to_string(), element: r.value()? },
                other => return Err(WireError::BadTag(other).into()),
            }),
            6 => {
                let generation = r.u64()?;
                let value = if r.u8()? == 1 { Some(r.value()?) } else { None };
                Self::State { generation, value }
            }
            7 => Self::SetVar { name: r.str()?.to_string(), value: r.value()? },
            8 => Self::Vars,
            9 => Self::Summaries { width: r.u64()? },
            10 => Self::Reset,
            12 => Self::StreamPrints(r.u8()? == 1),
            11 => Self::Modules { modules: named_sources(&mut r)? },
            14 => Self::Tools { files: named_sources(&mut r)? },
            other => return Err(WireError::BadTag(other).into()),
        })
    }
}

impl FromWorker {
    pub fn encode(&self) -> Result<Vec<u8>, WireError> {
        let mut w = Writer::default();
        match self {
            Self::Hello { protocol } => {
                w.u8(0);
                w.u64(*protocol);
            }
            Self::Ready => w.u8(1),
            Self::Compiled { id } => {
                w.u8(2);
                w.u64(*id);
            }
            Self::CompileFailed(e) => {
                w.u8(3);
                json(&mut w, e);
            }
            Self::ToolCall { index, args, watchers } => {
                w.u8(4);
                w.u64(*index);
                w.u8(u8::from(*watchers));
                w.len(args.len());
                for a in args {
                    w.value(a)?;
                }
            }
            Self::StateRead { phone, have } => {
                w.u8(5);
                w.u8(u8::from(*phone));
                w.u64(*have);
            }
            Self::Finished(f) => {
                w.u8(6);
                w.str(&f.output);
                match &f.error {
                    Some(e) => {
                        w.u8(1);
                        json(&mut w, e);
                    }
                    None => w.u8(0),
                }
                opt_str(&mut w, f.value.as_deref());
            }
            Self::Vars(names) => {
                w.u8(7);
                w.len(names.len());
                for n in names {
                    w.str(n);
                }
            }
            Self::Summaries(pairs) => {
                w.u8(8);
                w.len(pairs.len());
                for (n, v) in pairs {
                    w.str(n);
                    w.str(v);
                }
            }
            Self::Done => w.u8(9),
            Self::Refused(why) => {
                w.u8(10);
                w.str(why);
            }
            Self::Printed(text) => {
                w.u8(11);
                w.str(text);
            }
        }
        Ok(w.bytes)
    }

    pub fn decode(bytes: &[u8]) -> Result<Self, FrameError> {
        let mut r = Reader::new(bytes);
        Ok(match r.u8()? {
            0 => Self::Hello { protocol: r.u64()? },
            1 => Self::Ready,
            2 => Self::Compiled { id: r.u64()? },
            3 => Self::CompileFailed(from_json(&mut r)?),
            4 => {
                let index = r.u64()?;
                let watchers = r.u8()? == 1;
                let n = r.len()?;
                let args = (0..n).map(|_| r.value()).collect::<Result<_, _>>()?;
                Self::ToolCall { index, args, watchers }
            }
            5 => Self::StateRead { phone: r.u8()? == 1, have: r.u64()? },
            6 => {
                let output = r.str()?.to_string();
                let error = if r.u8()? == 1 { Some(from_json(&mut r)?) } else { None };
                let value = read_opt_str(&mut r)?;
                Self::Finished(Finished { output, error, value })
            }
            7 => {
                let n = r.len()?;
                Self::Vars((0..n).map(|_| r.str().map(str::to_string)).collect::<Result<_, _>>()?)
            }
            8 => {
                let n = r.len()?;
                let mut pairs = Vec::with_capacity(n);
                for _ in 0..n {
                    pairs.push((r.str()?.to_string(), r.str()?.to_string()));
                }
                Self::Summaries(pairs)
            }
            9 => Self::Done,
            11 => Self::Printed(r.str()?.to_string()),
            10 => Self::Refused(r.str()?.to_string()),
            other => return Err(WireError::BadTag(other).into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_and_tools_files_cross_the_pipe_whole() {
        let sources = vec![("tools/a.rhai".to_string(), "/// A.\nfn a() { \"å\" }\n".to_string())];
        for frame in [ToWorker::Modules { modules: sources.clone() }, ToWorker::Tools { files: sources.clone() }] {
            let back = ToWorker::decode(&frame.encode().unwrap()).unwrap();
            assert_eq!(format!("{back:?}"), format!("{frame:?}"));
        }
    }
}
