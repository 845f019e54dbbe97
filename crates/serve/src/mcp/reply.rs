//! What a code-running call answers, as the text a model reads: the prints, each
//! action with its effect line, the value, the error with its line and column, the
//! completion, and the screen after it; and the screenshot, scaled so its longest
//! side is at most the size asked (2000 px by default, as clients accept). Text from
//! the device and the script loses its control characters. Not the MCP types
//! (`server.rs`).

use codeact_base::terminal::clean;
use codeact_engine::sandbox::{Action, RunResult};

/// The longest side of a screenshot an answer carries, unless the call asks less.
pub const MAX_PICTURE_SIDE: u32 = 2000;

/// How many actions an answer lists one by one (the rest are counted).
const LISTED: usize = 50;

/// `tap("Send") ok (12 ms): opened .Chat`: one action and what it changed.
fn action_line(a: &Action) -> String {
    let args = a.args.join(", ");
    let how = if a.succeeded() { "ok".to_string() } else { format!("failed: {}", a.result) };
    let effect = a.capture.effect.as_deref().map(|e| format!(": {e}")).unwrap_or_default();
    clean(&format!("- {}({args}) {how} ({:.0} ms){effect}", a.tool, a.duration_ms)).into_owned()
}

/// The answer to a snippet that ran: what it printed and did, how it ended, and the
/// screen after it (when it could be read).
pub fn run_text(result: &RunResult, screen: Option<&str>) -> String {
    let mut out = String::new();
    if !result.output.is_empty() {
        out.push_str("output:\n");
        out.push_str(&clean(&result.output));
        if !result.output.ends_with('\n') {
            out.push('\n');
        }
    }
    let (listed, more) = result.listed_actions(LISTED);
    if !listed.is_empty() {
        out.push_str("actions:\n");
        for a in listed {
            out.push_str(&action_line(a));
            out.push('\n');
        }
        if let Some(more) = more {
            out.push_str(&format!("- {more}\n"));
        }
    }
    if let Some(v) = &result.value {
        out.push_str(&format!("value: {}\n", clean(v)));
    }
    if let Some(e) = &result.error {
        out.push_str(&format!("error: {}\n", clean(&e.to_string())));
    }
    if let Some(c) = &result.completion {
        let how = if c.success { "success" } else { "failure" };
        let reason = if c.reason.is_empty() { String::new() } else { format!(": {}", clean(&c.reason)) };
        out.push_str(&format!("completed ({how}){reason}\n"));
    }
    if out.is_empty() {
        out.push_str("ok (nothing printed, no actions)\n");
    }
    if let Some(screen) = screen {
        out.push_str("screen:\n");
        out.push_str(&clean(screen));
    }
    out
}

/// Why a picture could not be made smaller.
#[derive(Debug, thiserror::Error)]
#[error("the screenshot could not be read as a PNG")]
pub struct PictureError(#[source] image::ImageError);

/// `png` with its longest side at most `max_side` pixels (as it is when it already
/// fits), as a PNG.
pub fn scaled_png(png: &[u8], max_side: u32) -> Result<Vec<u8>, PictureError> {
    let max_side = max_side.clamp(16, MAX_PICTURE_SIDE);
    let decoder = image::ImageReader::with_format(std::io::Cursor::new(png), image::ImageFormat::Png);
    let picture = decoder.decode().map_err(PictureError)?;
    if picture.width().max(picture.height()) <= max_side {
        return Ok(png.to_vec());
    }
    let smaller = picture.resize(max_side, max_side, image::imageops::FilterType::Triangle);
    let mut out = Vec::new();
    smaller.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png).map_err(PictureError)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_picture_larger_than_asked_is_scaled_keeping_its_shape() {
        let big = image::RgbImage::from_pixel(300, 600, image::Rgb([10, 200, 30]));
        let mut png = Vec::new();
        image::DynamicImage::ImageRgb8(big)
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .unwrap();
        let small = scaled_png(&png, 100).unwrap();
        let read = image::load_from_memory(&small).unwrap();
        assert_eq!((read.width(), read.height()), (50, 100));
        assert_eq!(scaled_png(&png, 5000).unwrap(), png, "a picture that fits is kept as it is");
        assert!(scaled_png(b"not a png", 100).is_err());
    }

    #[test]
    fn the_answer_says_what_ran_and_how_it_ended() {
        let result = RunResult { output: "hi\x1b[31m\n".into(), value: Some("42".into()), ..RunResult::default() };
        let text = run_text(&result, Some("Settings\n[0] Wi-Fi\n"));
        assert!(text.starts_with("output:\nhi"), "{text}");
        assert!(!text.contains('\x1b'));
        assert!(text.contains("value: 42\n") && text.ends_with("[0] Wi-Fi\n"), "{text}");
    }
}
