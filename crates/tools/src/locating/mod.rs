//! The locating chain of a selector that names a picture or a description
//! (`#{text: "Send", image: "send_button", ai: "the send button"}`): the tree part
//! first, then the picture on the screenshot, then the vision model. What answered is
//! added to the screen as an element of its own (class `codeact.Image` with id
//! `image/NAME`, or `codeact.Described`), so every selector tool — tap, long_press,
//! find, wait_for, wait_gone, assert_visible — acts on it as on any element; the
//! action line says which way answered and how sure it was, and the action record
//! keeps a stand-in that needs no model, which exported replays use.
//!
//! Beside it: the ways themselves (`image_lookup.rs` pictures, `ai_lookup.rs` the
//! model, `tools/locator_state.rs` its settings), naming an element back (`closest.rs`,
//! `unique_selector.rs`). Not selectors' syntax (`select/`).

pub(crate) mod ai_lookup;
pub(crate) mod closest;
pub(crate) mod image_lookup;

use std::sync::Arc;

use codeact_engine::sandbox::Located;
use codeact_platform::device::Observation;
use codeact_platform::ui::{Actions, Bounds, Element};

use crate::context::ToolContext;
use crate::error::ToolError;
use crate::select::unique_selector::selector_for;
use crate::select::{AI_CLASS, IMAGE_CLASS, ImageWant, Selector, ai_id, image_id, is_located};
use ai_lookup::ModelPoint;
use codeact_engine::emit::rhai::string as rhai_string;
use codeact_platform::locate::Place;
use image_lookup::find_picture;

/// An element the tree has under a model's point stands for it when it is at most
/// this share of the screen (a button, not the page it is on).
const UNDER_SHARE: i64 = 8;

/// The live screen as `sel` needs it (see [`screen_for`]).
pub(crate) fn look(c: &mut ToolContext, sel: &Selector) -> Result<Arc<Observation>, ToolError> {
    let obs = c.look()?;
    screen_for(c, obs, sel)
}

/// `obs` as `sel` needs it: for a selector with a picture or a description, with
/// what the first way that answers found (and the context's screen replaced by it);
/// as it is otherwise.
pub(crate) fn screen_for(
    c: &mut ToolContext,
    obs: Arc<Observation>,
    sel: &Selector,
) -> Result<Arc<Observation>, ToolError> {
    if !sel.locates() {
        return Ok(obs);
    }
    let obs = without_located(obs);
    if sel.has_tree_part()
        && let Some(e) = sel.find_in_tree(&obs.ui).first()
    {
        let replay = selector_for(&obs.ui, e.id);
        c.call_record().capture.located = Some(Located { way: "tree".into(), replay });
        c.call_record().note_found(format!("found by the tree: {}", closest::described(e)));
        return Ok(obs);
    }
    if let Some(want) = &sel.image
        && let Some(place) = find_picture(c, want)?
    {
        let bounds = place_bounds(&place);
        let mut replay = format!("#{{image: {}", rhai_string(&want.name));
        if let Some(t) = want.threshold {
            replay.push_str(&format!(", threshold: {t}"));
        }
        replay.push('}');
        c.call_record().capture.located = Some(Located { way: "picture".into(), replay: Some(replay) });
        c.call_record().note_found(format!(
            "found by picture {:?} at [{},{}][{},{}], score {:.2}",
            want.name, bounds.left, bounds.top, bounds.right, bounds.bottom, place.score
        ));
        return Ok(add_picture(c, &obs, want, &place));
    }
    if let Some(description) = &sel.ai {
        match ai_lookup::ask(c, &obs, description)? {
            Some(point) => return Ok(add_point(c, &obs, description, &point)),
            None => c.call_record().note_effect(format!("the model says {description:?} is not on the screen")),
        }
    }
    c.replace_latest(obs.clone());
    Ok(obs)
}

/// `obs` with the model's point added: the bounds of a small element of the tree
/// under it, else a small square around it (a canvas has no element).
pub(crate) fn add_point(
    c: &mut ToolContext,
    obs: &Arc<Observation>,
    description: &str,
    point: &ModelPoint,
) -> Arc<Observation> {
    let (width, height) = obs.screen;
    let screen_area = i64::from(width.max(1)) * i64::from(height.max(1));
    let small = point.under.as_ref().filter(|e| {
        let b = e.bounds;
        i64::from(b.right - b.left) * i64::from(b.bottom - b.top) * UNDER_SHARE <= screen_area
    });
    let half = (width.max(1) as i32 / 50).max(4);
    let bounds = match small {
        Some(e) => e.bounds,
        None => Bounds { left: point.x - half, top: point.y - half, right: point.x + half, bottom: point.y + half },
    };
    // A replay acts on the element itself, or (a tap on a canvas) on the same point
    // of the screen, as fractions so another size or scale does not move it.
    let replay = small.and_then(|e| selector_for(&obs.ui, e.id)).or_else(|| {
        (matches!(c.call_record().tool, "tap" | "long_press") && width > 0 && height > 0).then(|| {
            format!("{:.4}, {:.4}", f64::from(point.x) / f64::from(width), f64::from(point.y) / f64::from(height))
        })
    });
    c.call_record().capture.located = Some(Located { way: "model".into(), replay });
    c.call_record().note_found(point.said(description));
    // An element's centre is where a tap lands: the model's point, not the middle of
    // what it pointed into.
    add(c, obs, AI_CLASS, ai_id(description), description.to_string(), bounds, Some((point.x, point.y)))
}

/// `obs` with the picture `want` added where it was found: an element of class
/// `codeact.Image`, id `image/NAME`, which becomes the live screen.
pub(crate) fn add_picture(c: &mut ToolContext, obs: &Observation, want: &ImageWant, place: &Place) -> Arc<Observation> {
    let desc = format!("picture {} ({:.2})", want.name, place.score);
    add(c, obs, IMAGE_CLASS, image_id(&want.name), desc, place_bounds(place), None)
}

fn place_bounds(place: &Place) -> Bounds {
    Bounds {
        left: place.x as i32,
        top: place.y as i32,
        right: (place.x + place.width) as i32,
        bottom: (place.y + place.height) as i32,
    }
}

/// `obs` with one element added for what was found (centred on `center`, else on
/// its bounds), which becomes the live screen.
fn add(
    c: &mut ToolContext,
    obs: &Observation,
    class: &str,
    id: String,
    desc: String,
    bounds: Bounds,
    center: Option<(i32, i32)>,
) -> Arc<Observation> {
    let mut seen = obs.clone();
    let index = seen.ui.elements.len();
    seen.ui.elements.push(Element {
        id: index,
        class: class.to_string(),
        native_class: class.to_string(),
        signature: codeact_platform::ui::stable_hash(id.as_bytes()),
        resource_id: id,
        content_desc: desc,
        bounds,
        center: center.unwrap_or(((bounds.left + bounds.right) / 2, (bounds.top + bounds.bottom) / 2)),
        clickable: true,
        enabled: true,
        visible: true,
        visible_to_user: Some(true),
        actions: Actions { touch: true, long_touch: true, set_text: false, scroll: false },
        ..Default::default()
    });
    seen.ui.roots.push(index);
    let seen = Arc::new(seen);
    c.replace_latest(seen.clone());
    seen
}

/// `obs` without what an earlier lookup added (they come last): a picture or a
/// point found on an older screenshot says nothing of this one.
fn without_located(obs: Arc<Observation>) -> Arc<Observation> {
    let Some(first) = obs.ui.elements.iter().position(is_located) else { return obs };
    let mut seen = (*obs).clone();
    seen.ui.elements.truncate(first);
    seen.ui.roots.retain(|r| *r < first);
    Arc::new(seen)
}
