//! Memory: facts a script or a model keeps for later steps, and the answer it gives
//! to a question (what `codeact eval` judges).

use rhai::{Array, Dynamic, ImmutableString};

use crate::catalog::registry::tool;
use crate::catalog::spec::{Access, ParamKind, ParamSpec, Replay, Role, ToolSpec};
use crate::context::{ANSWER_BYTES, MEMORY_ITEM_BYTES, MEMORY_ITEMS};
use crate::error::ToolError;

pub(crate) const REMEMBER: ToolSpec = ToolSpec {
    name: "remember",
    params: &[ParamSpec::new("text", ParamKind::Text, "the fact to keep")],
    doc: "Keep a fact for later steps (returned by memory(); the last 20 are kept).",
    access: Access::Acts,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| {
        tool!(r, |c, text: ImmutableString| {
            if text.len() > MEMORY_ITEM_BYTES {
                return Err(ToolError::FactTooLong { bytes: text.len(), max: MEMORY_ITEM_BYTES });
            }
            c.notes_mut().remember(text.to_string(), MEMORY_ITEMS);
            Ok(())
        })
    },
};

pub(crate) const MEMORY: ToolSpec = ToolSpec {
    name: "memory",
    params: &[],
    doc: "The facts remembered so far, as an array of strings.",
    access: Access::Reads,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Skipped,
    register: |r| tool!(r, |c| Ok(c.facts().iter().cloned().map(Dynamic::from).collect::<Array>())),
};

pub(crate) const ANSWER: ToolSpec = ToolSpec {
    name: "answer",
    params: &[ParamSpec::new("text", ParamKind::Text, "the answer to the task's question")],
    doc: "Give the answer when the task asks a question (\"What is Bob's number?\"); then complete(true). A later answer replaces it.",
    access: Access::Acts,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| {
        tool!(r, |c, text: Dynamic| {
            if text.is_unit() {
                return Err(ToolError::NoAnswer);
            }
            // A number or a list is an answer too ("3"); it is judged as its text.
            let text = text.to_string();
            if text.len() > ANSWER_BYTES {
                return Err(ToolError::AnswerTooLong { bytes: text.len(), max: ANSWER_BYTES });
            }
            c.notes_mut().set_answer(text);
            Ok(())
        })
    },
};
