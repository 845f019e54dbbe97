//! A session's commands on the phone rather than an element: the page source (in
//! its platform's form), a screenshot, Back, keys to the focused field, the window's size, timeouts, the app
//! and activity in front, keys by code, apps started and stopped, the keyboard,
//! contexts and settings, and `POST /execute/sync` with the `mobile:` methods
//! people use most — each act the Rhai line a script would hold, so the gate, the
//! watchers and the record are a script's; `mobile: shell` only where the persona
//! has the `shell` tool. Anything else is refused, saying what works instead. Not
//! elements (`element.rs`) or W3C actions (`actions.rs`).

use std::time::Duration;

use base64::Engine as _;
use serde_json::{Value, json};

use super::session::WdSession;
use super::source::Page;
use super::wire::{Failure, Reply, Request, clipped, invalid, unknown_command, unknown_error, unsupported};
use codeact_platform::device::Platform;
use codeact_platform::ui::Bounds;
use codeact_runtime::session::Screen;
use codeact_tools::call::ToolCall;

/// The longest implicit wait a client may set.
const MOST_IMPLICIT: Duration = Duration::from_secs(120);

pub fn command(s: &mut WdSession, request: &Request, rest: &[&str], body: &Value) -> Reply {
    match (request.method, rest) {
        ("GET", ["source"]) => {
            let obs = s.look()?;
            let xml = Page::of(&obs).xml(&obs.ui);
            Ok(json!(codeact_base::secrets::blot_registered(&xml).into_owned()))
        }
        ("GET", ["screenshot"]) => {
            let png = s.session.screenshot().map_err(|e| unknown_error(codeact_base::error_text::full_message(&e)))?;
            s.keep_file("screenshot.png", &png);
            Ok(json!(base64::engine::general_purpose::STANDARD.encode(png)))
        }
        ("POST", ["back"]) => run(s, "POST /back", ToolCall::back()),
        ("POST", ["keys"]) => {
            // The legacy protocol's keys to the focused element.
            let (text, keys) = super::element::typed(body)?;
            let mut calls =
                if text.is_empty() { Vec::new() } else { vec![super::element::typing(s, &text, request.sensitive)?] };
            super::element::pressed(&mut calls, &keys);
            run_all(s, "POST /keys", &calls)
        }
        ("GET", ["window", "rect"] | ["window", "current", "size"] | ["window", _, "size"]) => {
            let obs = s.look()?;
            let scale = if s.platform == Platform::Ios { Page::of(&obs).scale } else { 1.0 };
            let (w, h) = obs.ui.screen;
            let unit = |v: u32| (f64::from(v) / scale).round() as i64;
            Ok(json!({"x": 0, "y": 0, "width": unit(w), "height": unit(h)}))
        }
        ("GET", ["window"] | ["window_handle"]) => Ok(json!("NATIVE_APP")),
        ("GET", ["window", "handles"] | ["window_handles"]) => Ok(json!(["NATIVE_APP"])),
        ("GET", ["context"]) => Ok(json!("NATIVE_APP")),
        ("GET", ["contexts"]) => Ok(json!(["NATIVE_APP"])),
        ("POST", ["context"]) => match body.get("name").and_then(Value::as_str) {
            Some("NATIVE_APP") => Ok(Value::Null),
            _ => Err(Failure::new("no such context", "codeact drives the native app only (NATIVE_APP)")),
        },
        ("GET", ["orientation"]) => Ok(json!("PORTRAIT")),
        ("GET", ["timeouts"]) => {
            Ok(json!({"implicit": s.implicit.as_millis() as u64, "pageLoad": 300_000, "script": 30_000}))
        }
        ("POST", ["timeouts"]) => {
            if let Some(ms) = body.get("implicit").and_then(Value::as_f64).filter(|v| v.is_finite() && *v >= 0.0) {
                s.implicit = Duration::from_millis(ms as u64).min(MOST_IMPLICIT);
            }
            Ok(Value::Null)
        }
        ("GET", ["appium", "settings"]) => Ok(json!({})),
        ("POST", ["appium", "settings"]) => Ok(Value::Null),
        ("GET", ["appium", "device", "current_activity"]) => current_activity(s),
        ("POST", ["appium", "device", "get_clipboard"]) => clipboard(s),
        ("POST", ["appium", "device", "set_clipboard"]) => set_clipboard(s, body),
        ("GET", ["appium", "device", "current_package"]) => Ok(json!(s.look()?.phone.package.clone())),
        ("GET", ["appium", "device", "is_keyboard_shown"]) => Ok(json!(s.look()?.phone.keyboard_shown)),
        ("POST", ["appium", "device", "hide_keyboard"]) => {
            run(s, "POST /appium/device/hide_keyboard", ToolCall::hide_keyboard())
        }
        ("POST", ["appium", "device", "press_keycode" | "long_press_keycode"]) => {
            let code =
                body.get("keycode").and_then(Value::as_u64).ok_or_else(|| invalid("'keycode' must be a number"))?;
            run(s, "POST /appium/device/press_keycode", ToolCall::press_key(&code.min(100_000).to_string()))
        }
        ("POST", ["appium", "device", "activate_app"]) => {
            let app = app_id(body)?;
            run(s, "POST /appium/device/activate_app", ToolCall::start_app(app))
        }
        ("POST", ["appium", "device", "terminate_app"]) => {
            let app = app_id(body)?;
            run(s, "POST /appium/device/terminate_app", ToolCall::stop_app(app))?;
            Ok(json!(true))
        }
        ("POST", ["execute", "sync"] | ["execute"]) => execute(s, body, request.sensitive),
        ("POST", ["execute", "async"]) => Err(unsupported(
            "codeact runs no JavaScript: send Rhai with execute_driver (type \"rhai\"), or a mobile: method",
        )),
        (method, _) => Err(unknown_command(method, &format!("/session/:id/{}", rest.join("/")))),
    }
}

/// The activity in front as Appium's drivers give it: `.Settings` when it lies in
/// the app's own package, else whole.
fn current_activity(s: &mut WdSession) -> Reply {
    let obs = s.look()?;
    let activity = &obs.phone.activity;
    let short = activity.strip_prefix(obs.phone.package.as_str()).filter(|a| a.starts_with('.'));
    Ok(json!(short.unwrap_or(activity)))
}

/// The clipboard's text, base64 as Appium gives it.
fn clipboard(s: &mut WdSession) -> Reply {
    let ran = s.call_json("POST /appium/device/get_clipboard", &ToolCall::get_clipboard());
    if let Some(e) = ran.error {
        return Err(unknown_error(clipped(&e.message, 1000)));
    }
    let text: Value = ran.value.as_deref().and_then(|v| serde_json::from_str(v).ok()).unwrap_or(Value::Null);
    Ok(json!(base64::engine::general_purpose::STANDARD.encode(text.as_str().unwrap_or(""))))
}

/// Puts text on the clipboard: `content` base64 as Appium sends it (`contentType`
/// plaintext only).
fn set_clipboard(s: &mut WdSession, body: &Value) -> Reply {
    let kind = body.get("contentType").and_then(Value::as_str).unwrap_or("plaintext");
    if kind != "plaintext" {
        return Err(unsupported(format!("the clipboard takes plaintext, not {}", clipped(kind, 40))));
    }
    let content = body.get("content").and_then(Value::as_str).ok_or_else(|| invalid("give 'content' (base64)"))?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(content.as_bytes())
        .map_err(|e| invalid(format!("'content' is not base64: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|_| invalid("'content' is not UTF-8 text"))?;
    if text.chars().count() > super::element::MOST_TEXT {
        return Err(invalid(format!("the clipboard takes at most {} characters", super::element::MOST_TEXT)));
    }
    run(s, "POST /appium/device/set_clipboard", ToolCall::set_clipboard(&text))
}

/// Runs a call as a command that acts; `null` when it ran.
fn run(s: &mut WdSession, command: &str, call: ToolCall) -> Reply {
    run_all(s, command, &[call])
}

/// Runs calls as one command that acts; `null` when they ran.
fn run_all(s: &mut WdSession, command: &str, calls: &[ToolCall]) -> Reply {
    s.act(command, calls, Screen::Live)?;
    Ok(Value::Null)
}

fn app_id(body: &Value) -> Result<&str, Failure> {
    let id = body.get("appId").or_else(|| body.get("bundleId")).and_then(Value::as_str);
    id.filter(|a| !a.is_empty() && a.len() <= 255).ok_or_else(|| invalid("give 'appId' (or 'bundleId')"))
}

/// `POST /execute/sync`: a `mobile:` method with its one argument object.
fn execute(s: &mut WdSession, body: &Value, sensitive: bool) -> Reply {
    let script = body.get("script").and_then(Value::as_str).ok_or_else(|| invalid("'script' must be a string"))?;
    let Some(method) = script.trim().strip_prefix("mobile:") else {
        return Err(unsupported(
            "codeact runs no JavaScript: send Rhai with execute_driver (driver.execute_driver(script, 'rhai')), or a mobile: method",
        ));
    };
    let method = method.trim();
    let empty = json!({});
    let args = body.get("args").and_then(Value::as_array).and_then(|a| a.first()).unwrap_or(&empty);
    let num =
        |k: &str| args.get(k).and_then(Value::as_f64).filter(|v| v.is_finite()).map(|v| v.clamp(-1e6, 1e6) as i64);
    let text = |k: &str| args.get(k).and_then(Value::as_str);
    // What a method takes from the client is bounded before it becomes a line of a
    // script (and of the record): an app id, a URL, a command, a button's name.
    let bounded = |k: &str, most: usize| -> Result<Option<&str>, Failure> {
        match text(k) {
            Some(t) if t.chars().count() > most => {
                Err(invalid(format!("mobile: {}: {k} is longer than {most} characters", clipped(method, 40))))
            }
            other => Ok(other),
        }
    };
    let command = format!("POST /execute/sync mobile: {}", clipped(method, 40));
    let point = |s: &mut WdSession| -> Result<(i64, i64), Failure> {
        if let (Some(x), Some(y)) = (num("x"), num("y")) {
            let obs = s.look()?;
            let scale = if s.platform == Platform::Ios { Page::of(&obs).scale } else { 1.0 };
            return Ok(((x as f64 * scale) as i64, (y as f64 * scale) as i64));
        }
        let id = text("elementId").or_else(|| text("element")).ok_or_else(|| invalid("give x and y, or elementId"))?;
        let obs = s.look()?;
        Ok(match super::element::resolve(s, &obs, id)? {
            super::element::Resolved::Tree(e) => obs.ui.get(e).map(|e| (i64::from(e.center.0), i64::from(e.center.1))),
            super::element::Resolved::Place(place) => {
                let (x, y) = place.rect.center();
                Some((i64::from(x), i64::from(y)))
            }
        }
        .unwrap_or_default())
    };
    match method {
        "shell" => {
            let mut line =
                bounded("command", 10_000)?.ok_or_else(|| invalid("mobile: shell takes {command, args}"))?.to_string();
            for arg in args.get("args").and_then(Value::as_array).into_iter().flatten() {
                match arg {
                    Value::String(a) => line.push_str(&format!(" {a}")),
                    other => line.push_str(&format!(" {other}")),
                }
                if line.len() > 10_000 {
                    return Err(invalid(
                        "mobile: shell: the command and its arguments are longer than 10000 characters",
                    ));
                }
            }
            if !s.session.tool_names().contains(&"shell") {
                return Err(unsupported(
                    "mobile: shell needs the shell tool, which this server's persona does not allow: start it with a persona that has shell",
                ));
            }
            let ran = s.call_json(&command, &ToolCall::shell(&line));
            match ran.error {
                Some(e) => Err(unknown_error(clipped(&e.message, 1000))),
                None => {
                    let result: Value =
                        ran.value.as_deref().and_then(|v| serde_json::from_str(v).ok()).unwrap_or_default();
                    Ok(result.get("output").cloned().unwrap_or(Value::Null))
                }
            }
        }
        "clickGesture" | "tap" => {
            let (x, y) = point(s)?;
            run(s, &command, ToolCall::tap_point(x, y))
        }
        "longClickGesture" | "touchAndHold" => {
            let (x, y) = point(s)?;
            let ms = num("duration").unwrap_or(1000).clamp(100, 60_000);
            run(s, &command, ToolCall::long_press_point(x, y, Some(ms)))
        }
        "doubleClickGesture" | "doubleTap" => {
            let (x, y) = point(s)?;
            run_all(s, &command, &[ToolCall::tap_point(x, y), ToolCall::tap_point(x, y)])
        }
        "dragGesture" => {
            let (Some(x1), Some(y1), Some(x2), Some(y2)) = (num("startX"), num("startY"), num("endX"), num("endY"))
            else {
                return Err(invalid("mobile: dragGesture takes startX, startY, endX, endY"));
            };
            run(s, &command, ToolCall::drag_points((x1, y1), (x2, y2), 600))
        }
        "swipeGesture" | "scrollGesture" | "swipe" | "scroll" => {
            let direction = text("direction").unwrap_or("up").to_ascii_lowercase();
            // The finger's way: a swipe names it; a scroll names where the content goes.
            let finger = match (method, direction.as_str()) {
                ("swipeGesture" | "swipe", d @ ("up" | "down" | "left" | "right")) => d,
                (_, "down") => "up",
                (_, "up") => "down",
                (_, "right") => "left",
                (_, "left") => "right",
                _ => return Err(invalid("direction is up, down, left or right")),
            };
            let obs = s.look()?;
            let scale = if s.platform == Platform::Ios { Page::of(&obs).scale } else { 1.0 };
            let region = match (num("left"), num("top"), num("width"), num("height"), text("elementId")) {
                (Some(l), Some(t), Some(w), Some(h), _) => {
                    let p = |v: i64| (v as f64 * scale) as i32;
                    Bounds { left: p(l), top: p(t), right: p(l + w), bottom: p(t + h) }
                }
                (_, _, _, _, Some(id)) => match super::element::resolve(s, &obs, id)? {
                    super::element::Resolved::Tree(e) => obs.ui.get(e).map(|e| e.bounds).unwrap_or_default(),
                    super::element::Resolved::Place(place) => place.rect,
                },
                _ => Bounds { left: 0, top: 0, right: obs.ui.screen.0 as i32, bottom: obs.ui.screen.1 as i32 },
            };
            let percent =
                args.get("percent").and_then(Value::as_f64).filter(|p| p.is_finite()).unwrap_or(0.75).clamp(0.05, 1.0);
            let (cx, cy) = region.center();
            let half_w = (f64::from(region.width()) * percent / 2.0) as i32;
            let half_h = (f64::from(region.height()) * percent / 2.0) as i32;
            let (from, to) = match finger {
                "up" => ((cx, cy + half_h), (cx, cy - half_h)),
                "down" => ((cx, cy - half_h), (cx, cy + half_h)),
                "left" => ((cx + half_w, cy), (cx - half_w, cy)),
                _ => ((cx - half_w, cy), (cx + half_w, cy)),
            };
            run(
                s,
                &command,
                ToolCall::swipe_points((from.0.into(), from.1.into()), (to.0.into(), to.1.into()), Some(400)),
            )
        }
        "pressKey" => {
            let code = num("keycode").ok_or_else(|| invalid("mobile: pressKey takes {keycode}"))?;
            run(s, &command, ToolCall::press_key(&code.clamp(0, 100_000).to_string()))
        }
        "activateApp" | "launchApp" | "startActivity" => {
            let app = bounded("appId", 255)?.or(bounded("bundleId", 255)?).or(bounded("appPackage", 255)?);
            let app = app.ok_or_else(|| invalid("give appId (or bundleId)"))?;
            run(s, &command, ToolCall::start_app(app))
        }
        "terminateApp" => {
            let app = bounded("appId", 255)?.or(bounded("bundleId", 255)?);
            let app = app.ok_or_else(|| invalid("give appId (or bundleId)"))?;
            run(s, &command, ToolCall::stop_app(app))?;
            Ok(json!(true))
        }
        "clearApp" => {
            let app = bounded("appId", 255)?.or(bounded("bundleId", 255)?);
            let app = app.ok_or_else(|| invalid("give appId (or bundleId)"))?;
            run(s, &command, ToolCall::clear_app_data(app))
        }
        "deepLink" => {
            let url = bounded("url", 8192)?.ok_or_else(|| invalid("mobile: deepLink takes {url}"))?;
            run(s, &command, ToolCall::open_url(url))
        }
        "hideKeyboard" => run(s, &command, ToolCall::hide_keyboard()),
        "isKeyboardShown" => Ok(json!(s.look()?.phone.keyboard_shown)),
        "getCurrentActivity" => current_activity(s),
        "getClipboard" => clipboard(s),
        "setClipboard" => set_clipboard(s, args),
        "getCurrentPackage" | "activeAppInfo" => Ok(json!(s.look()?.phone.package.clone())),
        "type" => {
            let t = text("text").ok_or_else(|| invalid("mobile: type takes {text}"))?;
            if t.chars().count() > super::element::MOST_TEXT {
                return Err(invalid(format!("more than {} characters to type", super::element::MOST_TEXT)));
            }
            let call = super::element::typing(s, t, sensitive)?;
            run(s, &command, call)
        }
        "pressButton" => {
            let name =
                bounded("name", 64)?.ok_or_else(|| invalid("mobile: pressButton takes {name}"))?.to_ascii_lowercase();
            run(s, &command, ToolCall::press_key(&name))
        }
        other => Err(unsupported(format!(
            "codeact answers no mobile: {}; it answers shell, clickGesture, longClickGesture, doubleClickGesture, dragGesture, swipeGesture, scrollGesture, pressKey, activateApp, terminateApp, clearApp, deepLink, hideKeyboard, isKeyboardShown, getCurrentActivity, getCurrentPackage, getClipboard, setClipboard, type, pressButton — or send Rhai with execute_driver",
            clipped(other, 60)
        ))),
    }
}
