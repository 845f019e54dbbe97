//! Text and keys: typing into the focused field, emptying it, pressing keys.

use rhai::ImmutableString;

use crate::tools::acting::DeviceAct;
use crate::tools::context::ToolContext;
use crate::tools::error::ToolError;
use crate::tools::registry::tool;
use crate::tools::spec::{Effect, ToolSpec};

fn key(c: &mut ToolContext, name: &str) -> Result<(), ToolError> {
    c.act(DeviceAct::Key(name))
}

fn home(c: &mut ToolContext) -> Result<(), ToolError> {
    c.act(DeviceAct::Home)
}

pub(crate) const INPUT_TEXT: ToolSpec = ToolSpec {
    name: "input_text",
    signature: "input_text(text)",
    doc: "Type text (any language) into the focused field (tap it first); fails if no field has focus or the field does not show the text afterwards.",
    effect: Effect::Acts,
    register: |r| tool!(r, |c, text: ImmutableString| crate::tools::typing::type_into_focused(c, &text)),
};

pub(crate) const ERASE: ToolSpec = ToolSpec {
    name: "erase",
    signature: "erase(n)",
    doc: "Delete n characters before the cursor of the focused field (Backspace n times).",
    effect: Effect::Acts,
    register: |r| {
        tool!(r, |c, n: i64| {
            let times = u32::try_from(n).ok().filter(|t| *t <= 1000).ok_or(ToolError::BadCount(n))?;
            c.act(DeviceAct::KeyTimes("delete", times))
        })
    },
};

pub(crate) const CLEAR_TEXT: ToolSpec = ToolSpec {
    name: "clear_text",
    signature: "clear_text()",
    doc: "Empty the focused text field.",
    effect: Effect::Acts,
    register: |r| tool!(r, |c| c.act(DeviceAct::ClearText)),
};

pub(crate) const PRESS_KEY: ToolSpec = ToolSpec {
    name: "press_key",
    signature: "press_key(key)",
    doc: "Press a key: \"back\", \"home\", \"enter\", \"delete\", \"tab\", a KEYCODE_ name or a number.",
    effect: Effect::Acts,
    register: |r| tool!(r, |c, name: ImmutableString| key(c, &name)),
};

pub(crate) const BACK: ToolSpec = ToolSpec {
    name: "back",
    signature: "back()",
    doc: "Press the Back key (hides the keyboard first if it is shown).",
    effect: Effect::Acts,
    register: |r| tool!(r, |c| key(c, "back")),
};

pub(crate) const HOME: ToolSpec = ToolSpec {
    name: "home",
    signature: "home()",
    doc: "Go to the home screen.",
    effect: Effect::Acts,
    register: |r| tool!(r, |c| home(c)),
};

pub(crate) const GO_HOME: ToolSpec = ToolSpec {
    name: "go_home",
    signature: "go_home()",
    doc: "Go to the home screen (same as home()).",
    effect: Effect::Acts,
    register: |r| tool!(r, |c| home(c)),
};
