//! Cutting a reference picture out of a screenshot, for the gallery: the box must
//! lie inside the screen and hold some detail (a flat box finds nothing), and the
//! cut says how often it shows on that very screen (twice or more names no one
//! place). `codeact assets add` and the studio's "cut a picture here" both cut
//! this way. Not the gallery's files (`gallery.rs`) nor the matching (`matcher.rs`).

use super::gallery::Reference;
use super::matcher::{self, Found, MatchOptions, Screen};
use super::picture::Planes;

/// Why a box cannot be cut.
#[derive(Debug, thiserror::Error)]
pub enum CutError {
    #[error("the screenshot is not a picture")]
    NotAPicture(#[source] image::ImageError),
    #[error("{x1},{y1},{x2},{y2} reaches past the {width}x{height} screen; give a box inside it")]
    OutOfScreen { x1: u32, y1: u32, x2: u32, y2: u32, width: u32, height: u32 },
    #[error("{x1},{y1},{x2},{y2} is not a box: give x1 < x2 and y1 < y2")]
    Empty { x1: u32, y1: u32, x2: u32, y2: u32 },
    #[error("that box is one flat colour: a picture is found by its detail; cut around an icon or a label")]
    Flat,
    #[error("cannot encode the picture")]
    Encode(#[source] image::ImageError),
}

/// A cut picture, ready for [`super::Gallery::add`].
pub struct Cut {
    pub reference: Reference,
    pub png: Vec<u8>,
    /// How many places on the screen it was cut from it matches (1: one place).
    pub shows: usize,
}

/// Cuts `[x1, y1, x2, y2]` (screen pixels) out of the screenshot `png` as `name`.
pub fn cut(png: &[u8], name: &str, [x1, y1, x2, y2]: [u32; 4], threshold: Option<f32>) -> Result<Cut, CutError> {
    let shot = image::load_from_memory(png).map_err(CutError::NotAPicture)?.to_rgba8();
    let (width, height) = shot.dimensions();
    if x1 >= x2 || y1 >= y2 {
        return Err(CutError::Empty { x1, y1, x2, y2 });
    }
    if x2 > width || y2 > height {
        return Err(CutError::OutOfScreen { x1, y1, x2, y2, width, height });
    }
    let piece = image::imageops::crop_imm(&shot, x1, y1, x2 - x1, y2 - y1).to_image();
    let picture = Planes::from_rgba(piece.as_raw(), piece.width() as usize, piece.height() as usize, 1);
    let mean = picture.grey.iter().sum::<f32>() / picture.grey.len().max(1) as f32;
    if picture.grey.iter().all(|v| (v - mean).abs() < 2.0) {
        return Err(CutError::Flat);
    }
    let mut bytes = std::io::Cursor::new(Vec::new());
    piece.write_to(&mut bytes, image::ImageFormat::Png).map_err(CutError::Encode)?;
    let reference = Reference {
        name: name.to_string(),
        file: format!("{name}.png"),
        aliases: Vec::new(),
        screen: [width, height],
        at: [x1, y1, x2 - x1, y2 - y1],
        threshold,
    };
    let screen = Screen::new(shot.as_raw(), width as usize, height as usize);
    let options = MatchOptions { threshold: threshold.unwrap_or(0.8), ..MatchOptions::default() };
    let shows = match matcher::find(&screen, &picture, 1.0, &options) {
        Found::Ambiguous { places } => places.len(),
        _ => 1,
    };
    Ok(Cut { reference, png: bytes.into_inner(), shows })
}
