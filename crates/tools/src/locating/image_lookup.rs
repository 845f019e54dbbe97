//! `#{image: "NAME"}`: where a reference picture from the gallery is on the live
//! screenshot — nowhere (the best scores go in the action line), one place, or an
//! error when the gallery has no such picture or it shows in two places. Not the
//! matching itself (`locate/`) or adding the match to the screen (`locating.rs`).

use codeact_platform::locate::{Found, Gallery, Place, Planes};

use crate::context::ToolContext;
use crate::error::ToolError;
use crate::select::ImageWant;

/// Where the picture `want` names is on the screen now: `None` when nowhere (the
/// best scores go in the action line).
pub(crate) fn find_picture(c: &mut ToolContext, want: &ImageWant) -> Result<Option<Place>, ToolError> {
    match seek_picture(c, want)? {
        Ok(place) => Ok(Some(place)),
        Err(missed) => {
            c.call_record().note_effect(missed);
            Ok(None)
        }
    }
}

/// Where the picture `want` names is on the screen now, or what was seen instead
/// (a line for the action), saying nothing itself: a watcher looks quietly.
pub(crate) fn seek_picture(c: &mut ToolContext, want: &ImageWant) -> Result<Result<Place, String>, ToolError> {
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
        codeact_platform::locate::seek(&reference, &picture, shot.as_raw(), sw as usize, sh as usize, want.threshold);
    match found {
        Found::One(place) => Ok(Ok(place)),
        Found::Nothing { best } => {
            let seen: Vec<String> = best.iter().map(|p| format!("{:.2}", p.score)).collect();
            Ok(Err(format!(
                "picture {:?} not on screen (threshold {:.2}; {})",
                want.name,
                threshold,
                if seen.is_empty() { "no place came near".into() } else { format!("best scores {}", seen.join(", ")) }
            )))
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
