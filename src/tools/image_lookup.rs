//! `#{image: "NAME"}`: a reference picture from the gallery found on the screenshot,
//! added to the screen as an element of its own (class `codeact.Image`, id
//! `image/NAME`, the match's bounds) so that every selector tool — tap, long_press,
//! find, wait_for, wait_gone, assert_visible — acts on it as on any element. The
//! call's action line says it was found by picture, where and how sure. Not the
//! matching itself (`locate/`).

use std::sync::Arc;

use crate::device::Observation;
use crate::locate::{Found, Gallery, Place, Planes};
use crate::ui::{Bounds, Element};

use super::context::ToolContext;
use super::error::ToolError;
use super::select::{IMAGE_CLASS, ImageWant, Selector};

/// The live screen as `sel` needs it (see [`screen_for`]).
pub(crate) fn look(c: &mut ToolContext, sel: &Selector) -> Result<Arc<Observation>, ToolError> {
    let obs = c.look()?;
    screen_for(c, obs, sel)
}

/// `obs` as `sel` needs it: with the image match added when it names a picture
/// that is on screen (and the context's screen replaced by it); as it is otherwise.
pub(crate) fn screen_for(
    c: &mut ToolContext,
    obs: Arc<Observation>,
    sel: &Selector,
) -> Result<Arc<Observation>, ToolError> {
    let Some(want) = &sel.image else { return Ok(obs) };
    let place = locate(c, want)?;
    let Some(place) = place else { return Ok(obs) };
    let mut seen = (*obs).clone();
    let id = seen.ui.elements.len();
    let bounds = Bounds {
        left: place.x as i32,
        top: place.y as i32,
        right: (place.x + place.width) as i32,
        bottom: (place.y + place.height) as i32,
    };
    seen.ui.elements.push(Element {
        id,
        class: IMAGE_CLASS.to_string(),
        native_class: IMAGE_CLASS.to_string(),
        resource_id: format!("image/{}", want.name),
        content_desc: format!("picture {} ({:.2})", want.name, place.score),
        bounds,
        center: ((bounds.left + bounds.right) / 2, (bounds.top + bounds.bottom) / 2),
        clickable: true,
        enabled: true,
        visible: true,
        visible_to_user: Some(true),
        actions: crate::ui::Actions { touch: true, long_touch: true, set_text: false, scroll: false },
        signature: crate::ui::stable_hash(format!("image/{}", want.name).as_bytes()),
        ..Default::default()
    });
    seen.ui.roots.push(id);
    c.call.note_effect(format!(
        "found by picture {:?} at [{},{}][{},{}], score {:.2}",
        want.name, bounds.left, bounds.top, bounds.right, bounds.bottom, place.score
    ));
    let seen = Arc::new(seen);
    c.replace_latest(seen.clone());
    Ok(seen)
}

/// Where the picture `want` names is on the screen now: `None` when nowhere; an
/// error when the gallery has no such picture or it shows in two places.
fn locate(c: &mut ToolContext, want: &ImageWant) -> Result<Option<Place>, ToolError> {
    let dir = c.options().assets.clone();
    let gallery = Gallery::open(&dir)?;
    let Some(reference) = gallery.get(&want.name).cloned() else {
        let known: Vec<&str> = gallery.references().iter().map(|r| r.name.as_str()).collect();
        return Err(ToolError::NoReference {
            name: want.name.clone(),
            dir: dir.display().to_string(),
            known: if known.is_empty() { "none".into() } else { known.join(", ") },
        });
    };
    let picture: Planes = gallery.picture(&reference)?;
    let png = c.capture_screenshot()?;
    let shot =
        image::load_from_memory(&png).map_err(|_| ToolError::NotAScreenshot { name: want.name.clone() })?.to_rgba8();
    let (sw, sh) = shot.dimensions();
    let (found, threshold) =
        crate::locate::seek(&reference, &picture, shot.as_raw(), sw as usize, sh as usize, want.threshold);
    match found {
        Found::One(place) => Ok(Some(place)),
        Found::Nothing { best } => {
            let seen: Vec<String> = best.iter().map(|p| format!("{:.2}", p.score)).collect();
            c.call.note_effect(format!(
                "picture {:?} not on screen (threshold {:.2}; {})",
                want.name,
                threshold,
                if seen.is_empty() { "no place came near".into() } else { format!("best scores {}", seen.join(", ")) }
            ));
            Ok(None)
        }
        Found::Ambiguous { places } => Err(ToolError::ImageAmbiguous {
            name: want.name.clone(),
            places: places
                .iter()
                .map(|p| format!("[{},{}][{},{}] {:.2}", p.x, p.y, p.x + p.width, p.y + p.height, p.score))
                .collect(),
        }),
    }
}
