//! How each message between the runtime and its worker is written to and read from
//! a frame (on the codec in `wire.rs`): values in the codec's binary form, rarely
//! sent structures (limits, errors) as JSON inside. Not the messages themselves
//! (`frames.rs`) or the pipe they travel on (`pipe.rs`).

use super::frames::*;
use super::wire::{Reader, WireError, Writer};

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
            Self::Eval { seq, code, cancelled, json } => {
                w.u8(3);
                w.u64(*seq);
                w.str(code);
                w.u8(u8::from(*cancelled));
                w.u8(u8::from(*json));
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
            3 => Self::Eval { seq: r.u64()?, code: r.str()?.to_string(), cancelled: r.u8()? == 1, json: r.u8()? == 1 },
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
