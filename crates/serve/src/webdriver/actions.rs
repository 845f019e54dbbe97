//! W3C actions (`POST /actions`) as the gestures codeact's tools make: one
//! pointer's down, pauses, moves and up read as a tap, a long press (held 500 ms
//! or more), a swipe, or a drag (held before it moves); key actions typed as text
//! with Enter, Tab and Backspace pressed as keys. Coordinates are the viewport's
//! (iOS: points), or offsets from an element's centre or from the pointer. All of
//! it runs as one snippet, one recorded step. Bounded: at most [`MOST_TICKS`]
//! actions and [`MOST_MS`] of waiting. Two fingers at once are refused, saying so.
//! Not the other commands.

use serde_json::Value;

use super::element::{ELEMENT_KEY, Resolved, resolve};
use super::session::WdSession;
use super::source::Page;
use super::wire::{Failure, Reply, clipped, invalid, unsupported};
use codeact_platform::device::Platform;
use codeact_runtime::session::Screen;
use codeact_tools::call::ToolCall;

/// The most actions one request may hold.
const MOST_TICKS: usize = 2_000;
/// The most time the actions may ask to take, in milliseconds.
const MOST_MS: u64 = 60_000;
/// A touch held this long without moving is a long press.
const LONG_PRESS_MS: u64 = 500;

/// Where a finger is and what it has done since it went down.
struct Finger {
    at: (f64, f64),
    down: Option<Down>,
}

struct Down {
    from: (f64, f64),
    held_ms: u64,
    moved: bool,
    move_ms: u64,
    held_before_move: u64,
}

pub fn perform(s: &mut WdSession, body: &Value, sensitive: bool) -> Reply {
    let sources = body.get("actions").and_then(Value::as_array).ok_or_else(|| invalid("'actions' must be a list"))?;
    let pointers: Vec<&Value> =
        sources.iter().filter(|s| s.get("type").and_then(Value::as_str) == Some("pointer")).collect();
    let busy = pointers
        .iter()
        .filter(|p| {
            p.get("actions").and_then(Value::as_array).is_some_and(|a| a.iter().any(|t| t["type"] == "pointerDown"))
        })
        .count();
    if busy > 1 {
        return Err(unsupported(
            "codeact drives one finger at a time: a pinch or a multi-finger gesture cannot be made; send one pointer",
        ));
    }
    let ticks: usize = sources.iter().filter_map(|s| s.get("actions").and_then(Value::as_array)).map(Vec::len).sum();
    if ticks > MOST_TICKS {
        return Err(invalid(format!("more than {MOST_TICKS} actions in one request")));
    }
    let obs = s.look()?;
    let scale = if s.platform == Platform::Ios { Page::of(&obs).scale } else { 1.0 };
    let mut lines = Vec::new();
    let mut waited = 0u64;
    for source in sources {
        let kind = source.get("type").and_then(Value::as_str).unwrap_or("");
        let actions = source.get("actions").and_then(Value::as_array).cloned().unwrap_or_default();
        match kind {
            "pointer" => pointer(s, &obs, &actions, scale, &mut lines, &mut waited)?,
            "key" => keys(&actions, &mut lines, &mut |text| super::element::typing(s, text, sensitive))?,
            "none" | "wheel" => {}
            other => {
                return Err(invalid(format!("no action source of type {}: pointer, key or none", clipped(other, 40))));
            }
        }
    }
    if waited > MOST_MS {
        return Err(invalid(format!("the actions would take more than {} s", MOST_MS / 1000)));
    }
    if lines.is_empty() {
        return Ok(Value::Null);
    }
    s.act("POST /actions", &lines, Screen::Live)?;
    Ok(Value::Null)
}

fn ms(action: &Value) -> u64 {
    action
        .get("duration")
        .and_then(Value::as_f64)
        .filter(|d| d.is_finite() && *d > 0.0)
        .map_or(0, |d| d.min(MOST_MS as f64) as u64)
}

fn pointer(
    s: &WdSession,
    obs: &codeact_platform::device::Observation,
    actions: &[Value],
    scale: f64,
    lines: &mut Vec<ToolCall>,
    waited: &mut u64,
) -> Result<(), Failure> {
    let mut finger = Finger { at: (0.0, 0.0), down: None };
    let px = |v: f64| (v * scale).round().clamp(-1e6, 1e6) as i32;
    for action in actions {
        let duration = ms(action);
        *waited += duration;
        match action.get("type").and_then(Value::as_str).unwrap_or("") {
            "pause" => {
                if let Some(d) = finger.down.as_mut() {
                    d.held_ms += duration;
                    if !d.moved {
                        d.held_before_move += duration;
                    }
                }
            }
            "pointerMove" => {
                let number = |k: &str| action.get(k).and_then(Value::as_f64).filter(|v| v.is_finite()).unwrap_or(0.0);
                let (x, y) = (number("x"), number("y"));
                let origin = action.get("origin");
                let to = match origin {
                    Some(Value::String(o)) if o == "pointer" => (finger.at.0 + x, finger.at.1 + y),
                    Some(Value::Object(element)) => {
                        let id = element
                            .get(ELEMENT_KEY)
                            .or_else(|| element.get("ELEMENT"))
                            .and_then(Value::as_str)
                            .ok_or_else(|| invalid("an origin element needs its reference"))?;
                        let centre = match resolve(s, obs, id)? {
                            Resolved::Tree(e) => obs.ui.get(e).map(|e| e.center).unwrap_or_default(),
                            Resolved::Place(place) => place.rect.center(),
                        };
                        (f64::from(centre.0) / scale + x, f64::from(centre.1) / scale + y)
                    }
                    _ => (x, y),
                };
                if let Some(d) = finger.down.as_mut()
                    && (to.0 - finger.at.0).abs() + (to.1 - finger.at.1).abs() > 0.5
                {
                    d.moved = true;
                    d.move_ms += duration;
                }
                finger.at = to;
            }
            "pointerDown" => {
                finger.down = Some(Down { from: finger.at, held_ms: 0, moved: false, move_ms: 0, held_before_move: 0 });
            }
            "pointerUp" => {
                let Some(d) = finger.down.take() else { continue };
                let (x1, y1) = (i64::from(px(d.from.0)), i64::from(px(d.from.1)));
                let (x2, y2) = (i64::from(px(finger.at.0)), i64::from(px(finger.at.1)));
                lines.push(match (d.moved, d.held_before_move >= LONG_PRESS_MS) {
                    (false, false) if d.held_ms < LONG_PRESS_MS => ToolCall::tap_point(x1, y1),
                    (false, _) => ToolCall::long_press_point(x1, y1, Some(millis(d.held_ms.max(LONG_PRESS_MS)))),
                    (true, true) => ToolCall::drag_points((x1, y1), (x2, y2), millis(d.move_ms.max(100))),
                    (true, false) => ToolCall::swipe_points((x1, y1), (x2, y2), Some(millis(d.move_ms.max(50)))),
                });
            }
            other => {
                return Err(invalid(format!(
                    "no pointer action {}: pointerMove, pointerDown, pointerUp, pause",
                    clipped(other, 40)
                )));
            }
        }
    }
    Ok(())
}

/// Key actions as calls: the text typed (by `typing`, which knows whether it is
/// sensitive), the special keys pressed.
fn keys(
    actions: &[Value],
    lines: &mut Vec<ToolCall>,
    typing: &mut dyn FnMut(&str) -> Result<ToolCall, Failure>,
) -> Result<(), Failure> {
    let mut text = String::new();
    let mut flush = |text: &mut String, lines: &mut Vec<ToolCall>| -> Result<(), Failure> {
        if !text.is_empty() {
            if text.chars().count() > super::element::MOST_TEXT {
                return Err(invalid(format!("more than {} characters to type", super::element::MOST_TEXT)));
            }
            lines.push(typing(text)?);
            text.clear();
        }
        Ok(())
    };
    for action in actions {
        if action.get("type").and_then(Value::as_str) != Some("keyDown") {
            continue;
        }
        let value = action.get("value").and_then(Value::as_str).unwrap_or("");
        for c in value.chars() {
            let key = match c {
                '\u{E006}' | '\u{E007}' => Some("enter"),
                '\u{E004}' => Some("tab"),
                '\u{E003}' | '\u{E017}' => Some("delete"),
                '\u{E00C}' => Some("back"),
                '\u{E000}'..='\u{F8FF}' => None,
                c => {
                    text.push(c);
                    continue;
                }
            };
            if let Some(key) = key {
                flush(&mut text, lines)?;
                lines.push(ToolCall::press_key(key));
            }
        }
    }
    flush(&mut text, lines)?;
    Ok(())
}

/// Milliseconds as a script writes them.
fn millis(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}
