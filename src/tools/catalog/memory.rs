//! Memory: facts a script or a model keeps for later steps.

use rhai::{Array, Dynamic, ImmutableString};

use crate::tools::context::{MEMORY_ITEM_BYTES, MEMORY_ITEMS};
use crate::tools::error::ToolError;
use crate::tools::registry::tool;
use crate::tools::{Effect, ToolSpec};

pub(crate) const REMEMBER: ToolSpec = ToolSpec {
    name: "remember",
    signature: "remember(text)",
    doc: "Keep a fact for later steps (returned by memory(); the last 20 are kept).",
    effect: Effect::Acts,
    register: |r| {
        tool!(r, |c, text: ImmutableString| {
            if text.len() > MEMORY_ITEM_BYTES {
                return Err(ToolError::FactTooLong { bytes: text.len(), max: MEMORY_ITEM_BYTES });
            }
            if c.memory.len() == MEMORY_ITEMS {
                c.memory.remove(0);
            }
            c.memory.push(text.to_string());
            Ok(())
        })
    },
};

pub(crate) const MEMORY: ToolSpec = ToolSpec {
    name: "memory",
    signature: "memory()",
    doc: "The facts remembered so far, as an array of strings.",
    effect: Effect::Reads,
    register: |r| tool!(r, |c| Ok(c.memory.iter().cloned().map(Dynamic::from).collect::<Array>())),
};
