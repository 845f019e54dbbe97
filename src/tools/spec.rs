//! What a tool is, declared once: a [`ToolSpec`] (its name, signature, the doc line
//! the LLM reads, its [`Effect`], and the function that registers its behaviour).
//! The catalog (`catalog/`) is a list of them; registration, the prompt, `codeact
//! tools`, the REPL's help and the README table read them. Not the registering
//! (`registry.rs`).

use super::registry::Registrar;

/// What a tool does to the world, as exports and reports need to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Only reads (the screen, memory, packages) or waits: a replay may skip it.
    Reads,
    /// Changes the device or the session's memory: a replay must do it again.
    Acts,
    /// Checks the screen and fails the script when it is not as expected.
    Asserts,
    /// Ends the snippet (`complete`): always present, whatever the persona.
    Finishes,
}

/// One tool as the LLM, the CLI and the engine see it.
#[derive(Clone, Copy)]
pub struct ToolSpec {
    pub name: &'static str,
    /// Rhai signatures, `[...]` marking optional arguments.
    pub signature: &'static str,
    /// The one line the LLM reads.
    pub doc: &'static str,
    pub effect: Effect,
    /// Registers this form's overloads.
    pub register: fn(&mut Registrar),
}

impl std::fmt::Debug for ToolSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSpec").field("signature", &self.signature).field("effect", &self.effect).finish()
    }
}
