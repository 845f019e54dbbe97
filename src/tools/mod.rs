//! The tool catalog: every function a script can call on the device, each declared
//! once as a [`ToolSpec`] (name, signature, the doc line the LLM reads, its effect,
//! and the function that registers its behaviour). Registration into the sandbox,
//! the prompt's tool list, `codeact tools`, the REPL's help and the README table all
//! come from the [`CATALOG`].
//!
//! Tools act through the [`Device`](crate::device::Device) trait on the observation
//! the session gives them (`context.rs`), record each call, settle the screen after
//! acting, never tap a stale index silently, and fail with a typed [`ToolError`].
//! This module does not parse dumps (that is `ui`) nor run scripts (that is
//! `sandbox`).

mod acting;
mod app_names;
mod arguments;
mod catalog;
mod closest;
mod context;
mod effect;
mod error;
mod gate;
mod options;
mod registry;
pub mod select;
pub mod sensitive;
pub mod shell_input;
mod spec;
mod state;
mod typing;
mod unique_selector;
pub mod watchers;

pub use app_names::{AppDirectory, AppNameError};
pub use catalog::CATALOG;
pub(crate) use context::lock;
pub use context::{MEMORY_ITEM_BYTES, MEMORY_ITEMS, SharedContext, ToolContext};
pub use error::{Awaited, ToolError};
pub use options::{Recording, Settle, ToolOptions};
pub use registry::{Overload, Registrar, ToolFn, ToolParam, ToolTable};
pub(crate) use registry::{state_generation, state_value};
pub use select::SelectorError;
pub use sensitive::{Sensitive, SensitivePolicy, SensitiveRuleError};
pub use spec::{Effect, ToolSpec};
pub use unique_selector::selector_for;
pub use watchers::{PermissionPolicy, WatcherSpecError, Watchers};

use std::sync::Arc;

use crate::sandbox::Shared;

/// Every tool's name once, in catalog order (a tool may have several forms).
pub fn names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for t in CATALOG {
        if !names.contains(&t.name) {
            names.push(t.name);
        }
    }
    names
}

/// The effect of the tool called `name` (every form of a tool has the same one).
pub fn effect_of(name: &str) -> Option<Effect> {
    CATALOG.iter().find(|t| t.name == name).map(|t| t.effect)
}

/// The (name, arity) pairs a set of registrations made, for checking against the docs.
pub type Registered = Vec<(&'static str, usize)>;

/// Every overload of every tool `allowed` accepts (and `complete`, which every
/// session has), acting on `ctx` and recording through `shared`. Returns the names
/// of the tools, in catalog order, and their overloads.
pub fn install(
    ctx: SharedContext,
    shared: Arc<Shared>,
    allowed: &dyn Fn(&str) -> bool,
) -> (Vec<&'static str>, ToolTable) {
    let mut table = ToolTable::default();
    let mut registrar = Registrar::new(&mut table, ctx, shared);
    let has = |t: &ToolSpec| t.effect == Effect::Finishes || allowed(t.name);
    for spec in CATALOG.iter().filter(|t| has(t)) {
        (spec.register)(registrar.for_tool(spec.name, spec.signature));
    }
    let names = names().into_iter().filter(|n| CATALOG.iter().any(|t| t.name == *n && has(t))).collect();
    (names, table)
}

/// The catalog as the prompt, `codeact tools` and the REPL print it.
pub fn describe(allowed: &dyn Fn(&str) -> bool) -> String {
    let mut out: String =
        CATALOG.iter().filter(|t| allowed(t.name)).map(|t| format!("- {}: {}\n", t.signature, t.doc)).collect();
    if takes_selectors(allowed) {
        out.push_str(&select::selector_help());
    }
    out
}

/// True when one of the allowed tools takes a selector (then its keys are shown).
fn takes_selectors(allowed: &dyn Fn(&str) -> bool) -> bool {
    CATALOG.iter().any(|t| allowed(t.name) && t.signature.contains("(sel"))
}

/// The catalog as a Markdown table (the README's copy; `codeact tools --markdown`).
pub fn markdown_table(allowed: &dyn Fn(&str) -> bool) -> String {
    let mut out = String::from("| Tool | What it does |\n|---|---|\n");
    for t in CATALOG.iter().filter(|t| allowed(t.name)) {
        out.push_str(&format!("| `{}` | {} |\n", t.signature, t.doc.replace('|', "\\|")));
    }
    if takes_selectors(allowed) {
        out.push_str(
            "\nSelectors (`sel`): a string matches an element whose text, content-desc or hint is exactly it, ",
        );
        out.push_str(
            "else one that contains it, in any case (`\"Wi-Fi\"`, `\"new note\"`). A map narrows: every key must ",
        );
        out.push_str(
            "hold, and values are literal unless the key ends in `_matches` (a regex over the whole value; an ",
        );
        out.push_str("invalid one is an error). `index` is refused: it is `ui_state`'s; use `nth`. ");
        out.push_str(&format!(
            "One selector holds at most {} selectors in all (its relations' included), {} regexes and {} KiB of text, and is compiled within the call's time.\n\n",
            select::MAX_PARTS,
            select::MAX_PATTERNS,
            select::MAX_TEXT_BYTES / 1024
        ));
        out.push_str(&select::selector_markdown());
    }
    out
}

/// The arities a signature documents: `swipe(x1, y1, x2, y2[, ms])` → 4 and 5.
pub fn documented_arities(signature: &str) -> Vec<usize> {
    let inside = signature.split_once('(').map_or("", |(_, rest)| rest.trim_end_matches(')'));
    let (required, optional) = inside.split_once('[').unwrap_or((inside, ""));
    let count = |s: &str| s.split(',').filter(|a| !a.trim().trim_matches(|c| c == '[' || c == ']').is_empty()).count();
    let required = count(required);
    let optional = count(optional);
    (required..=required + optional).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_document_their_arities() {
        assert_eq!(documented_arities("home()"), [0]);
        assert_eq!(documented_arities("tap_by_index(index)"), [1]);
        assert_eq!(documented_arities("swipe(x1, y1, x2, y2[, ms])"), [4, 5]);
        assert_eq!(documented_arities("list_packages([include_system])"), [0, 1]);
    }

    #[test]
    fn every_name_has_one_effect_and_every_doc_is_one_line() {
        for t in CATALOG {
            assert_eq!(effect_of(t.name), Some(t.effect), "{}: all forms of a tool have one effect", t.name);
            assert!(!t.doc.contains('\n') && t.signature.starts_with(t.name), "{t:?}");
        }
    }
}
