//! Locating what the UI tree cannot say where: a reference picture matched on the
//! screenshot (`matcher.rs`, on the pictures `picture.rs` prepares), the pictures
//! kept in a gallery folder (`gallery.rs`), and by description (`ai.rs`: what a vision
//! model is asked, what its answer must be, the answers kept per screen).
//!
//! Nothing here talks to a device or a model: it takes pixels and text and gives
//! places; the model is a callback handed in.

pub mod ai;
pub mod cut;
pub mod gallery;
mod integral;
pub mod matcher;
pub mod picture;

pub use gallery::{Gallery, GalleryError, Reference};
pub use matcher::{Found, MatchOptions, Place, Screen};

pub use picture::Planes;

/// Seeks `reference` (its `picture`) on a screenshot (`rgba`, width × height): see
/// [`seek_on`]. Returns what was found and the threshold used.
pub fn seek(
    reference: &Reference,
    picture: &Planes,
    rgba: &[u8],
    width: usize,
    height: usize,
    threshold: Option<f32>,
) -> (Found, f32) {
    seek_on(&Screen::new(rgba, width, height), reference, picture, threshold)
}

/// Scales tried, relative to the one the screens' widths give, when none of the
/// usual ones (0.8–1.25) finds the reference: a phone whose density differs from the
/// one it was recorded on draws the same view larger or smaller than its width says
/// (Android sizes views in dp). Steps of about 8 %, as the usual ones.
const WIDE_SCALES: [f32; 6] = [1.35, 1.46, 1.58, 0.74, 0.68, 0.63];

/// What a match found only at a wide scale, or with the background repainted, must
/// score above the threshold: the more a pass guesses, the likelier a look-alike.
const WIDE_MARGIN: f32 = 0.05;

/// Seeks `reference` on a prepared screen: at the scale the screens' widths give,
/// where it was cut first, needing `threshold` (else the reference's own, else 0.8).
/// When nothing is found: at [`WIDE_SCALES`] over the whole screen (needing a little
/// more), then — for a picture cut with a flat background round it — on the
/// screen's own background colour (another theme). Each later pass runs only when
/// the earlier ones found nothing, so a usual match costs nothing more. Returns what
/// was found and the threshold used.
pub fn seek_on(screen: &Screen, reference: &Reference, picture: &Planes, threshold: Option<f32>) -> (Found, f32) {
    // The reference looks as much bigger as the screen is wider than where it was cut.
    let expected = screen.width as f32 / reference.screen[0].max(1) as f32;
    let [x, y, w, h] = reference.at.map(|v| (v as f32 * expected) as i64);
    let threshold = threshold.or(reference.threshold).unwrap_or(0.8);
    let usual = MatchOptions { threshold, window: Some((x, y, w, h)), ..MatchOptions::default() };
    let mut best = Vec::new();
    let mut keep = |found: Found| match found {
        Found::Nothing { best: more } => {
            best.extend(more);
            None
        }
        other => Some(other),
    };
    if let Some(found) = keep(matcher::find(screen, picture, expected, &usual)) {
        return (found, threshold);
    }
    let wide = MatchOptions { threshold: threshold + WIDE_MARGIN, window: None, scales: WIDE_SCALES.to_vec() };
    if let Some(found) = keep(matcher::find(screen, picture, expected, &wide)) {
        return (found, threshold);
    }
    if let Some(background) = picture.flat_border() {
        let here = screen.planes.common_colour();
        if (0..3).any(|c| (here[c] - background[c]).abs() > 24.0) {
            // First the background round the picture; then its holes too (a picture
            // with see-through parts), only when that found nothing either.
            for holes in [false, true] {
                let repainted = picture.on_background(background, here, holes);
                // A repainted picture is a guess at how the theme shows it: it must
                // score as a wide match does, and what it shows must keep its colours.
                let guessed = MatchOptions { threshold: threshold + WIDE_MARGIN, ..usual.clone() };
                let places = match keep(matcher::find(screen, &repainted, expected, &guessed)) {
                    Some(Found::One(place)) => vec![place],
                    Some(Found::Ambiguous { places }) => places,
                    _ => Vec::new(),
                };
                let mut agreeing: Vec<Place> =
                    places.into_iter().filter(|p| same_foreground(screen, picture, background, holes, p)).collect();
                match agreeing.len() {
                    0 => {}
                    1 => return (Found::One(agreeing.remove(0)), threshold),
                    _ => return (Found::Ambiguous { places: agreeing }, threshold),
                }
            }
        }
    }
    best.sort_by(|a, b| b.score.total_cmp(&a.score));
    best.truncate(3);
    (Found::Nothing { best }, threshold)
}

/// How far (0..255, per channel) the mean colour of what a picture shows may be from
/// the place a repainted picture matched: a repainted background says nothing of
/// the picture any more, so its own colours must agree.
const FOREGROUND_TOLERANCE: f32 = 40.0;

/// Whether the screen at `place` has the colours of what `picture` shows (its
/// samples that are not its `background`), each compared at the place's size.
fn same_foreground(screen: &Screen, picture: &Planes, background: [f32; 3], holes: bool, place: &Place) -> bool {
    let f = screen.factor.max(1) as i64;
    let (x, y) = ((place.x / f).max(0) as usize, (place.y / f).max(0) as usize);
    let (w, h) = ((place.width / f).max(1) as usize, (place.height / f).max(1) as usize);
    let region = screen.planes.crop(x, y, w, h);
    let shown = picture.resized(region.width, region.height);
    let inside: Vec<bool> = shown.background_of(background, !holes).iter().map(|b| !b).collect();
    match (region.mean_colour(&inside), shown.mean_colour(&inside)) {
        (Some(here), Some(there)) => (0..3).all(|c| (here[c] - there[c]).abs() <= FOREGROUND_TOLERANCE),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `w`×`h` screen of one colour with a disc of `colour` (a white bar across
    /// it) at (x, y), `size` pixels.
    fn screen_with_disc(w: usize, h: usize, background: [u8; 3], at: (usize, usize), size: usize) -> Vec<u8> {
        let mut rgba: Vec<u8> = (0..w * h).flat_map(|_| [background[0], background[1], background[2], 255]).collect();
        let r = size as f32 / 2.0;
        for dy in 0..size {
            for dx in 0..size {
                let (fx, fy) = (dx as f32 + 0.5 - r, dy as f32 + 0.5 - r);
                if (fx * fx + fy * fy).sqrt() > r {
                    continue;
                }
                let px = if fy.abs() < r * 0.2 && fx.abs() < r * 0.6 { [255, 255, 255] } else { [26, 115, 232] };
                let i = ((at.1 + dy) * w + at.0 + dx) * 4;
                rgba[i..i + 3].copy_from_slice(&px);
            }
        }
        rgba
    }

    fn recorded(margin: usize) -> (Reference, Planes) {
        let (w, h) = (1080, 2400);
        let rgba = screen_with_disc(w, h, [255; 3], (600, 900), 150);
        let (x, y, side) = (600 - margin, 900 - margin, 150 + 2 * margin);
        let picture = Planes::from_rgba(&rgba, w, h, 1).crop(x, y, side, side);
        let at = [x as u32, y as u32, side as u32, side as u32];
        let reference = Reference {
            name: "disc".into(),
            file: "disc.png".into(),
            aliases: vec![],
            screen: [1080, 2400],
            at,
            threshold: None,
        };
        (reference, picture)
    }

    #[test]
    fn a_picture_cut_with_its_background_is_found_on_another_theme() {
        let (reference, picture) = recorded(12);
        assert!(picture.flat_border().is_some());
        let dark = screen_with_disc(1080, 2400, [18, 18, 18], (300, 1500), 150);
        let (found, _) = seek(&reference, &picture, &dark, 1080, 2400, None);
        let Found::One(p) = found else { panic!("not found on the dark theme: {found:?}") };
        assert!((p.x - 288).abs() <= 8 && (p.y - 1488).abs() <= 8, "{p:?}");
    }

    #[test]
    fn a_denser_screen_is_searched_at_wider_scales() {
        let (reference, picture) = recorded(4);
        // The same view on a phone a third denser: drawn a third larger, same width.
        let dense = screen_with_disc(1080, 2400, [255; 3], (500, 1200), 200);
        let (found, _) = seek(&reference, &picture, &dense, 1080, 2400, None);
        assert!(matches!(found, Found::One(_)), "{found:?}");
        // And nowhere on a screen without it.
        let empty = screen_with_disc(1080, 2400, [255; 3], (0, 0), 0);
        assert!(matches!(seek(&reference, &picture, &empty, 1080, 2400, None).0, Found::Nothing { .. }));
    }
}
