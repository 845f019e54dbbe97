//! `#{ai: "the blue send button"}` and `locate(description)`: the session's vision
//! model asked where something is on the screenshot, its answer checked (JSON, a
//! point inside the screen) and kept per screen fingerprint and description, so the
//! same question on the same screen costs no second request. The element under the
//! point, when the tree has one, is what the action line names. Not the chain that
//! decides when to ask (`locating.rs`) or the question's wording (`locate::ai`).

use codeact_platform::device::Observation;
use codeact_platform::locate::ai::{Answer, VisionRequest, fingerprint, prompt, read_answer};
use codeact_platform::ui::Element;

use crate::context::ToolContext;
use crate::error::ToolError;
use crate::select::is_located;

/// Where the model put a description on the screen, and what is there.
pub(crate) struct ModelPoint {
    pub x: i32,
    pub y: i32,
    pub confidence: Option<f64>,
    /// The smallest element of the tree under the point (none on a canvas).
    pub under: Option<Element>,
    /// Answered from the session's cache (no request made).
    pub cached: bool,
    pub model: String,
}

impl ModelPoint {
    /// How the action line says it: `found by the model m at (540, 1210), sure 0.90,
    /// on Button "Send"` (`, remembered` when no request was made).
    pub(crate) fn said(&self, description: &str) -> String {
        let mut line = format!("found by the model {} ({description:?}) at ({}, {})", self.model, self.x, self.y);
        if let Some(c) = self.confidence {
            line.push_str(&format!(", sure {c:.2}"));
        }
        if let Some(e) = &self.under {
            line.push_str(&format!(", on {}", super::closest::described(e)));
        }
        if self.cached {
            line.push_str(", remembered for this screen");
        }
        line
    }
}

/// The smallest visible element whose bounds hold (x, y).
fn under(obs: &Observation, x: i32, y: i32) -> Option<Element> {
    obs.ui
        .elements
        .iter()
        .filter(|e| e.visible && !is_located(e))
        .filter(|e| e.bounds.left <= x && x < e.bounds.right && e.bounds.top <= y && y < e.bounds.bottom)
        .min_by_key(|e| i64::from(e.bounds.right - e.bounds.left) * i64::from(e.bounds.bottom - e.bounds.top))
        .cloned()
}

/// Asks (or remembers) where `description` is on the live screen `obs`: `None`
/// when the model says it is not there.
pub(crate) fn ask(c: &mut ToolContext, obs: &Observation, description: &str) -> Result<Option<ModelPoint>, ToolError> {
    if !c.locator_mut().allowed {
        return Err(ToolError::LocatorNotAllowed);
    }
    let Some(vision) = c.locator_mut().vision.clone() else { return Err(ToolError::NoLocator) };
    let png = c.capture_screenshot()?;
    let (width, height) = png_size(&png).ok_or_else(|| ToolError::NotAScreenshot { name: description.into() })?;
    let screen = fingerprint(&png);
    let (answer, model, cached) = match c.locator_mut().answered(screen, description) {
        Some((answer, model)) => (answer, model.to_string(), true),
        None => {
            let shared = c.shared().clone();
            let stopped = move || shared.must_stop();
            let text = prompt(description);
            let request = VisionRequest { prompt: &text, png: &png, deadline: c.call_deadline(), stopped: &stopped };
            let reply = vision(&request).map_err(|why| ToolError::LocatorFailed { why })?;
            let answer = read_answer(&reply.text, width, height).map_err(|why| ToolError::LocatorAnswer {
                description: description.into(),
                model: reply.model.clone(),
                why,
            })?;
            c.locator_mut().keep(screen, description, answer, &reply.model);
            (answer, reply.model, false)
        }
    };
    Ok(match answer {
        Answer::NotThere => None,
        Answer::At { x, y, confidence, .. } => {
            Some(ModelPoint { x, y, confidence, under: under(obs, x, y), cached, model })
        }
    })
}

/// A screenshot's width and height, from its header.
fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    let reader = image::ImageReader::new(std::io::Cursor::new(png)).with_guessed_format().ok()?;
    reader.into_dimensions().ok().filter(|(w, h)| *w > 0 && *h > 0)
}
