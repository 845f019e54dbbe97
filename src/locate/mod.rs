//! Locating what the UI tree cannot say where: a reference picture matched on the
//! screenshot (`matcher.rs`, on the pictures `picture.rs` prepares), the pictures
//! kept in a gallery folder (`gallery.rs`), and by description (`ai.rs`: what a vision
//! model is asked, what its answer must be, the answers kept per screen).
//!
//! Nothing here talks to a device or a model: it takes pixels and text and gives
//! places; the model is a callback handed in.

pub mod ai;
pub mod gallery;
pub mod matcher;
pub mod picture;

pub use gallery::{Gallery, GalleryError, Reference};
pub use matcher::{Found, MatchOptions, Place, Screen};
pub use picture::Planes;

/// Seeks `reference` (its `picture`) on a screenshot (`rgba`, width × height): at the
/// scale the screens' widths give, where it was cut first, needing `threshold` (else
/// the reference's own, else 0.8). Returns what was found and the threshold used.
pub fn seek(
    reference: &Reference,
    picture: &Planes,
    rgba: &[u8],
    width: usize,
    height: usize,
    threshold: Option<f32>,
) -> (Found, f32) {
    let screen = Screen::new(rgba, width, height);
    // The reference looks as much bigger as the screen is wider than where it was cut.
    let expected = width as f32 / reference.screen[0].max(1) as f32;
    let [x, y, w, h] = reference.at.map(|v| (v as f32 * expected) as i64);
    let threshold = threshold.or(reference.threshold).unwrap_or(0.8);
    let options = MatchOptions { threshold, window: Some((x, y, w, h)), ..MatchOptions::default() };
    (matcher::find(&screen, picture, expected, &options), threshold)
}
