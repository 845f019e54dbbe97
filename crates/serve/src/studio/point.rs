//! Pointing: the element under a point of the mirror (or a tree row) on a fresh
//! look at the phone, and the selectors that find it, ranked, each unique or how
//! many it matches, with its lookup time (the REPL's `:inspect`, as data), and a
//! box around the point to cut as a reference picture — all there is where no
//! element is (a canvas); `api/cut` cuts it into the gallery and answers its
//! `#{image: ...}` selector.

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::state::CallResult;
use super::state::Studio;
use codeact_engine::emit::rhai::string as rhai_string;
use codeact_platform::locate::Gallery;
use codeact_tools::call::ToolCall;
use codeact_tools::inspect::{candidates, element_at};

/// The side of the box offered around a point with no element.
const CUT_SIDE: i32 = 120;
/// The most characters of one text the page is sent.
const MOST_TEXT: usize = 2_000;
/// The longest selector offered.
const MOST_SOURCE: usize = 4_096;

fn int(body: &Value, key: &str) -> Option<i32> {
    body.get(key).and_then(Value::as_f64).filter(|v| v.is_finite()).map(|v| v.clamp(-1e6, 1e6) as i32)
}

/// `{"x", "y"}` in screen pixels, or `{"element": i}` (a tree row).
pub fn point(studio: &Studio, body: &Value) -> CallResult {
    let obs = studio
        .with_session(|s| s.observe(false))
        .map_err(|e| (StatusCode::BAD_GATEWAY, codeact_base::error_text::full_message(&e)))?;
    studio.live.show_tree(&obs);
    let tree = &obs.ui;
    let target = match (body.get("element").and_then(Value::as_u64), int(body, "x"), int(body, "y")) {
        (Some(i), _, _) => tree.get(i as usize).filter(|e| e.visible),
        (None, Some(x), Some(y)) => element_at(tree, x, y),
        _ => {
            return Err((StatusCode::BAD_REQUEST, "give a point {\"x\", \"y\"} or an element {\"element\": i}".into()));
        }
    };
    // A picture can always be cut around the point (a canvas's sprites are in no tree).
    let (x, y) = match (int(body, "x"), int(body, "y"), target) {
        (Some(x), Some(y), _) => (x, y),
        (_, _, Some(t)) => t.center,
        _ => (0, 0),
    };
    let (w, h) = (obs.screen.0 as i32, obs.screen.1 as i32);
    let half = CUT_SIDE / 2;
    let cut = [(x - half).max(0), (y - half).max(0), (x + half).min(w), (y + half).min(h)];
    let Some(target) = target else {
        return Ok(
            json!({"canvas": true, "point": [x, y], "cut": cut, "tap": ToolCall::tap_point(x.into(), y.into()).expr()}),
        );
    };
    let b = target.bounds;
    let clip = |t: &str| codeact_base::clip::clip(t, MOST_TEXT).into_owned();
    // A selector longer than a person would write is not offered.
    let offered: Vec<_> = candidates(tree, target).into_iter().filter(|c| c.source.len() <= MOST_SOURCE).collect();
    Ok(json!({
        "element": {
            "i": target.id, "class": clip(&target.class), "text": clip(&target.text), "desc": clip(&target.content_desc),
            "resource_id": clip(&target.resource_id), "hint": clip(&target.hint), "package": clip(&target.package),
            "bounds": [b.left, b.top, b.right, b.bottom], "center": [target.center.0, target.center.1],
            "clickable": target.clickable, "checkable": target.checkable, "checked": target.checked,
            "editable": target.is_editable(), "scrollable": target.scrollable, "enabled": target.enabled,
        },
        "candidates": offered,
        "point": [x, y], "cut": cut,
        "tap": ToolCall::tap_point(target.center.0.into(), target.center.1.into()).expr(),
    }))
}

/// `{"name", "box": [x1, y1, x2, y2]}`: the box cut from the screen now into the
/// gallery; its selector.
pub fn cut(studio: &Studio, body: &Value) -> CallResult {
    let name = body.get("name").and_then(Value::as_str).unwrap_or("");
    let valid = !name.is_empty()
        && name.len() <= 64
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
    if !valid {
        return Err((
            StatusCode::BAD_REQUEST,
            "name the picture with lowercase letters, digits, _ or - (64 at most)".into(),
        ));
    }
    let corners: Vec<u32> = body
        .get("box")
        .and_then(Value::as_array)
        .map(|b| b.iter().filter_map(Value::as_f64).map(|v| v.clamp(0.0, 100_000.0) as u32).collect())
        .unwrap_or_default();
    let [x1, y1, x2, y2] = corners[..] else {
        return Err((StatusCode::BAD_REQUEST, "give the box as [x1, y1, x2, y2] in screen pixels".into()));
    };
    let png = studio
        .with_session(|s| s.screenshot())
        .map_err(|e| (StatusCode::BAD_GATEWAY, codeact_base::error_text::full_message(&e)))?;
    let made = codeact_platform::locate::cut::cut(&png, name, [x1, y1, x2, y2], None)
        .map_err(|e| (StatusCode::BAD_REQUEST, codeact_base::error_text::full_message(&e)))?;
    let replace = body.get("replace").and_then(Value::as_bool) == Some(true);
    let mut gallery = Gallery::open(&studio.options.assets_dir)
        .map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, codeact_base::error_text::full_message(&e)))?;
    gallery
        .add(made.reference, &made.png, replace)
        .map_err(|e| (StatusCode::CONFLICT, codeact_base::error_text::full_message(&e)))?;
    Ok(json!({
        "selector": format!("#{{image: {}}}", rhai_string(name)),
        "shows": made.shows,
        "warning": (made.shows > 1).then(|| format!("it shows {} times on this screen: cut a box with more around it", made.shows)),
    }))
}
