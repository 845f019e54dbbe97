//! Screenshots as a report embeds them: decoded, scaled down to a fixed width and
//! re-encoded as JPEG, so a 100-step run stays within the size budget; or, with
//! external assets, the same JPEG written beside the report. Not the drawing of
//! what an action hit (that is an overlay in the page).

use std::io::Cursor;
use std::path::Path;

use base64::Engine as _;
use image::ImageReader;
use image::codecs::jpeg::JpegEncoder;

/// The width screenshots are shown at (CSS pixels; phones are 1080 wide).
pub const WIDTH: u32 = 360;
/// JPEG quality: text on a phone screen stays legible.
const QUALITY: u8 = 70;

/// A screenshot as the page shows it: its `src`, and the original's size.
pub type Shown = (String, (u32, u32));

/// A screenshot ready for the page: the original's size (for placing markers in
/// device pixels) and the JPEG bytes.
#[derive(Debug, Clone)]
pub struct Shrunk {
    pub width: u32,
    pub height: u32,
    pub jpeg: Vec<u8>,
}

impl Shrunk {
    /// A `data:` URI for the page.
    pub fn data_uri(&self) -> String {
        format!("data:image/jpeg;base64,{}", base64::engine::general_purpose::STANDARD.encode(&self.jpeg))
    }
}

/// The image file at `path`, scaled down to [`WIDTH`] and re-encoded (`None`: it
/// cannot be read or decoded; the report says the image is missing).
pub fn shrink(path: &Path) -> Option<Shrunk> {
    let image = ImageReader::open(path).ok()?.with_guessed_format().ok()?.decode().ok()?;
    let (width, height) = (image.width(), image.height());
    if width == 0 || height == 0 {
        return None;
    }
    let scaled = if width > WIDTH {
        let h = ((u64::from(height) * u64::from(WIDTH)) / u64::from(width)).max(1) as u32;
        // Box sampling: a third of a filtered resize's time, as legible at a third of the size.
        image.thumbnail_exact(WIDTH, h)
    } else {
        image
    };
    let mut jpeg = Vec::new();
    JpegEncoder::new_with_quality(Cursor::new(&mut jpeg), QUALITY).encode_image(&scaled.to_rgb8()).ok()?;
    Some(Shrunk { width, height, jpeg })
}
