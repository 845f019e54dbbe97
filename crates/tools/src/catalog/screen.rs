//! The screen itself: waiting, reading it again, taking a screenshot.

use std::time::Duration;

use rhai::{Dynamic, ImmutableString, Map};

use crate::arguments::wait_ms;
use crate::catalog::registry::tool;
use crate::catalog::spec::{Access, ParamKind, ParamSpec, Replay, Role, ToolSpec};
use crate::context::ToolContext;
use crate::error::ToolError;

/// Width and height from a PNG's header.
fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    let reader = png::Decoder::new(std::io::Cursor::new(png)).read_info().ok()?;
    Some((reader.info().width, reader.info().height))
}

pub(crate) const WAIT: ToolSpec = ToolSpec {
    name: "wait",
    params: &[ParamSpec::new("ms", ParamKind::Integer, "how long to wait, in milliseconds")],
    doc: "Wait this many milliseconds (bounded by the snippet's time limit).",
    access: Access::Reads,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| {
        tool!(r, |c, ms: i64| {
            let ms = wait_ms(ms, "ms")?;
            let wanted = Duration::from_millis(ms);
            let room = c.left();
            c.pause(wanted.min(room))?;
            if wanted > room { Err(ToolError::WaitTooLong(ms)) } else { Ok(()) }
        })
    },
};

pub(crate) const REFRESH: ToolSpec = ToolSpec {
    name: "refresh",
    params: &[],
    doc: "Read the screen again: ui_state and phone_state are updated.",
    access: Access::Reads,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Skipped,
    register: |r| {
        tool!(r, |c| {
            let seen = c.refresh()?;
            // A blocker the watchers answer is gone before the next action: ui_state
            // shows the screen that action will meet, so its indices hold.
            if !c.watchers_before(seen)?.is_empty() {
                c.refresh()?;
            }
            Ok(())
        })
    },
};

/// Takes a screenshot for the action record, under `name` when given.
fn screenshot(c: &mut ToolContext, name: Option<&str>) -> Result<Map, ToolError> {
    if let Some(name) = name {
        let fits = !name.is_empty()
            && name.len() <= 64
            && name.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '_');
        if !fits {
            return Err(ToolError::BadName(name.to_string()));
        }
    }
    let png = c.capture_screenshot()?;
    c.call_record().name_screenshot(name.map(str::to_string));
    let (w, h) = png_size(&png).unwrap_or_default();
    let mut m = Map::new();
    m.insert("width".into(), Dynamic::from(i64::from(w)));
    m.insert("height".into(), Dynamic::from(i64::from(h)));
    m.insert("bytes".into(), Dynamic::from(png.len() as i64));
    Ok(m)
}

pub(crate) const SCREENSHOT: ToolSpec = ToolSpec {
    name: "screenshot",
    params: &[ParamSpec::optional("name", ParamKind::Text, "a name for the file it is kept as")],
    doc: "Take a screenshot (kept in the trajectory, as NNNN-name.png when named); returns #{width, height, bytes}.",
    access: Access::Reads,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Skipped,
    register: |r| {
        tool!(r, |c| screenshot(c, None));
        tool!(r, |c, name: ImmutableString| screenshot(c, Some(&name)));
    },
};
