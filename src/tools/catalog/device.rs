//! Device control for test engineers: stopping an app, hiding the keyboard, and a
//! shell command (`simctl state` on the virtual phone, `getprop` on a real one).
//! `shell` is in no built-in persona: an LLM gets it only from a persona that names
//! it. Every call is recorded like any other action.

use rhai::{Dynamic, ImmutableString, Map};

use crate::tools::context::ToolContext;
use crate::tools::error::ToolError;
use crate::tools::registry::tool;
use crate::tools::{Effect, ToolSpec};

fn shell(c: &mut ToolContext, command: &str) -> Result<Map, ToolError> {
    c.gate(&format!("run {command:?} in the device shell"), &[command.to_string()])?;
    // `input tap X Y` presses whatever is there: that element is gated too.
    let words: Vec<&str> = command.split_whitespace().collect();
    if let ["input", "tap", x, y, ..] = words.as_slice()
        && let (Ok(x), Ok(y)) = (x.parse::<i32>(), y.parse::<i32>())
    {
        c.look()?;
        c.gate_point("tap (through the shell) on", (x, y))?;
    }
    let out = c.device().shell(command)?;
    // The command may have changed what is on screen.
    c.after_action();
    let mut m = Map::new();
    m.insert("output".into(), Dynamic::from(out.stdout_text()));
    m.insert("error".into(), Dynamic::from(out.stderr_text()));
    m.insert("code".into(), Dynamic::from(i64::from(out.code.unwrap_or(0))));
    Ok(m)
}

fn hide_keyboard(c: &mut ToolContext) -> Result<bool, ToolError> {
    let shown = c.device().observe()?.phone.keyboard_shown;
    if shown {
        c.act(|d| d.press_key("back"))?;
    }
    Ok(shown)
}

/// The clipboard through `simctl`: Android lets only the app in front (or the
/// keyboard) read it, so a real phone says so instead.
fn clipboard(c: &mut ToolContext, set: Option<&str>) -> Result<String, ToolError> {
    let command = match set {
        Some(text) => format!("simctl clipboard set {}", crate::device::adb::quote(text)),
        None => "simctl clipboard".to_string(),
    };
    let out = c.device().shell(&command)?;
    if out.code.unwrap_or(0) != 0 {
        return Err(ToolError::NoClipboard);
    }
    Ok(out.stdout_text())
}

pub(crate) const GET_CLIPBOARD: ToolSpec = ToolSpec {
    name: "get_clipboard",
    signature: "get_clipboard()",
    doc: "The text on the clipboard (the virtual phone; a real one lets only the app in front read it).",
    effect: Effect::Reads,
    register: |r| tool!(r, |c| clipboard(c, None)),
};

pub(crate) const SET_CLIPBOARD: ToolSpec = ToolSpec {
    name: "set_clipboard",
    signature: "set_clipboard(text)",
    doc: "Put text on the clipboard (the virtual phone); press_key(\"KEYCODE_PASTE\") pastes it into the focused field.",
    effect: Effect::Acts,
    register: |r| {
        tool!(r, |c, text: ImmutableString| {
            clipboard(c, Some(&text))?;
            Ok(())
        })
    },
};

pub(crate) const STOP_APP: ToolSpec = ToolSpec {
    name: "stop_app",
    signature: "stop_app(package)",
    doc: "Force-stop an app by package name (its next start is a cold one).",
    effect: Effect::Acts,
    register: |r| tool!(r, |c, package: ImmutableString| c.act(|d| d.stop_app(&package))),
};

pub(crate) const HIDE_KEYBOARD: ToolSpec = ToolSpec {
    name: "hide_keyboard",
    signature: "hide_keyboard()",
    doc: "Hide the on-screen keyboard if it is shown (nothing else is pressed); returns whether it was.",
    effect: Effect::Acts,
    register: |r| tool!(r, |c| hide_keyboard(c)),
};

pub(crate) const SHELL: ToolSpec = ToolSpec {
    name: "shell",
    signature: "shell(command)",
    doc: "Run a shell command on the device; returns #{output, error, code}. On the virtual phone, shell(\"simctl state\") is its whole state as JSON.",
    effect: Effect::Acts,
    register: |r| tool!(r, |c, command: ImmutableString| shell(c, &command)),
};
