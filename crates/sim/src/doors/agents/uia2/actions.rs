//! W3C Actions (`POST /actions`) and the server's `appium/gestures/*` calls as
//! the virtual phone's touches and keys. A pointer source's down … moves … up is
//! one gesture from where it went down to where it came up, over the time it took
//! (a tap, a long press, a swipe or a drag, as the phone reads it); a key source's
//! keys are typed, W3C's special keys pressed. One finger at a time: sequences with
//! two pointers down together (pinches) are refused saying so. A request holds at
//! most [`MOST_ITEMS`] items and waits at most [`MOST_MS`] in all (its durations and
//! pauses past that are cut short).

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::find::{ELEMENT_KEY, resolve};
use super::reply::{Reply, Uia2Error, invalid, unsupported};
use crate::device::SimDevice;
use crate::screen::Rect;
use crate::world::input::TouchDown;

const MOST_MS: u64 = 60_000;
const MOST_ITEMS: usize = 1_000;

fn ms(v: Option<&Value>) -> u64 {
    v.and_then(Value::as_f64).filter(|f| f.is_finite() && *f > 0.0).map_or(0, |f| (f as u64).min(MOST_MS))
}

/// The time one request may still wait.
struct Budget(Instant);

impl Budget {
    fn new() -> Self {
        Self(Instant::now() + Duration::from_millis(MOST_MS))
    }

    /// Waits `duration` ms of the step, or what is left of the budget.
    fn wait(&self, step: &Value) {
        let left = self.0.saturating_duration_since(Instant::now());
        std::thread::sleep(Duration::from_millis(ms(step.get("duration"))).min(left));
    }
}

fn coord(v: Option<&Value>) -> f64 {
    v.and_then(Value::as_f64).filter(|f| f.is_finite()).unwrap_or(0.0).clamp(-1e6, 1e6)
}

/// The rectangle of an element a body names (`origin` or `element`), by either key.
fn element_rect(device: &SimDevice, v: &Value) -> Result<Option<Rect>, Uia2Error> {
    let Some(id) = v.get(ELEMENT_KEY).or_else(|| v.get("ELEMENT")).and_then(Value::as_str) else { return Ok(None) };
    let screen = super::screen::page(device);
    Ok(Some(resolve(device, &screen, id)?.1.bounds))
}

/// `POST /actions`.
pub(super) fn perform(device: &SimDevice, body: &Value) -> Reply {
    let sources = body.get("actions").and_then(Value::as_array).ok_or_else(|| invalid("'actions' must be a list"))?;
    let items: usize = sources.iter().filter_map(|s| s.get("actions").and_then(Value::as_array)).map(Vec::len).sum();
    if items > MOST_ITEMS {
        return Err(invalid(format!("more than {MOST_ITEMS} actions in one request")));
    }
    let fingers = sources
        .iter()
        .filter(|s| s.get("type").and_then(Value::as_str) == Some("pointer"))
        .filter(|s| {
            s.get("actions").and_then(Value::as_array).is_some_and(|a| a.iter().any(|i| i["type"] == "pointerDown"))
        })
        .count();
    if fingers > 1 {
        return Err(unsupported("the virtual phone takes one finger at a time: send each finger's gesture on its own"));
    }
    let budget = Budget::new();
    for source in sources {
        let steps = source.get("actions").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
        match source.get("type").and_then(Value::as_str) {
            Some("pointer") => pointer(device, steps, &budget)?,
            Some("key") => keys(device, steps, &budget)?,
            Some("none") | Some("wheel") => steps.iter().for_each(|step| budget.wait(step)),
            other => return Err(invalid(format!("unknown input source type {other:?}"))),
        }
    }
    Ok(Value::Null)
}

/// One finger's sequence.
fn pointer(device: &SimDevice, steps: &[Value], budget: &Budget) -> Result<(), Uia2Error> {
    let mut at = (0i32, 0i32);
    let mut down: Option<(TouchDown, (i32, i32), Instant)> = None;
    for step in steps {
        match step.get("type").and_then(Value::as_str) {
            Some("pointerMove") => {
                let (x, y) = (coord(step.get("x")), coord(step.get("y")));
                let origin = step.get("origin");
                let base = match origin.and_then(Value::as_str) {
                    Some("pointer") => (f64::from(at.0), f64::from(at.1)),
                    None | Some("viewport") => (0.0, 0.0),
                    Some(other) => return Err(invalid(format!("unknown origin {other:?}"))),
                };
                let base = match origin.filter(|o| o.is_object()) {
                    Some(o) => match element_rect(device, o)? {
                        Some(b) => (f64::from(b.left + b.right) / 2.0, f64::from(b.top + b.bottom) / 2.0),
                        None => return Err(invalid("the origin names no element")),
                    },
                    None => base,
                };
                budget.wait(step);
                at = ((base.0 + x).round() as i32, (base.1 + y).round() as i32);
            }
            Some("pointerDown") => down = Some((device.world().touch_down_at(at.0, at.1), at, Instant::now())),
            Some("pointerUp") => {
                if let Some((touch, from, since)) = down.take() {
                    let held = u64::try_from(since.elapsed().as_millis()).unwrap_or(MOST_MS);
                    device.world().swipe_from(touch, from, at, held);
                }
            }
            Some("pause") => budget.wait(step),
            Some("pointerCancel") => down = None,
            other => return Err(invalid(format!("unknown pointer action {other:?}"))),
        }
    }
    Ok(())
}

/// W3C's special keys the phone has a key for.
fn special_key(c: char) -> Option<u32> {
    Some(match c {
        '\u{E003}' | '\u{E017}' => 67, // backspace, delete
        '\u{E006}' | '\u{E007}' => 66, // return, enter
        '\u{E004}' => 61,              // tab
        '\u{E00C}' => 111,             // escape
        '\u{E012}' => 21,
        '\u{E013}' => 19,
        '\u{E014}' => 22,
        '\u{E015}' => 20,
        _ => return None,
    })
}

/// Types the keys a key source presses, in order.
fn keys(device: &SimDevice, steps: &[Value], budget: &Budget) -> Result<(), Uia2Error> {
    for step in steps {
        match step.get("type").and_then(Value::as_str) {
            Some("keyDown") => {
                let value =
                    step.get("value").and_then(Value::as_str).ok_or_else(|| invalid("a key action needs 'value'"))?;
                type_keys(device, value);
            }
            Some("pause") => budget.wait(step),
            Some("keyUp") => {}
            other => return Err(invalid(format!("unknown key action {other:?}"))),
        }
    }
    Ok(())
}

/// Text as key presses: W3C's special keys pressed, the rest typed.
pub(super) fn type_keys(device: &SimDevice, text: &str) {
    let mut world = device.world();
    let mut plain = String::new();
    for c in text.chars() {
        match special_key(c) {
            Some(code) => {
                world.type_text(&std::mem::take(&mut plain));
                world.key(code);
            }
            None if ('\u{E000}'..='\u{F8FF}').contains(&c) => {}
            None => plain.push(c),
        }
    }
    if !plain.is_empty() {
        world.type_text(&plain);
    }
}

/// `POST /appium/gestures/NAME`: `{"origin" | "elementId", "offset" | "area", …}`.
pub(super) fn gesture(device: &SimDevice, name: &str, body: &Value) -> Reply {
    let target = body.get("origin").cloned().or_else(|| body.get("elementId").map(|id| json!({ELEMENT_KEY: id})));
    let rect = match &target {
        Some(t) => element_rect(device, t)?,
        None => None,
    };
    let area = body.get("area").map(|a| {
        let n = |k: &str| coord(a.get(k)) as i32;
        Rect::new(n("left"), n("top"), n("left") + n("width"), n("top") + n("height"))
    });
    let point = match (rect, body.get("offset").or_else(|| body.get("locator"))) {
        (Some(r), Some(o)) => (r.left + coord(o.get("x")) as i32, r.top + coord(o.get("y")) as i32),
        (Some(r), None) => ((r.left + r.right) / 2, (r.top + r.bottom) / 2),
        (None, Some(o)) => (coord(o.get("x")) as i32, coord(o.get("y")) as i32),
        (None, None) => match area.or(rect) {
            Some(r) => ((r.left + r.right) / 2, (r.top + r.bottom) / 2),
            None => return Err(invalid("name an element, an offset or an area")),
        },
    };
    let mut world = device.world();
    match name {
        "click" => world.tap(point.0, point.1),
        "double_click" => {
            world.tap(point.0, point.1);
            world.tap(point.0, point.1);
        }
        "long_click" => {
            let held = ms(body.get("duration")).max(600);
            drop(world);
            let down = device.world().touch_down_at(point.0, point.1);
            std::thread::sleep(Duration::from_millis(held));
            device.world().swipe_from(down, point, point, held);
        }
        "swipe" | "scroll" | "fling" => {
            let r = area.or(rect).ok_or_else(|| invalid("a swipe needs an element or an area"))?;
            let percent = coord(body.get("percent")).clamp(0.0, 1.0).max(0.5);
            let (cx, cy) = ((r.left + r.right) / 2, (r.top + r.bottom) / 2);
            let (dx, dy) =
                ((f64::from(r.width()) * percent / 2.0) as i32, (f64::from(r.height()) * percent / 2.0) as i32);
            let direction = body.get("direction").and_then(Value::as_str).unwrap_or("up").to_ascii_lowercase();
            let (from, to) = match direction.as_str() {
                "up" if name == "swipe" => ((cx, cy + dy), (cx, cy - dy)),
                "down" if name == "swipe" => ((cx, cy - dy), (cx, cy + dy)),
                "down" => ((cx, cy + dy), (cx, cy - dy)),
                "up" => ((cx, cy - dy), (cx, cy + dy)),
                "left" => ((cx + dx, cy), (cx - dx, cy)),
                "right" => ((cx - dx, cy), (cx + dx, cy)),
                other => return Err(invalid(format!("unknown direction {other:?}: up, down, left or right"))),
            };
            world.swipe(from.0, from.1, to.0, to.1, 300);
        }
        "drag" => {
            let end =
                body.get("endX").zip(body.get("endY")).map(|(x, y)| (coord(Some(x)) as i32, coord(Some(y)) as i32));
            let end = end.ok_or_else(|| invalid("a drag needs endX and endY"))?;
            let down = world.touch_down_at(point.0, point.1);
            world.swipe_from(down, point, end, 800);
        }
        other => {
            return Err(unsupported(format!(
                "the gesture {other:?} is not played by the virtual phone: use click, double_click, long_click, swipe, scroll, fling or drag"
            )));
        }
    }
    Ok(json!(name == "scroll" || name == "fling"))
}
