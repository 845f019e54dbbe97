//! A script's own watchers (uiautomator2's): `watch(sel, fn)` declares one, and
//! from then on, between actions and before a selector lookup, the first watcher
//! whose selector matches runs its function (with the element) before the call
//! goes ahead. This file keeps the runtime's side (names and selectors); the
//! functions stay in the engine's worker, which runs them when told
//! (`isolation/worker.rs`). The built-in blocker watchers are `watchers.rs`.

use rhai::{Dynamic, ImmutableString};

use crate::catalog::registry::tool;
use crate::catalog::spec::{Access, ParamKind, ParamSpec, Replay, Role, ToolSpec, common};
use crate::context::ToolContext;
use crate::error::ToolError;

/// Declares (or replaces) a watcher; returns its name.
fn declare(c: &mut ToolContext, name: Option<&str>, sel: &Dynamic) -> Result<String, ToolError> {
    let selector = c.selector(sel)?;
    if selector.ai.is_some() {
        return Err(crate::select::SelectorError::ImageInWatcher.into());
    }
    let name = match (name, sel.clone().into_immutable_string()) {
        (Some(name), _) => name.to_string(),
        (None, Ok(text)) => text.to_string(),
        (None, Err(_)) => selector.shown.clone(),
    };
    c.watch_state().declare(name.clone(), selector)?;
    Ok(name)
}

pub(crate) const WATCH: ToolSpec = ToolSpec {
    name: "watch",
    params: &[common::SEL, common::WATCHER_FN],
    doc: "From now on, whenever sel matches between actions or before a lookup, call fn(element) first, e.g. watch(\"Not now\", |el| tap(el.text)). Returns the watcher's name: the selector's text.",
    access: Access::Acts,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| tool!(r, |c, sel: Dynamic, _function: Dynamic| declare(c, None, &sel)),
};

pub(crate) const WATCH_NAMED: ToolSpec = ToolSpec {
    name: "watch",
    params: &[ParamSpec::new("name", ParamKind::Text, "the watcher's name"), common::SEL, common::WATCHER_FN],
    doc: "The same with a name of your own (a watcher with that name is replaced).",
    access: Access::Acts,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| tool!(r, |c, name: ImmutableString, sel: Dynamic, _function: Dynamic| declare(c, Some(&name), &sel)),
};

pub(crate) const UNWATCH: ToolSpec = ToolSpec {
    name: "unwatch",
    params: &[ParamSpec::new("name", ParamKind::Text, "the watcher's name")],
    doc: "Remove the watcher with that name; returns whether there was one.",
    access: Access::Acts,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| tool!(r, |c, name: ImmutableString| { Ok(c.watch_state().remove(&name)) }),
};
