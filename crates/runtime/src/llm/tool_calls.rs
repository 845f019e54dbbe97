//! Function calling in the OpenAI chat format, for `--actions json`: the functions
//! offered ([`FunctionTool`]), the calls a reply asks for ([`ToolCall`]), and how a
//! conversation carries them back ([`ToolTurn`]). This module shapes JSON; it knows
//! nothing of what a call does (the runtime's `tools::json_calls` turns one into a
//! snippet).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The most calls one reply may ask for; the rest are dropped (and said to be).
pub const MAX_CALLS_PER_REPLY: usize = 32;

/// The most of one call's arguments kept (JSON text): a tool's arguments are a few
/// short strings and numbers.
pub const MAX_ARGUMENT_BYTES: usize = 16 * 1024;

/// A function the model may call: its name, what it does, and the JSON Schema of
/// its arguments.
#[derive(Debug, Clone)]
pub struct FunctionTool {
    pub name: String,
    pub description: String,
    pub parameters: Map<String, Value>,
}

impl FunctionTool {
    /// As the request's `tools` list holds it.
    pub fn to_json(&self) -> Value {
        json!({
            "type": "function",
            "function": { "name": self.name, "description": self.description, "parameters": self.parameters }
        })
    }
}

/// One call a reply asked for: its id (to answer it by), the function's name and
/// the arguments exactly as the model wrote them (JSON text, perhaps not valid).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
    /// What came of it, as the model is told (filled in once it ran).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub result: String,
}

impl ToolCall {
    /// As an assistant message's `tool_calls` holds it.
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "type": "function",
            "function": { "name": self.name, "arguments": self.arguments }
        })
    }

    /// `name(arguments)`, for a line of progress or a report.
    pub fn shown(&self) -> String {
        format!("{}({})", self.name, self.arguments)
    }
}

/// What a message of the conversation is to function calling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolTurn {
    /// An assistant message that asked for these calls.
    Calls(Vec<ToolCall>),
    /// A `tool` message: the result of the call with this id.
    Result { call_id: String },
}

/// The calls of one reply, bounded: at most [`MAX_CALLS_PER_REPLY`], each name and
/// arguments clipped; an id the server left out is made up (`call_N`), since a
/// result must name its call.
pub fn bounded(calls: impl IntoIterator<Item = (String, String, String)>) -> Vec<ToolCall> {
    calls
        .into_iter()
        .take(MAX_CALLS_PER_REPLY)
        .enumerate()
        .map(|(i, (id, name, arguments))| ToolCall {
            id: if id.trim().is_empty() {
                format!("call_{}", i + 1)
            } else {
                codeact_base::clip::clip(&id, 128).into_owned()
            },
            name: codeact_base::clip::clip(&name, 128).into_owned(),
            arguments: codeact_base::clip::clip(&arguments, MAX_ARGUMENT_BYTES).into_owned(),
            result: String::new(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_bounded_and_named() {
        let many = (0..100).map(|i| (String::new(), format!("tap{i}"), "{}".to_string()));
        let calls = bounded(many);
        assert_eq!(calls.len(), MAX_CALLS_PER_REPLY);
        assert_eq!(calls[1].id, "call_2");
        let huge = bounded([("id".into(), "tap".into(), "x".repeat(1 << 20))]);
        assert!(huge[0].arguments.len() <= MAX_ARGUMENT_BYTES + 40, "cut, with a note");
        assert_eq!(huge[0].to_json()["function"]["name"], "tap");
    }
}
