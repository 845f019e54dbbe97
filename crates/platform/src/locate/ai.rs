//! Locating by description: what a vision model is asked ("where is the blue send
//! button", a point on a 0–1000 grid), what its answer must be to be used (JSON, a
//! point inside the screen, or "not there"), and the answers kept per screen
//! fingerprint and description so the same question on the same screen is not asked
//! twice.
//!
//! Not the asking itself: the model is a [`Vision`] callback a higher layer hands in
//! (`llm::locator` builds one from an OpenAI-compatible client), the way `human/`
//! hands in a person. Nothing here talks to a network, a device or a tree.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

/// The grid a model answers on, whatever the screen's size.
pub const GRID: f64 = 1000.0;
/// The most of an answer quoted in an error.
const QUOTED: usize = 120;
/// Answers a session keeps (the oldest go first).
const CACHED: usize = 64;

/// One question to the vision model.
pub struct VisionRequest<'a> {
    /// The whole prompt (the description is in it).
    pub prompt: &'a str,
    /// The screenshot, PNG.
    pub png: &'a [u8],
    /// When the answer is no use any more (the tool call's deadline).
    pub deadline: Instant,
    /// Whether the snippet was stopped (Ctrl-C, a cancel): stop waiting.
    pub stopped: &'a (dyn Fn() -> bool + Sync),
}

/// What the vision model said.
#[derive(Debug, Clone)]
pub struct VisionReply {
    pub text: String,
    /// The model that answered (for the action line).
    pub model: String,
}

/// Why the vision model gave no answer.
#[derive(Debug, Clone, thiserror::Error)]
pub enum VisionError {
    /// The endpoint failed; `message` is its error as the client words it (keys
    /// already blotted out).
    #[error("{message}")]
    Failed { message: String },
    #[error("it did not answer within the call's time ({secs:.0} s left when asked); raise --limit timeout_ms")]
    TimedOut { secs: f64 },
    #[error("the snippet was stopped while it asked")]
    Stopped,
}

/// A vision model as the tools see one.
pub type Vision = Arc<dyn Fn(&VisionRequest) -> Result<VisionReply, VisionError> + Send + Sync>;

/// What the model's answer means, on the screen's pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Answer {
    /// Here (pixels), as the model put it on its grid, and how sure it said it was.
    At { x: i32, y: i32, grid: (f64, f64), confidence: Option<f64> },
    /// The model says it is not on the screen.
    NotThere,
}

/// Why an answer cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AnswerError {
    #[error("its answer is not the JSON asked for (it began {head:?})")]
    NotJson { head: String },
    #[error("its answer has no point (x and y, or a bbox) and does not say found: false (it began {head:?})")]
    NoPoint { head: String },
    #[error("it answered a point outside the screen ({x}, {y} on the 0–1000 grid)")]
    Outside { x: String, y: String },
}

/// What the model is asked to find `description` (the screenshot goes with it).
pub fn prompt(description: &str) -> String {
    format!(
        "You locate things on a phone screenshot. Find: {description:?}.\n\
         Answer with JSON only, no prose: {{\"x\": X, \"y\": Y, \"confidence\": C}} where X and Y \
         are the centre of that thing on a 0-1000 grid over the image (0,0 top left, 1000,1000 \
         bottom right) and C is how sure you are, 0 to 1. If it is not on the screen, answer \
         {{\"found\": false}}."
    )
}

fn head(text: &str) -> String {
    let text = text.trim();
    let mut end = text.len().min(QUOTED);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

/// The JSON object in `text`: the whole text, a fenced block, or the first `{` to
/// the last `}` (models wrap JSON in prose and fences).
fn json_in(text: &str) -> Option<Value> {
    let trimmed = text.trim();
    if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
        return Some(v);
    }
    let start = trimmed.find('{')?;
    let end = trimmed.rfind('}')?;
    (start < end).then(|| serde_json::from_str::<Value>(&trimmed[start..=end]).ok()).flatten()
}

fn number(v: &Value) -> Option<f64> {
    v.as_f64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok())).filter(|n: &f64| n.is_finite())
}

/// Reads the model's `text` as a point on a `width` × `height` screen.
pub fn read_answer(text: &str, width: u32, height: u32) -> Result<Answer, AnswerError> {
    let Some(v) = json_in(text) else { return Err(AnswerError::NotJson { head: head(text) }) };
    let v = match v {
        // A model may answer a list of one.
        Value::Array(mut items) if items.len() == 1 => items.remove(0),
        v => v,
    };
    if !v.is_object() {
        return Err(AnswerError::NotJson { head: head(text) });
    }
    if v.get("found").and_then(Value::as_bool) == Some(false) {
        return Ok(Answer::NotThere);
    }
    let pair = |key: &str| {
        let items = v.get(key)?.as_array()?;
        items.iter().map(number).collect::<Option<Vec<f64>>>()
    };
    let point = match (v.get("x").and_then(number), v.get("y").and_then(number)) {
        (Some(x), Some(y)) => Some((x, y)),
        _ => match (pair("point"), pair("bbox")) {
            (Some(p), _) if p.len() == 2 => Some((p[0], p[1])),
            (_, Some(b)) if b.len() == 4 => Some(((b[0] + b[2]) / 2.0, (b[1] + b[3]) / 2.0)),
            _ => None,
        },
    };
    let Some((gx, gy)) = point else { return Err(AnswerError::NoPoint { head: head(text) }) };
    if !(0.0..=GRID).contains(&gx) || !(0.0..=GRID).contains(&gy) {
        return Err(AnswerError::Outside { x: format!("{gx}"), y: format!("{gy}") });
    }
    let confidence = v.get("confidence").and_then(number).filter(|c| (0.0..=1.0).contains(c));
    // The grid's 1000 is the last pixel, not one past it.
    let to_pixels = |g: f64, size: u32| ((g / GRID) * f64::from(size.max(1) - 1)).round() as i32;
    Ok(Answer::At { x: to_pixels(gx, width), y: to_pixels(gy, height), grid: (gx, gy), confidence })
}

/// A screen as the cache knows it: its screenshot's bytes, hashed.
pub fn fingerprint(png: &[u8]) -> u64 {
    crate::ui::stable_hash(png)
}

/// The answers a session got, by screen fingerprint and description: the same
/// question on the same screen is answered from here.
#[derive(Debug, Default, Clone)]
pub struct AnswerCache {
    kept: VecDeque<(u64, String, Answer, String)>,
}

impl AnswerCache {
    /// The answer given for `description` on the screen `fingerprint`, and the model
    /// that gave it.
    pub fn get(&self, fingerprint: u64, description: &str) -> Option<(Answer, &str)> {
        self.kept.iter().find(|(f, d, _, _)| *f == fingerprint && d == description).map(|(_, _, a, m)| (*a, m.as_str()))
    }

    pub fn put(&mut self, fingerprint: u64, description: &str, answer: Answer, model: &str) {
        self.kept.retain(|(f, d, _, _)| !(*f == fingerprint && d == description));
        if self.kept.len() >= CACHED {
            self.kept.pop_front();
        }
        self.kept.push_back((fingerprint, description.to_string(), answer, model.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_in_the_shapes_models_give_are_read_as_pixels() {
        let at = |t: &str| read_answer(t, 1001, 2001);
        assert_eq!(
            at(r#"{"x": 500, "y": 250}"#),
            Ok(Answer::At { x: 500, y: 500, grid: (500.0, 250.0), confidence: None })
        );
        let fenced = "Here it is:\n```json\n{\"x\": \"100\", \"y\": 1000, \"confidence\": 0.9}\n```";
        assert_eq!(at(fenced), Ok(Answer::At { x: 100, y: 2000, grid: (100.0, 1000.0), confidence: Some(0.9) }));
        assert!(matches!(at(r#"{"bbox": [100, 100, 300, 300]}"#), Ok(Answer::At { x: 200, y: 400, .. })));
        assert!(matches!(at(r#"[{"point": [0, 0]}]"#), Ok(Answer::At { x: 0, y: 0, .. })));
        assert_eq!(at(r#"{"found": false}"#), Ok(Answer::NotThere));
    }

    #[test]
    fn nonsense_is_refused_with_what_was_wrong() {
        let at = |t: &str| read_answer(t, 1080, 2400);
        assert!(matches!(at("the button is at the bottom"), Err(AnswerError::NotJson { .. })));
        assert!(matches!(at(r#"{"x": 1500, "y": 10}"#), Err(AnswerError::Outside { .. })));
        assert!(matches!(at(r#"{"x": -1, "y": 10}"#), Err(AnswerError::Outside { .. })));
        assert!(matches!(at(r#"{"x": "NaN", "y": 10}"#), Err(AnswerError::NoPoint { .. })));
        assert!(matches!(at(r#"{"where": "left"}"#), Err(AnswerError::NoPoint { .. })));
        assert!(matches!(at("42"), Err(AnswerError::NotJson { .. })));
        let long = "é".repeat(5000);
        match at(&long) {
            Err(AnswerError::NotJson { head }) => assert!(head.len() <= QUOTED),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_cache_keeps_answers_per_screen_and_description_and_forgets_the_oldest() {
        let mut cache = AnswerCache::default();
        let a = Answer::At { x: 1, y: 2, grid: (1.0, 2.0), confidence: None };
        cache.put(7, "send", a, "m");
        assert_eq!(cache.get(7, "send"), Some((a, "m")));
        assert_eq!(cache.get(8, "send"), None);
        assert_eq!(cache.get(7, "back"), None);
        for i in 0..CACHED as u64 {
            cache.put(100 + i, "x", Answer::NotThere, "m");
        }
        assert_eq!(cache.get(7, "send"), None);
    }
}
