//! What a client does with an element reference: click, clear, send keys (each
//! the Rhai line a script would hold — the element's unique selector when it has
//! one, else its centre — run through the session's tools), and read its text,
//! tag, attributes and properties, rect, displayed / enabled / selected state, and
//! a picture of it. A reference is found again on the live screen by its
//! signature (the nearest when several share it); gone is W3C's `stale element
//! reference`. A place found by a picture or a model is acted on where it was.
//! Not finding (`find.rs`).

use std::sync::Arc;

use base64::Engine as _;
use codeact_platform::device::{Observation, Platform};
use codeact_platform::ui::{Bounds, UiTree};
use codeact_runtime::session::Screen;
use codeact_tools::{selector_for, toggle_selector_for};
use serde_json::{Value, json};

use super::session::{Held, Place, WdSession};
use super::source::Page;
use super::wire::{Failure, Reply, Request, clipped, invalid, no_such_element, unknown_command, unknown_error};
use codeact_tools::call::ToolCall;

/// W3C's key for an element reference (Appium also sends the legacy `ELEMENT`).
pub const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// The most text one send-keys types.
pub const MOST_TEXT: usize = 100_000;

/// An element reference as a reply.
pub fn reference(id: &str) -> Value {
    json!({"ELEMENT": id, ELEMENT_KEY: id})
}

fn stale(id: &str) -> Failure {
    Failure::new(
        "stale element reference",
        format!("the element {} is no longer on the screen: find it again", clipped(id, 60)),
    )
}

/// Where a reference is on the live screen.
pub enum Resolved {
    Tree(usize),
    Place(Place),
}

/// Finds reference `id` on `obs`.
pub fn resolve(s: &WdSession, obs: &Observation, id: &str) -> Result<Resolved, Failure> {
    match s.held(id).ok_or_else(|| stale(id))? {
        Held::Tree { signature, bounds } => {
            let (cx, cy) = bounds.center();
            let distance = |b: &Bounds| {
                let (x, y) = b.center();
                (i64::from(x) - i64::from(cx)).abs() + (i64::from(y) - i64::from(cy)).abs()
            };
            let found =
                obs.ui.elements.iter().filter(|e| e.signature == *signature).min_by_key(|e| distance(&e.bounds));
            found.map(|e| Resolved::Tree(e.id)).ok_or_else(|| stale(id))
        }
        Held::Place(place) => Ok(Resolved::Place(place.clone())),
    }
}

/// What the line of Rhai names the element by: its unique selector, else its centre.
fn aim(tree: &UiTree, id: usize) -> Option<String> {
    let e = tree.get(id)?;
    if e.checkable { toggle_selector_for(tree, id) } else { selector_for(tree, id) }
}

/// The text a send-keys body carries (`text`, else `value` joined), its W3C key
/// codes as keys pressed after it (Enter, Tab, Backspace) or dropped.
pub fn typed(body: &Value) -> Result<(String, Vec<&'static str>), Failure> {
    let text = match (body.get("text").and_then(Value::as_str), body.get("value")) {
        (Some(t), _) => t.to_string(),
        (None, Some(Value::Array(parts))) => parts.iter().filter_map(Value::as_str).collect(),
        _ => return Err(invalid("send keys takes {\"text\": \"...\"}")),
    };
    if text.chars().count() > MOST_TEXT {
        return Err(invalid(format!("more than {MOST_TEXT} characters to type")));
    }
    let mut plain = String::new();
    let mut keys = Vec::new();
    for c in text.chars() {
        match c {
            '\u{E006}' | '\u{E007}' => keys.push("enter"),
            '\u{E004}' => keys.push("tab"),
            '\u{E003}' => keys.push("delete"),
            '\u{E000}'..='\u{F8FF}' => {}
            c => plain.push(c),
        }
    }
    Ok((plain, keys))
}

/// A command on element `id`.
pub fn command(s: &mut WdSession, request: &Request, id: &str, what: &[&str], body: &Value) -> Reply {
    let method = request.method;
    if id == "active" && what.is_empty() {
        let obs = s.look()?;
        let focused = obs.phone.focused.or_else(|| obs.ui.elements.iter().find(|e| e.focused).map(|e| e.id));
        let e = focused.and_then(|f| obs.ui.get(f)).ok_or_else(|| no_such_element("the focused element"))?;
        return Ok(reference(&s.remember(Held::Tree { signature: e.signature, bounds: e.bounds })));
    }
    let obs = s.look()?;
    let at = resolve(s, &obs, id)?;
    match (method, what, &at) {
        ("POST", ["click"], _) => act(s, &obs, &at, "POST /element/:id/click", Act::Tap),
        ("POST", ["clear"], _) => act(s, &obs, &at, "POST /element/:id/clear", Act::Clear),
        ("POST", ["value"], _) => {
            let (text, keys) = typed(body)?;
            let how = match request.sensitive {
                true => Act::Secret(lend(s, &text)?, keys),
                false => Act::Type(text, keys),
            };
            act(s, &obs, &at, "POST /element/:id/value", how)
        }
        ("GET", ["rect"], _) => Ok(rect(&obs, &at, s.platform)),
        ("GET", ["location"], _) => Ok(rect(&obs, &at, s.platform)),
        ("GET", ["size"], _) => Ok(rect(&obs, &at, s.platform)),
        ("GET", ["screenshot"], _) => picture_of(s, &obs, &at),
        ("GET", rest, Resolved::Tree(e)) => read(&obs, *e, rest),
        ("GET", rest, Resolved::Place(place)) => read_place(s, &obs, place, rest),
        _ => Err(unknown_command(method, &format!("/element/{}/{}", clipped(id, 40), what.join("/")))),
    }
}

/// What a click, clear or send-keys does.
enum Act {
    Tap,
    Clear,
    Type(String, Vec<&'static str>),
    /// Keys sent with `X-Appium-Is-Sensitive`: the name of the secret lent to the
    /// session, typed with `type_secret` so no record holds the value.
    Secret(String, Vec<&'static str>),
}

/// Lends a sensitive value to the session under a fresh name.
fn lend(s: &mut WdSession, value: &str) -> Result<String, Failure> {
    let name = s.secret_name();
    let shortest = codeact_base::secrets::SHORTEST_TYPED;
    if value.len() < shortest {
        return Err(invalid(format!(
            "a sensitive value must be at least {shortest} characters to be kept out of the records"
        )));
    }
    if !s.session.lend_secret(&name, value) {
        return Err(invalid("this session was lent more sensitive text than a session may hold: start a new session"));
    }
    Ok(name)
}

/// The call that types `text` into the focused field: `input_text(...)`, or, sent
/// with `X-Appium-Is-Sensitive`, `type_secret(NAME)` of the value lent to the
/// session under a fresh name — so no record holds it, and a replay types it from
/// `CODEACT_SECRET_NAME`.
pub fn typing(s: &mut WdSession, text: &str, sensitive: bool) -> Result<ToolCall, Failure> {
    Ok(match sensitive {
        true => ToolCall::type_secret(&lend(s, text)?),
        false => ToolCall::input_text(text),
    })
}

fn act(s: &mut WdSession, obs: &Arc<Observation>, at: &Resolved, command: &str, what: Act) -> Reply {
    let (selector, centre, editable) = match at {
        Resolved::Tree(id) => {
            let e = obs.ui.get(*id).ok_or_else(|| unknown_error("the element left the tree"))?;
            if !e.visible {
                let b = e.bounds;
                return Err(Failure::new(
                    "element not interactable",
                    format!(
                        "the element lies off the screen (bounds [{},{}][{},{}]): scroll it into view first (-android uiautomator UiScrollable, or a swipe)",
                        b.left, b.top, b.right, b.bottom
                    ),
                ));
            }
            (aim(&obs.ui, *id), e.center, e.is_editable())
        }
        // A place a picture or the model found is acted on where it was found: its
        // centre, a point a replay taps again (never the view around it).
        Resolved::Place(place) => (None, place.rect.center(), false),
    };
    let tap = match &selector {
        Some(sel) => ToolCall::tap(sel),
        None => ToolCall::tap_point(centre.0.into(), centre.1.into()),
    };
    let calls = match what {
        Act::Tap => vec![tap],
        Act::Clear => match (&selector, editable) {
            (Some(sel), true) => vec![ToolCall::set_text(sel, "")],
            _ => vec![tap, ToolCall::clear_text()],
        },
        Act::Type(text, keys) => {
            let mut calls = match (&selector, editable) {
                (Some(sel), true) => vec![ToolCall::set_text(sel, &text)],
                _ => vec![tap, ToolCall::input_text(&text)],
            };
            pressed(&mut calls, &keys);
            calls
        }
        Act::Secret(name, keys) => {
            let clear = match (&selector, editable) {
                (Some(sel), true) => ToolCall::set_text(sel, ""),
                _ => tap,
            };
            let mut calls = vec![clear, ToolCall::type_secret(&name)];
            pressed(&mut calls, &keys);
            calls
        }
    };
    s.act(command, &calls, Screen::JustRead(obs))?;
    Ok(Value::Null)
}

/// The keys pressed after typing.
pub fn pressed(calls: &mut Vec<ToolCall>, keys: &[&str]) {
    calls.extend(keys.iter().map(|key| ToolCall::press_key(key)));
}

/// `GET /element/:id/rect` (and `location`, `size`): in the client's units (iOS: points).
fn rect(obs: &Observation, at: &Resolved, platform: Platform) -> Value {
    let b = match at {
        Resolved::Tree(id) => obs.ui.get(*id).map(|e| e.bounds).unwrap_or_default(),
        Resolved::Place(place) => place.rect,
    };
    let scale = if platform == Platform::Ios { Page::of(obs).scale } else { 1.0 };
    let unit = |v: i32| (f64::from(v) / scale).round() as i64;
    json!({"x": unit(b.left), "y": unit(b.top), "width": unit(b.width()), "height": unit(b.height())})
}

/// The reads of a tree element: text, name (its tag), attribute, property, state.
fn read(obs: &Observation, id: usize, what: &[&str]) -> Reply {
    let page = Page::of(obs);
    let e = obs.ui.get(id).ok_or_else(|| unknown_error("the element left the tree"))?;
    let shown = |t: String| codeact_base::secrets::blot_registered(&t).into_owned();
    Ok(match what {
        ["text"] => json!(shown(page.text(id))),
        ["name"] => json!(page.tags.get(id).cloned().unwrap_or_default()),
        ["attribute" | "property", name] => match *name {
            "checked" => json!(e.checked.to_string()),
            _ => page.attribute(id, name).map_or(Value::Null, |v| json!(shown(v.to_string()))),
        },
        ["displayed"] => json!(e.visible),
        ["enabled"] => json!(e.enabled),
        ["selected"] => json!(e.selected || e.checked),
        other => {
            return Err(unknown_command("GET", &format!("/element/:id/{}", clipped(&other.join("/"), 60))));
        }
    })
}

/// The reads of a place a picture or the model found: its tag (`codeact.Image`,
/// `codeact.Described`), shown and enabled, no text; attributes as Appium's image
/// elements answer them — `score` (a picture's match), `visual` (the matched part
/// of the screen, base64 PNG) — and `class`, `bounds`, `displayed`, `enabled`.
fn read_place(s: &mut WdSession, obs: &Observation, place: &Place, what: &[&str]) -> Reply {
    let b = place.rect;
    Ok(match what {
        ["name"] => json!(place.class),
        ["text"] => json!(""),
        ["displayed" | "enabled"] => json!(true),
        ["selected"] => json!(false),
        ["attribute" | "property", name] => match *name {
            "score" => place.score.map_or(Value::Null, |v| json!((f64::from(v) * 1000.0).round() / 1000.0)),
            "visual" => return picture_of(s, obs, &Resolved::Place(place.clone())),
            "class" | "className" => json!(place.class),
            "bounds" => json!(format!("[{},{}][{},{}]", b.left, b.top, b.right, b.bottom)),
            "displayed" | "enabled" => json!("true"),
            "selected" | "checked" => json!("false"),
            _ => Value::Null,
        },
        other => {
            return Err(unknown_command("GET", &format!("/element/:id/{}", clipped(&other.join("/"), 60))));
        }
    })
}

/// `GET /element/:id/screenshot`: the element's part of a screenshot, base64 PNG.
fn picture_of(s: &mut WdSession, obs: &Observation, at: &Resolved) -> Reply {
    let b = match at {
        Resolved::Tree(id) => obs.ui.get(*id).map(|e| e.bounds).unwrap_or_default(),
        Resolved::Place(place) => place.rect,
    };
    let png = s.session.screenshot().map_err(|e| unknown_error(codeact_base::error_text::full_message(&e)))?;
    let shot =
        image::load_from_memory(&png).map_err(|e| unknown_error(format!("the screenshot is unreadable: {e}")))?;
    let (w, h) = (shot.width() as i32, shot.height() as i32);
    let (left, top) = (b.left.clamp(0, w), b.top.clamp(0, h));
    let (right, bottom) = (b.right.clamp(left, w), b.bottom.clamp(top, h));
    if right <= left || bottom <= top {
        return Err(Failure::new("element not interactable", "the element has no area on the screen"));
    }
    let part = shot.crop_imm(left as u32, top as u32, (right - left) as u32, (bottom - top) as u32);
    let mut out = std::io::Cursor::new(Vec::new());
    part.write_to(&mut out, image::ImageFormat::Png)
        .map_err(|e| unknown_error(format!("the picture was not written: {e}")))?;
    Ok(json!(base64::engine::general_purpose::STANDARD.encode(out.into_inner())))
}
