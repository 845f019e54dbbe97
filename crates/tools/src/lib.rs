//! The tool catalog: every function a script can call on the device, each declared
//! once as a [`ToolSpec`] (name, typed parameters, the doc line the LLM reads, its
//! access, the gate's checks its acts pass, its replay form, and the function that
//! registers its behaviour). Registration into the sandbox, the prompt's tool list,
//! `codeact tools`, the REPL's help, the README table and the replay exports all come
//! from the [`CATALOG`].
//!
//! Folders, from the top down: `catalog/` (the tools and their specs), `locating/`
//! (pictures and descriptions), `context/` (what the tools share while they run),
//! `guard/` (the sensitive-action gate and the watchers), `select/` (selectors and
//! the unique selector of an element); beneath them the vocabulary every folder
//! shares, one file each: `acting.rs` (a device act), `declaration.rs` (what a tool
//! declares: `Gate`, `Access`, `Replay`, parameters), `error.rs`, `options.rs`,
//! `sensitive.rs`, `consent.rs`, `naming.rs` (how an element is named in messages),
//! `locator_state.rs`. Above them, `call.rs`: a call of a catalog tool as data, the
//! one way a door or an explorer writes the Rhai line of an act. Tools
//! act through the [`Device`](codeact_platform::device::Device) trait on the
//! observation the session gives them, record each call, settle the screen after
//! acting, never tap a stale index silently, and fail with a typed [`ToolError`].
//! [`human`] is the people in the loop the tools ask (a confirmation, an answer).
//! This crate does not parse dumps (that is `ui`), run scripts (that is
//! `sandbox`) nor wire a session together (that is the runtime).

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub(crate) mod acting;
mod app_names;
mod arguments;
pub mod call;
mod catalog;
pub(crate) mod consent;
mod context;
pub(crate) mod declaration;
mod error;
mod guard;
pub mod human;
pub mod inspect;
pub mod json_calls;
mod locating;
pub(crate) mod locator_state;
mod naming;
mod options;
pub mod script_tools;
pub mod select;
pub mod sensitive;

// The guard's public parts, under the names they have always had.
pub use guard::{shell_input, watchers};

pub use app_names::{AppAlias, AppDirectory, AppNameError};
pub use catalog::CATALOG;
pub use catalog::registry::{Overload, Registrar, ToolFn, ToolParam, ToolTable};
pub use catalog::registry::{state_generation, state_value};
pub use catalog::spec::{Access, Gate, ParamKind, ParamSpec, Press, Replay, Role, ToolSpec};
pub use context::lock;
pub use context::{MEMORY_ITEM_BYTES, MEMORY_ITEMS, SharedContext, ToolContext};
pub use error::{Awaited, ToolError};
pub use guard::watchers::{PermissionPolicy, WatchMode, WatcherSpecError, Watchers};
pub use guard::watching::Fired;
pub use options::{Recording, Settle, ToolOptions};
pub use select::unique_selector::{selector_for, toggle_selector_for};
pub use select::{ImageWant, SelectorError};
pub use sensitive::{Sensitive, SensitivePolicy, SensitiveRuleError};

use std::sync::Arc;

use codeact_engine::sandbox::Shared;

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

/// What the tool called `name` does to the world (every form of a tool has the same).
pub fn access_of(name: &str) -> Option<Access> {
    CATALOG.iter().find(|t| t.name == name).map(|t| t.access)
}

/// The form of the tool called `name` that takes `args` arguments (`tap("OK")` and
/// `tap(500, 600)` are two forms).
pub fn form_of(name: &str, args: usize) -> Option<&'static ToolSpec> {
    CATALOG.iter().find(|t| t.name == name && t.arities().contains(&args))
}

/// How a replay repeats a call of the tool called `name` with `args` arguments (its
/// form's way: `tap("OK")` by selector, `tap(500, 600)` as is).
pub fn replay_of(name: &str, args: usize) -> Option<Replay> {
    form_of(name, args).map(|t| t.replay)
}

/// The tools that act on a `ui_state` index, each with the tool its replay calls
/// with the selector of the element it hit instead.
pub fn index_tools() -> impl Iterator<Item = (&'static str, &'static str)> {
    CATALOG.iter().filter_map(|t| match t.replay {
        Replay::IndexAsSelector(by) => Some((t.name, by)),
        _ => None,
    })
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
    // The script's own watchers locate as the tools do: the context is lent how.
    lock(&ctx).lend_script_watch(catalog::script_watchers::fire);
    let mut registrar = Registrar::new(&mut table, ctx, shared);
    let has = |t: &ToolSpec| t.access == Access::Finishes || allowed(t.name);
    for spec in CATALOG.iter().filter(|t| has(t)) {
        (spec.register)(registrar.for_form(spec.name, spec.signature(), spec.gates));
    }
    let names = names().into_iter().filter(|n| CATALOG.iter().any(|t| t.name == *n && has(t))).collect();
    (names, table)
}

/// The catalog as the prompt, `codeact tools` and the REPL print it.
pub fn describe(allowed: &dyn Fn(&str) -> bool) -> String {
    describe_with(allowed, "")
}

/// The catalog, then `more_tools` (tools written in Rhai, one line each), then the
/// selector keys.
pub fn describe_with(allowed: &dyn Fn(&str) -> bool, more_tools: &str) -> String {
    let mut out: String =
        CATALOG.iter().filter(|t| allowed(t.name)).map(|t| format!("- {}: {}\n", t.signature(), t.doc)).collect();
    out.push_str(more_tools);
    if takes_selectors(allowed) {
        out.push_str(&select::selector_help());
    }
    out
}

/// True when one of the allowed tools takes a selector (then its keys are shown).
fn takes_selectors(allowed: &dyn Fn(&str) -> bool) -> bool {
    CATALOG.iter().any(|t| allowed(t.name) && t.takes_selector())
}

/// The catalog as JSON: one object per tool form (name, signature, doc, typed
/// parameters, access, the gate's checks, the replay form), for programs that drive
/// codeact and for JSON schemas.
pub fn catalog_json(allowed: &dyn Fn(&str) -> bool) -> Vec<serde_json::Value> {
    CATALOG
        .iter()
        .filter(|t| allowed(t.name))
        .map(|t| {
            serde_json::json!({
                "name": t.name,
                "signature": t.signature(),
                "doc": t.doc,
                "params": t.params,
                "access": t.access,
                "gates": t.gates,
                "replay": t.replay,
            })
        })
        .collect()
}

/// The catalog as a Markdown table (the book's tool reference; `codeact tools --markdown`).
pub fn markdown_table(allowed: &dyn Fn(&str) -> bool) -> String {
    let mut out = String::from("| Tool | What it does |\n|---|---|\n");
    for t in CATALOG.iter().filter(|t| allowed(t.name)) {
        out.push_str(&format!("| `{}` | {} |\n", t.signature(), t.doc.replace('|', "\\|")));
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
            "One selector holds at most {} selectors in all (its relations' included), {} regexes and {} KiB of text, and is compiled within the call's time. ",
            select::MAX_PARTS,
            select::MAX_PATTERNS,
            select::MAX_TEXT_BYTES / 1024
        ));
        out.push_str(
            "An element `find()`, `find_all()`, `wait_for()` or `ui_state` gave is a selector too: passed back as it is \
             (`let ok = find(\"OK\"); tap(ok);`), it names that very element (by its signature and frame, else its \
             signature when it moved). A lookup that finds nothing, and a wait or assertion that times out, names the \
             nearest elements on screen (a wait for something to go, what still matches), and when a literal value \
             reads as a regex, what it would match as one and to write `text_matches`.\n\n",
        );
        out.push_str(&select::selector_markdown());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_made_from_the_parameters() {
        let sig = |name: &str, n: usize| {
            CATALOG.iter().find(|t| t.name == name && t.params.len() == n).map(|t| t.signature())
        };
        assert_eq!(sig("home", 0).as_deref(), Some("home()"));
        assert_eq!(sig("tap_by_index", 1).as_deref(), Some("tap_by_index(index)"));
        assert_eq!(sig("swipe", 5).as_deref(), Some("swipe(x1, y1, x2, y2[, ms])"));
        assert_eq!(sig("list_packages", 1).as_deref(), Some("list_packages([include_system])"));
        let swipe = CATALOG.iter().find(|t| t.name == "swipe").map(|t| t.arities());
        assert_eq!(swipe, Some(4..=5));
    }

    #[test]
    fn roles_fit_the_forms() {
        for t in CATALOG {
            match t.role {
                // A press acts on one element: by a selector, or by an index a replay
                // turns into one.
                Role::Press(_) => assert!(
                    matches!(t.replay, Replay::BySelector | Replay::IndexAsSelector(_)) && t.access == Access::Acts,
                    "{t:?}"
                ),
                Role::Check => assert_eq!(t.params.first().map(|p| p.kind), Some(ParamKind::Selector), "{t:?}"),
                // What a replay leaves out only reads.
                Role::Skipped => assert_eq!(t.access, Access::Reads, "{t:?}"),
                Role::Kept => {}
            }
        }
        assert!(matches!(form_of("set_text", 2).map(|t| t.role), Some(Role::Press(Press::TapThenType))));
        assert_eq!(form_of("tap", 2).map(|t| t.role), Some(Role::Kept), "a tap at a point presses no element");
    }

    #[test]
    fn replay_forms_fit_the_parameters() {
        for t in CATALOG {
            match t.replay {
                Replay::BySelector => assert_eq!(t.params.first().map(|p| p.kind), Some(ParamKind::Selector), "{t:?}"),
                Replay::IndexAsSelector(by) => {
                    let by_selector = CATALOG.iter().any(|s| s.name == by && s.replay == Replay::BySelector);
                    assert!(by_selector, "{t:?} is replayed as {by}(sel), which must take a selector");
                }
                Replay::AsIs => {}
            }
            // Forms of one name with the same number of arguments would make a
            // recorded call's form ambiguous.
            for other in CATALOG.iter().filter(|o| o.name == t.name && !std::ptr::eq(*o, t)) {
                assert!(t.arities().all(|n| !other.arities().contains(&n)), "{t:?} and {other:?} overlap in arity");
            }
        }
    }

    #[test]
    fn optional_parameters_come_last() {
        for t in CATALOG {
            let first_optional = t.params.iter().position(|p| p.optional).unwrap_or(t.params.len());
            assert!(t.params[first_optional..].iter().all(|p| p.optional), "{t:?}");
        }
    }

    #[test]
    fn every_name_has_one_access_and_replay_and_every_doc_is_one_line() {
        for t in CATALOG {
            assert_eq!(access_of(t.name), Some(t.access), "{}: all forms of a tool have one access", t.name);
            assert!(!t.doc.contains('\n'), "{t:?}");
        }
    }
}
