//! What a tool is, declared once: a [`ToolSpec`] says its name, its typed
//! parameters, the doc line the LLM reads, what it does to the world ([`Access`]),
//! which checks of the sensitive-action gate its acts pass ([`Gate`]), how a replay
//! repeats it ([`Replay`]) and what it is to one ([`Role`]), and the function that registers its behaviour. The
//! catalog (`catalog/`) is a list of them; registration (and its arity checks), the
//! prompt, `codeact tools` (Markdown and JSON), the REPL's help, the README table
//! and the replay exports all read them. Not the registering (`registry.rs`) or the
//! gate's judging (`gate.rs`).

use super::registry::Registrar;
pub use crate::declaration::{Access, Gate, ParamKind, ParamSpec, Press, Replay, Role, common};

/// One form of a tool as the LLM, the CLI and the engine see it (a tool with two
/// forms, `tap(sel)` and `tap(x, y)`, is two specs with one name).
#[derive(Clone, Copy)]
pub struct ToolSpec {
    pub name: &'static str,
    pub params: &'static [ParamSpec],
    /// The one line the LLM reads.
    pub doc: &'static str,
    pub access: Access,
    /// The gate's checks its acts pass (none for a tool that does not act on the
    /// screen, a field, an app or the shell).
    pub gates: &'static [Gate],
    pub replay: Replay,
    /// What a recorded call is to a replay of the run.
    pub role: Role,
    /// Registers this form's overloads.
    pub register: fn(&mut Registrar),
}

impl ToolSpec {
    /// The Rhai signature, `[...]` marking optional parameters:
    /// `swipe(x1, y1, x2, y2[, ms])`.
    pub fn signature(&self) -> String {
        let mut out = format!("{}(", self.name);
        let mut first = true;
        for p in self.params {
            match (p.optional, first) {
                (false, true) => out.push_str(p.name),
                (false, false) => {
                    out.push_str(", ");
                    out.push_str(p.name);
                }
                (true, true) => {
                    out.push('[');
                    out.push_str(p.name);
                    out.push(']');
                }
                (true, false) => {
                    out.push_str("[, ");
                    out.push_str(p.name);
                    out.push(']');
                }
            }
            first = false;
        }
        out.push(')');
        out
    }

    /// The numbers of arguments the form takes: `swipe(x1, y1, x2, y2[, ms])` → 4
    /// and 5.
    pub fn arities(&self) -> std::ops::RangeInclusive<usize> {
        let required = self.params.iter().filter(|p| !p.optional).count();
        required..=self.params.len()
    }

    /// Whether a selector is among its parameters.
    pub fn takes_selector(&self) -> bool {
        self.params.iter().any(|p| p.kind == ParamKind::Selector)
    }
}

impl std::fmt::Debug for ToolSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSpec").field("signature", &self.signature()).field("access", &self.access).finish()
    }
}
