//! Text and keys: typing into the focused field, emptying it, pressing keys.

use rhai::ImmutableString;

use crate::acting::DeviceAct;
use crate::catalog::registry::tool;
use crate::catalog::spec::{Access, Gate, ParamKind, ParamSpec, Replay, Role, ToolSpec};
use crate::context::ToolContext;
use crate::error::ToolError;

fn key(c: &mut ToolContext, name: &str) -> Result<(), ToolError> {
    c.act(DeviceAct::Key(name))
}

fn home(c: &mut ToolContext) -> Result<(), ToolError> {
    c.act(DeviceAct::Home)
}

pub(crate) const INPUT_TEXT: ToolSpec = ToolSpec {
    name: "input_text",
    params: &[ParamSpec::new("text", ParamKind::Text, "what to type, in any language")],
    doc: "Type text (any language) into the focused field (tap it first); fails if no field has focus or the field does not show the text afterwards.",
    access: Access::Acts,
    gates: &[Gate::Text],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| tool!(r, |c, text: ImmutableString| crate::context::typing::type_into_focused(c, &text)),
};

pub(crate) const ERASE: ToolSpec = ToolSpec {
    name: "erase",
    params: &[ParamSpec::new("n", ParamKind::Integer, "how many characters to delete")],
    doc: "Delete n characters before the cursor of the focused field (Backspace n times).",
    access: Access::Acts,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| {
        tool!(r, |c, n: i64| {
            let times = u32::try_from(n).ok().filter(|t| *t <= 1000).ok_or(ToolError::BadCount(n))?;
            c.act(DeviceAct::KeyTimes("delete", times))
        })
    },
};

pub(crate) const CLEAR_TEXT: ToolSpec = ToolSpec {
    name: "clear_text",
    params: &[],
    doc: "Empty the focused text field.",
    access: Access::Acts,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| tool!(r, |c| c.act(DeviceAct::ClearText)),
};

pub(crate) const PRESS_KEY: ToolSpec = ToolSpec {
    name: "press_key",
    params: &[ParamSpec::new(
        "key",
        ParamKind::Text,
        "back, home, enter, delete, tab, a KEYCODE_ name, or a key code number",
    )],
    doc: "Press a key: \"back\", \"home\", \"enter\", \"delete\", \"tab\", a KEYCODE_ name or a number.",
    access: Access::Acts,
    gates: &[Gate::Text],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| tool!(r, |c, name: ImmutableString| key(c, &name)),
};

pub(crate) const BACK: ToolSpec = ToolSpec {
    name: "back",
    params: &[],
    doc: "Press the Back key (hides the keyboard first if it is shown).",
    access: Access::Acts,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| tool!(r, |c| key(c, "back")),
};

pub(crate) const HOME: ToolSpec = ToolSpec {
    name: "home",
    params: &[],
    doc: "Go to the home screen.",
    access: Access::Acts,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| tool!(r, |c| home(c)),
};

pub(crate) const GO_HOME: ToolSpec = ToolSpec {
    name: "go_home",
    params: &[],
    doc: "Go to the home screen (same as home()).",
    access: Access::Acts,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| tool!(r, |c| home(c)),
};
