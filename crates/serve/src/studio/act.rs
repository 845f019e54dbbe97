//! Acting from the page: a tap, long press, typing, clearing, a swipe, a key,
//! back, home or an app, on an element (its best unique selector, or one the page
//! names) or a point, written as the Rhai line a script would hold and run in the
//! studio's session — so every act goes through the same tools, gate, watchers and
//! effect lines as a script's; and assertions ("visible", "not visible", "has the
//! text"). With recording on, each that ran clean is recorded (`record.rs`), with
//! a `wait_for` before it when the act before changed the screen. Literals go
//! through the one emitter; a selector the page sends is taken only if it reads as
//! a selector.

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::state::CallResult;
use super::state::Studio;
use codeact_engine::sandbox::RunResult;
use codeact_tools::call::ToolCall;
use codeact_tools::inspect::{candidates, element_at};
use codeact_tools::select::Selector;

/// The most text one act types.
const MOST_TEXT: usize = 10_000;

fn bad(says: impl Into<String>) -> (StatusCode, String) {
    (StatusCode::BAD_REQUEST, says.into())
}

fn int(body: &Value, key: &str) -> Option<i32> {
    body.get(key).and_then(Value::as_f64).filter(|v| v.is_finite()).map(|v| v.clamp(-1e6, 1e6) as i32)
}

fn text<'a>(body: &'a Value, key: &str) -> Result<&'a str, (StatusCode, String)> {
    let t = body.get(key).and_then(Value::as_str).ok_or_else(|| bad(format!("give \"{key}\"")))?;
    if t.chars().count() > MOST_TEXT {
        return Err(bad(format!("\"{key}\" is longer than {MOST_TEXT} characters")));
    }
    Ok(t)
}

/// What an act aims at: a selector (and whether it is a text field), or a point.
enum Aim {
    Selector { source: String, editable: bool },
    Point(i32, i32),
    Nothing,
}

/// The page's `selector` (checked), else the element at `element` / `x, y` by its
/// best unique selector, else the point.
fn aim(studio: &Studio, body: &Value) -> Result<Aim, (StatusCode, String)> {
    if let Some(source) = body.get("selector").and_then(Value::as_str) {
        Selector::from_source(source).map_err(|e| bad(format!("that is not a selector: {e}")))?;
        return Ok(Aim::Selector { source: source.to_string(), editable: body["editable"] == true });
    }
    let point = (int(body, "x"), int(body, "y"));
    let element = body.get("element").and_then(Value::as_u64);
    if element.is_none() && point.0.is_none() {
        return Ok(Aim::Nothing);
    }
    let obs = studio
        .with_session(|s| s.observe(false))
        .map_err(|e| (StatusCode::BAD_GATEWAY, codeact_base::error_text::full_message(&e)))?;
    let tree = &obs.ui;
    let target = match (element, point) {
        (Some(i), _) => tree.get(i as usize),
        (None, (Some(x), Some(y))) => element_at(tree, x, y),
        _ => None,
    };
    let best = target.and_then(|t| candidates(tree, t).into_iter().find(|c| c.best).map(|c| (c, t.is_editable())));
    Ok(match (best, target, point) {
        (Some((best, editable)), _, _) => Aim::Selector { source: best.source, editable },
        (None, Some(t), _) => Aim::Point(t.center.0, t.center.1),
        (None, None, (Some(x), Some(y))) => Aim::Point(x, y),
        _ => Aim::Nothing,
    })
}

/// `{"action": "tap"|"long_press"|"type"|"clear"|"swipe"|"key"|"back"|"home"|"open_app",
///   "selector"? | "element"? | "x", "y", "x2"?, "y2"?, "text"?, "key"?, "package"?}`.
pub fn act(studio: &Studio, body: &Value) -> CallResult {
    let action = body.get("action").and_then(Value::as_str).unwrap_or("");
    // Only acts on an element look for one (a look costs a real phone seconds).
    let aimed = match action {
        "tap" | "long_press" | "type" | "clear" => aim(studio, body)?,
        _ => Aim::Nothing,
    };
    let need_aim = || bad("aim it: give a selector, an element or a point (x, y)");
    let (calls, selector) = match (action, &aimed) {
        ("tap", Aim::Selector { source, .. }) => (vec![ToolCall::tap(source)], Some(source.clone())),
        ("long_press", Aim::Selector { source, .. }) => (vec![ToolCall::long_press(source)], Some(source.clone())),
        ("tap", Aim::Point(x, y)) => (vec![ToolCall::tap_point((*x).into(), (*y).into())], None),
        ("long_press", Aim::Point(x, y)) => (vec![ToolCall::long_press_point((*x).into(), (*y).into(), None)], None),
        ("type", Aim::Selector { source, editable: true }) => {
            (vec![ToolCall::set_text(source, text(body, "text")?)], Some(source.clone()))
        }
        ("type", Aim::Selector { source, .. }) => {
            let typed = ToolCall::input_text(text(body, "text")?);
            (vec![ToolCall::tap(source), typed], Some(source.clone()))
        }
        ("type", _) => (vec![ToolCall::input_text(text(body, "text")?)], None),
        ("clear", Aim::Selector { source, .. }) => (vec![ToolCall::set_text(source, "")], Some(source.clone())),
        ("clear", _) => (vec![ToolCall::clear_text()], None),
        ("swipe", _) => match (int(body, "x"), int(body, "y"), int(body, "x2"), int(body, "y2")) {
            (Some(x), Some(y), Some(x2), Some(y2)) => {
                (vec![ToolCall::swipe_points((x.into(), y.into()), (x2.into(), y2.into()), None)], None)
            }
            _ => return Err(bad("a swipe needs x, y, x2 and y2")),
        },
        ("key", _) => {
            let key = text(body, "key")?;
            if key.is_empty() || key.len() > 40 || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(bad("name a key: back, home, enter, delete, tab, a KEYCODE_ name or a number"));
            }
            (vec![ToolCall::press_key(key)], None)
        }
        ("back", _) => (vec![ToolCall::back()], None),
        ("home", _) => (vec![ToolCall::home()], None),
        ("open_app", _) => {
            let package = text(body, "package")?;
            let fine = !package.is_empty()
                && package.len() <= 255
                && package.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_');
            if !fine {
                return Err(bad("name the app by its package: com.android.settings"));
            }
            return run_and_record(studio, action, vec![ToolCall::start_app(package)], None, Some(package));
        }
        ("tap" | "long_press", Aim::Nothing) => return Err(need_aim()),
        (other, _) => {
            return Err(bad(format!(
                "no act {other:?}: tap, long_press, type, clear, swipe, key, back, home, open_app"
            )));
        }
    };
    run_and_record(studio, action, calls, selector, None)
}

/// `{"kind": "visible"|"not_visible"|"text"|"state", "selector", "text"?, "checked"?}`.
pub fn assert(studio: &Studio, body: &Value) -> CallResult {
    let Aim::Selector { source, .. } = aim(studio, body)? else {
        return Err(bad("an assertion names an element: give its selector or the element"));
    };
    let call = match body.get("kind").and_then(Value::as_str).unwrap_or("visible") {
        "visible" => ToolCall::assert_visible(&source),
        "not_visible" => ToolCall::assert_not_visible(&source),
        // The element with the text, or in the state, asked for: an assertion (a
        // miss FAILs the test) that a Maestro flow says as well (assertVisible).
        "text" => {
            let want = rhai::Dynamic::from(text(body, "text")?.to_string());
            let sel = Selector::source_with(&source, "text", want).map_err(|e| bad(e.to_string()))?;
            ToolCall::assert_visible(&sel)
        }
        "state" => {
            let checked =
                body.get("checked").and_then(Value::as_bool).ok_or_else(|| bad("give \"checked\": true|false"))?;
            let sel = Selector::source_with(&source, "checked", rhai::Dynamic::from(checked))
                .map_err(|e| bad(e.to_string()))?;
            ToolCall::assert_visible(&sel)
        }
        other => return Err(bad(format!("no assertion {other:?}: visible, not_visible, text or state"))),
    };
    run_and_record(studio, "assert", vec![call], None, None)
}

/// Runs `calls` in the session; records them when they ran clean (and the app
/// they open, the first time, as the recording's app); the result.
fn run_and_record(
    studio: &Studio,
    act: &str,
    calls: Vec<ToolCall>,
    selector: Option<String>,
    opens: Option<&str>,
) -> CallResult {
    let waits = studio.recording().screen_changed && selector.is_some();
    let line = ToolCall::script(&calls);
    let recorded_line = match (&selector, waits) {
        (Some(sel), true) => format!("{}\n{line}", ToolCall::wait_for(sel, None).line()),
        _ => line.clone(),
    };
    // Where the phone was, as the page last saw it: one look less per act.
    let shown = studio.live.tree();
    let before =
        (shown["app"].as_str().unwrap_or("").to_string(), shown["activity"].as_str().unwrap_or("").to_string());
    let (result, after) = studio.call_recorded(act, &calls);
    studio.live.poke();
    if let Some(after) = &after {
        studio.live.show_tree(after);
    }
    let changed = after.as_ref().is_none_or(|o| (o.phone.package.clone(), o.phone.activity.clone()) != before);
    let recorded = result.ok() && {
        let mut recording = studio.recording();
        let added = recording.add(recorded_line.clone(), &result.actions);
        if added {
            recording.screen_changed = changed;
            if recording.app.is_none() {
                recording.app = opens.map(str::to_string);
            }
        }
        added
    };
    Ok(described(&line, &result, recorded.then_some(recorded_line)))
}

/// A run as the page shows it.
pub fn described(code: &str, result: &RunResult, recorded: Option<String>) -> Value {
    let actions: Vec<Value> = result
        .actions
        .iter()
        .map(|a| {
            json!({"tool": a.tool, "args": a.args, "ok": a.succeeded(), "ms": (a.duration_ms * 10.0).round() / 10.0,
                   "effect": a.capture.effect})
        })
        .collect();
    json!({
        "code": code, "ok": result.ok(), "output": result.output, "value": result.value,
        "error": result.error.as_ref().map(|e| json!({"message": e.message, "line": e.line, "column": e.column})),
        "completion": result.completion, "actions": actions, "recorded": recorded,
        "ms": (result.duration_ms * 10.0).round() / 10.0,
    })
}
