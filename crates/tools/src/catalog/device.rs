//! Device control for test engineers: stopping an app, hiding the keyboard, and a
//! shell command (`simctl state` on the virtual phone, `getprop` on a real one).
//! `shell` is in no built-in persona: an LLM gets it only from a persona that names
//! it. Every call is recorded like any other action.

use rhai::{Dynamic, ImmutableString, Map};

use crate::acting::DeviceAct;
use crate::catalog::registry::tool;
use crate::catalog::spec::{Access, Gate, ParamKind, ParamSpec, Replay, Role, ToolSpec, common};
use crate::context::ToolContext;
use crate::error::ToolError;

fn shell(c: &mut ToolContext, command: &str) -> Result<Map, ToolError> {
    // Judged by its words and by the input it injects; the screen settles after it.
    let out = c.run_shell(command)?;
    let mut m = Map::new();
    m.insert("output".into(), Dynamic::from(out.stdout_text()));
    m.insert("error".into(), Dynamic::from(out.stderr_text()));
    m.insert("code".into(), Dynamic::from(i64::from(out.code.unwrap_or(0))));
    Ok(m)
}

fn hide_keyboard(c: &mut ToolContext) -> Result<bool, ToolError> {
    let shown = c.reads().observe()?.phone.keyboard_shown;
    if shown {
        c.act(DeviceAct::Key("back"))?;
    }
    Ok(shown)
}

/// The clipboard through `simctl`: Android lets only the app in front (or the
/// keyboard) read it, so a real phone says so instead.
fn clipboard(c: &mut ToolContext, set: Option<&str>) -> Result<String, ToolError> {
    match set {
        Some(text) => {
            let out = c.set_clipboard(text)?;
            if out.code.unwrap_or(0) != 0 {
                return Err(ToolError::NoClipboard);
            }
            Ok(String::new())
        }
        None => c.reads().clipboard()?.ok_or(ToolError::NoClipboard),
    }
}

pub(crate) const GET_CLIPBOARD: ToolSpec = ToolSpec {
    name: "get_clipboard",
    params: &[],
    doc: "The text on the clipboard (the virtual phone; a real one lets only the app in front read it).",
    access: Access::Reads,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Skipped,
    register: |r| tool!(r, |c| clipboard(c, None)),
};

pub(crate) const SET_CLIPBOARD: ToolSpec = ToolSpec {
    name: "set_clipboard",
    params: &[common::TEXT],
    doc: "Put text on the clipboard (the virtual phone); press_key(\"KEYCODE_PASTE\") pastes it into the focused field.",
    access: Access::Acts,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| {
        tool!(r, |c, text: ImmutableString| {
            clipboard(c, Some(&text))?;
            Ok(())
        })
    },
};

pub(crate) const STOP_APP: ToolSpec = ToolSpec {
    name: "stop_app",
    params: &[common::PACKAGE],
    doc: "Force-stop an app by package name (its next start is a cold one).",
    access: Access::Acts,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| tool!(r, |c, package: ImmutableString| c.act(DeviceAct::StopApp(&package))),
};

pub(crate) const HIDE_KEYBOARD: ToolSpec = ToolSpec {
    name: "hide_keyboard",
    params: &[],
    doc: "Hide the on-screen keyboard if it is shown (nothing else is pressed); returns whether it was.",
    access: Access::Acts,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| tool!(r, |c| hide_keyboard(c)),
};

pub(crate) const SHELL: ToolSpec = ToolSpec {
    name: "shell",
    params: &[ParamSpec::new("command", ParamKind::Text, "a command line for the device's shell")],
    doc: "Run a shell command on the device; returns #{output, error, code}. On the virtual phone, shell(\"simctl state\") is its whole state as JSON.",
    access: Access::Acts,
    gates: &[Gate::Command],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| tool!(r, |c, command: ImmutableString| shell(c, &command)),
};
