//! Finding a reference picture on a screenshot: normalised cross-correlation of grey
//! levels with the means taken out (what OpenCV calls `TM_CCOEFF_NORMED`, the score
//! Airtest matches on), at a working size, over several scales around the expected
//! one, coarse to fine — the whole search on a picture halved once or twice, then
//! each promising place refined at the working size — first in a predicted window,
//! then on the whole screen; and a colour check, so that a grey look-alike (the same
//! shape in another colour) is not taken for the reference.
//!
//! The answer is one place, none (with the best scores seen), or several (ambiguous).
//! Window sums come from integral images, so a position costs one dot product of the
//! reference with the screen under it. Nothing here reads files or talks to a device.

use super::integral::Integral;
use super::picture::Planes;

/// What to look for and how sure to be.
#[derive(Debug, Clone)]
pub struct MatchOptions {
    /// The least score (−1..1) a place must reach: 0.8 unless a reference says.
    pub threshold: f32,
    /// Scales tried around the expected one (1.0 = as recorded, adjusted for the
    /// screen's size).
    pub scales: Vec<f32>,
    /// Where the reference is expected (screen pixels: x, y, width, height), searched
    /// first; the whole screen when it is not there.
    pub window: Option<(i64, i64, i64, i64)>,
}

impl Default for MatchOptions {
    fn default() -> Self {
        Self { threshold: 0.8, scales: vec![1.0, 0.9, 1.1, 0.8, 1.25], window: None }
    }
}

/// One place the reference was found at: its box in screen pixels, its score and
/// the scale it matched at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Place {
    pub x: i64,
    pub y: i64,
    pub width: i64,
    pub height: i64,
    pub score: f32,
    pub scale: f32,
}

impl Place {
    fn overlap(&self, other: &Place) -> f32 {
        let ix = (self.x + self.width).min(other.x + other.width) - self.x.max(other.x);
        let iy = (self.y + self.height).min(other.y + other.height) - self.y.max(other.y);
        if ix <= 0 || iy <= 0 {
            return 0.0;
        }
        let inter = (ix * iy) as f32;
        inter / ((self.width * self.height + other.width * other.height) as f32 - inter)
    }
}

/// What a search found.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    One(Place),
    /// Nothing reached the threshold; the best places seen, best first.
    Nothing {
        best: Vec<Place>,
    },
    /// Two or more separate places reached it, best first.
    Ambiguous {
        places: Vec<Place>,
    },
}

/// The screen at the working size, with its grey pyramid (the working size, then
/// halved, then quartered) and each level's window sums, made once per screenshot
/// whatever is sought on it.
pub struct Screen {
    /// The screenshot's size in pixels.
    pub width: usize,
    pub height: usize,
    pub planes: Planes,
    /// Screen pixels per working pixel.
    pub factor: usize,
    levels: Vec<Level>,
}

/// One level of the grey pyramid.
struct Level {
    width: usize,
    height: usize,
    grey: Vec<f32>,
    integral: Integral,
}

/// How many times the pyramid halves the working size.
const MAX_LEVELS: usize = 2;

impl Screen {
    /// The longest side of the working size, at most: enough detail for buttons and
    /// icons, small enough to search fast.
    pub const WORKING_SIDE: usize = 800;

    /// A screenshot (`rgba`, width × height × 4) reduced to the working size.
    pub fn new(rgba: &[u8], width: usize, height: usize) -> Self {
        let factor = width.max(height).div_ceil(Self::WORKING_SIDE).max(1);
        let planes = Planes::from_rgba(rgba, width, height, factor);
        let mut levels = Vec::with_capacity(MAX_LEVELS + 1);
        let (mut grey, mut w, mut h) = (planes.grey.clone(), planes.width, planes.height);
        for level in 0..=MAX_LEVELS {
            if level > 0 {
                (grey, w, h) = halve(&grey, w, h);
            }
            let integral = Integral::new(&grey, w, h);
            levels.push(Level { width: w, height: h, grey: grey.clone(), integral });
        }
        Self { width, height, planes, factor, levels }
    }
}

/// A plane at half the size, by 2×2 averaging.
fn halve(plane: &[f32], width: usize, height: usize) -> (Vec<f32>, usize, usize) {
    let (w, h) = (width / 2, height / 2);
    let mut out = Vec::with_capacity(w * h);
    for y in 0..h {
        let (a, b) = (&plane[2 * y * width..], &plane[(2 * y + 1) * width..]);
        for x in 0..w {
            out.push((a[2 * x] + a[2 * x + 1] + b[2 * x] + b[2 * x + 1]) * 0.25);
        }
    }
    (out, w, h)
}

/// Colour may differ this much (0..255, per channel, beyond a change of brightness)
/// between the reference and the place before the place is refused.
const COLOUR_TOLERANCE: f32 = 28.0;
/// How far (0..255, per channel) the middle of a match may be from the reference's.
const MIDDLE_TOLERANCE: f32 = 56.0;
/// Places kept from the coarse search for refining.
const CANDIDATES: usize = 8;

/// Looks for `reference` (full-size pixels) on `screen`; `expected_scale` is how
/// much bigger it should look than when it was recorded (the screens' width ratio).
pub fn find(screen: &Screen, reference: &Planes, expected_scale: f32, options: &MatchOptions) -> Found {
    if let Some(window) = options.window {
        let near = search(screen, reference, expected_scale, options, Some(window));
        if matches!(near, Found::One(_)) {
            return near;
        }
    }
    search(screen, reference, expected_scale, options, None)
}

fn search(
    screen: &Screen,
    reference: &Planes,
    expected: f32,
    options: &MatchOptions,
    window: Option<(i64, i64, i64, i64)>,
) -> Found {
    let f = screen.factor as f32;
    let mut places: Vec<Place> = Vec::new();
    for &scale in &options.scales {
        let s = expected * scale / f;
        let (tw, th) = ((reference.width as f32 * s).round() as usize, (reference.height as f32 * s).round() as usize);
        if tw < 4 || th < 4 || tw > screen.planes.width || th > screen.planes.height {
            continue;
        }
        let template = reference.resized(tw, th);
        // The top-left positions to try, in working pixels.
        let region = match window {
            Some((x, y, w, h)) => {
                let (x0, y0) = (((x as f32 / f) as i64 - tw as i64).max(0), ((y as f32 / f) as i64 - th as i64).max(0));
                let x1 =
                    ((x.saturating_add(w) as f32 / f) as i64 + tw as i64).min(screen.planes.width as i64) - tw as i64;
                let y1 =
                    ((y.saturating_add(h) as f32 / f) as i64 + th as i64).min(screen.planes.height as i64) - th as i64;
                if x1 < x0 || y1 < y0 {
                    continue;
                }
                (x0 as usize, y0 as usize, x1 as usize, y1 as usize)
            }
            None => (0, 0, screen.planes.width - tw, screen.planes.height - th),
        };
        for (x, y, score) in coarse_to_fine(screen, &template, region, options.threshold) {
            let score = score.min(colour_agreement(&screen.planes, &template, x, y));
            places.push(Place {
                x: (x as f32 * f) as i64,
                y: (y as f32 * f) as i64,
                width: (tw as f32 * f) as i64,
                height: (th as f32 * f) as i64,
                score,
                scale,
            });
        }
    }
    decide(places, options.threshold)
}

/// Best first; overlapping places (the same spot at another scale) merged.
fn decide(mut places: Vec<Place>, threshold: f32) -> Found {
    places.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut distinct: Vec<Place> = Vec::new();
    for p in places {
        if distinct.iter().all(|d| d.overlap(&p) < 0.3) {
            distinct.push(p);
        }
    }
    let above: Vec<Place> = distinct.iter().copied().filter(|p| p.score >= threshold).collect();
    match above.len() {
        0 => Found::Nothing { best: distinct.into_iter().take(3).collect() },
        1 => Found::One(above[0]),
        _ => Found::Ambiguous { places: above },
    }
}

/// The reference with its mean taken out, and its norm.
struct Template {
    width: usize,
    height: usize,
    zero_mean: Vec<f32>,
    norm: f64,
}

impl Template {
    fn new(plane: &[f32], width: usize, height: usize) -> Self {
        let n = (width * height) as f64;
        let mean = plane.iter().map(|v| f64::from(*v)).sum::<f64>() / n;
        let zero_mean: Vec<f32> = plane.iter().map(|v| (f64::from(*v) - mean) as f32).collect();
        let norm = zero_mean.iter().map(|v| f64::from(*v) * f64::from(*v)).sum::<f64>().sqrt();
        Self { width, height, zero_mean, norm }
    }
}

/// Σ a·b over two rows, in eight lanes (which the compiler turns into SIMD).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            lanes[k] += x[k] * y[k];
        }
    }
    lanes.iter().sum::<f32>() + ra.iter().zip(rb).map(|(x, y)| x * y).sum::<f32>()
}

/// The score at each top-left position of `region` (x0, y0, x1, y1, inclusive).
fn scores(
    image: &[f32],
    width: usize,
    integral: &Integral,
    t: &Template,
    region: (usize, usize, usize, usize),
) -> Vec<(usize, usize, f32)> {
    let (x0, y0, x1, y1) = region;
    let n = (t.width * t.height) as f64;
    let mut out = Vec::with_capacity((x1 + 1 - x0) * (y1 + 1 - y0));
    for y in y0..=y1 {
        for x in x0..=x1 {
            let s = integral.window(&integral.sum, x, y, t.width, t.height);
            let var = integral.window(&integral.sq, x, y, t.width, t.height) - s * s / n;
            if t.norm < 1e-3 || var < 1e-3 {
                out.push((x, y, 0.0));
                continue;
            }
            let mut cross = 0f32;
            for row in 0..t.height {
                let img = &image[(y + row) * width + x..(y + row) * width + x + t.width];
                cross += dot(img, &t.zero_mean[row * t.width..(row + 1) * t.width]);
            }
            out.push((x, y, (f64::from(cross) / (t.norm * var.sqrt())).clamp(-1.0, 1.0) as f32));
        }
    }
    out
}

/// The best places for `template` inside `region` of the screen: searched on the
/// screen halved (while the template keeps at least 6 pixels a side), each promising
/// place refined at the working size.
fn coarse_to_fine(
    screen: &Screen,
    template: &Planes,
    region: (usize, usize, usize, usize),
    threshold: f32,
) -> Vec<(usize, usize, f32)> {
    let mut levels = 0;
    let (mut tpl, mut tw, mut th) = (template.grey.clone(), template.width, template.height);
    while levels < MAX_LEVELS && tw.min(th) >= 12 {
        (tpl, tw, th) = halve(&tpl, tw, th);
        levels += 1;
    }
    let coarse = &screen.levels[levels];
    let k = 1usize << levels;
    let coarse_region = (
        region.0 / k,
        region.1 / k,
        (region.2 / k).min(coarse.width.saturating_sub(tw)),
        (region.3 / k).min(coarse.height.saturating_sub(th)),
    );
    if coarse_region.2 < coarse_region.0 || coarse_region.3 < coarse_region.1 || tw > coarse.width || th > coarse.height
    {
        return Vec::new();
    }
    let ranked_all = scores(&coarse.grey, coarse.width, &coarse.integral, &Template::new(&tpl, tw, th), coarse_region);
    // The local bests, each at least half a template from a better one.
    let mut ranked = ranked_all;
    ranked.sort_by(|a, b| b.2.total_cmp(&a.2));
    let mut picked: Vec<(usize, usize, f32)> = Vec::new();
    for c in ranked {
        if picked.len() >= CANDIDATES || c.2 < threshold - 0.35 {
            break;
        }
        if picked.iter().all(|p| p.0.abs_diff(c.0) * 2 >= tw || p.1.abs_diff(c.1) * 2 >= th) {
            picked.push(c);
        }
    }
    if levels == 0 {
        return picked;
    }
    let base = &screen.levels[0];
    let full = Template::new(&template.grey, template.width, template.height);
    picked
        .into_iter()
        .filter_map(|(cx, cy, _)| {
            let (fx, fy) = (cx * k, cy * k);
            let r = (
                fx.saturating_sub(k).max(region.0),
                fy.saturating_sub(k).max(region.1),
                (fx + k).min(region.2),
                (fy + k).min(region.3),
            );
            if r.2 < r.0 || r.3 < r.1 {
                return None;
            }
            scores(&base.grey, base.width, &base.integral, &full, r).into_iter().max_by(|a, b| a.2.total_cmp(&b.2))
        })
        .collect()
}

/// 1 when the place's colours agree with the reference's beyond a change of
/// brightness, falling as they differ (a red button where a green one is sought).
fn colour_agreement(image: &Planes, template: &Planes, x: usize, y: usize) -> f32 {
    let region = image.crop(x, y, template.width, template.height);
    let mean = |p: &[f32]| p.iter().sum::<f32>() / p.len().max(1) as f32;
    let (grey_r, grey_t) = (mean(&region.grey), mean(&template.grey));
    let worst = (0..3)
        .map(|c| ((mean(&region.rgb[c]) - grey_r) - (mean(&template.rgb[c]) - grey_t)).abs())
        .fold(0f32, f32::max);
    let tint = if worst <= COLOUR_TOLERANCE { 1.0 } else { (1.0 - (worst - COLOUR_TOLERANCE) / 64.0).max(0.0) };
    // The middle half, in absolute colour: a shape of another colour (a black bomb
    // where a blue button is) differs there, however alike the two are in grey.
    let (w, h) = (template.width, template.height);
    let (mw, mh) = ((w / 2).max(1), (h / 2).max(1));
    let (middle_r, middle_t) = (region.crop(w / 4, h / 4, mw, mh), template.crop(w / 4, h / 4, mw, mh));
    let apart = (0..3).map(|c| (mean(&middle_r.rgb[c]) - mean(&middle_t.rgb[c])).abs()).fold(0f32, f32::max);
    let body = if apart <= MIDDLE_TOLERANCE { 1.0 } else { (1.0 - (apart - MIDDLE_TOLERANCE) / 64.0).max(0.0) };
    tint.min(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A white screen of `w`×`h` RGBA.
    fn blank(w: usize, h: usize) -> Vec<u8> {
        vec![255u8; w * h * 4]
    }

    /// Draws an icon at (x, y), `size` pixels: a coloured disc with a white bar and a
    /// dark dot, so it has structure at every scale.
    fn icon(rgba: &mut [u8], w: usize, x: usize, y: usize, size: usize, colour: [u8; 3]) {
        let r = size as f32 / 2.0;
        for dy in 0..size {
            for dx in 0..size {
                let (fx, fy) = (dx as f32 + 0.5 - r, dy as f32 + 0.5 - r);
                let d = (fx * fx + fy * fy).sqrt();
                let px = if d > r {
                    continue;
                } else if fy.abs() < r * 0.15 && fx > -r * 0.6 && fx < r * 0.6 {
                    [255, 255, 255]
                } else if (fx - r * 0.3).powi(2) + (fy + r * 0.45).powi(2) < (r * 0.15).powi(2) {
                    [30, 30, 30]
                } else {
                    colour
                };
                let i = ((y + dy) * w + x + dx) * 4;
                rgba[i..i + 3].copy_from_slice(&px);
            }
        }
    }

    const GREEN: [u8; 3] = [40, 160, 70];

    /// The icon as recorded: cut from a screen where it was drawn at (100, 200).
    fn reference(size: usize, colour: [u8; 3]) -> Planes {
        let (w, h) = (400, 400);
        let mut rgba = blank(w, h);
        icon(&mut rgba, w, 100, 200, size, colour);
        Planes::from_rgba(&rgba, w, h, 1).crop(100, 200, size, size)
    }

    fn place(found: &Found) -> (i64, i64) {
        match found {
            Found::One(p) => (p.x, p.y),
            other => panic!("not one place: {other:?}"),
        }
    }

    #[test]
    fn a_reference_is_found_where_it_is_at_its_size_and_scaled() {
        let (w, h) = (1080, 2400);
        let mut rgba = blank(w, h);
        icon(&mut rgba, w, 700, 1500, 150, GREEN);
        let screen = Screen::new(&rgba, w, h);
        assert_eq!(screen.factor, 3);
        let found = find(&screen, &reference(150, GREEN), 1.0, &MatchOptions::default());
        let (x, y) = place(&found);
        assert!((x - 700).abs() <= 6 && (y - 1500).abs() <= 6, "{found:?}");
        // Recorded smaller (a screen two thirds as wide): the expected scale finds it.
        let found = find(&screen, &reference(100, GREEN), 1.5, &MatchOptions::default());
        let (x, y) = place(&found);
        assert!((x - 700).abs() <= 9 && (y - 1500).abs() <= 9, "{found:?}");
        // Drawn 10 % bigger than expected: a neighbouring scale finds it.
        let mut bigger = blank(w, h);
        icon(&mut bigger, w, 300, 600, 165, GREEN);
        let found = find(&Screen::new(&bigger, w, h), &reference(150, GREEN), 1.0, &MatchOptions::default());
        match found {
            Found::One(p) => assert!((p.x - 300).abs() <= 9 && (p.y - 600).abs() <= 9 && p.scale > 1.0, "{p:?}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn nothing_two_places_and_another_colour_are_told_apart() {
        let (w, h) = (1080, 2400);
        let options = MatchOptions::default();
        // Not on screen: the best scores seen, all below the threshold.
        let empty = Screen::new(&blank(w, h), w, h);
        assert!(matches!(find(&empty, &reference(150, GREEN), 1.0, &options), Found::Nothing { .. }));
        // Twice on screen: ambiguous, both places named.
        let mut twice = blank(w, h);
        icon(&mut twice, w, 100, 300, 150, GREEN);
        icon(&mut twice, w, 600, 1800, 150, GREEN);
        match find(&Screen::new(&twice, w, h), &reference(150, GREEN), 1.0, &options) {
            Found::Ambiguous { places } => assert_eq!(places.len(), 2, "{places:?}"),
            other => panic!("{other:?}"),
        }
        // The same shape in red where green is sought: refused by its colour.
        let mut red = blank(w, h);
        icon(&mut red, w, 100, 300, 150, [200, 50, 50]);
        match find(&Screen::new(&red, w, h), &reference(150, GREEN), 1.0, &options) {
            Found::Nothing { best } => assert!(best.iter().all(|p| p.score < 0.8), "{best:?}"),
            other => panic!("a grey look-alike was taken: {other:?}"),
        }
        // A predicted window that misses still finds it on the whole screen.
        let mut one = blank(w, h);
        icon(&mut one, w, 800, 2000, 150, GREEN);
        let near = MatchOptions { window: Some((0, 0, 300, 300)), ..MatchOptions::default() };
        let (x, y) = place(&find(&Screen::new(&one, w, h), &reference(150, GREEN), 1.0, &near));
        assert!((x - 800).abs() <= 6 && (y - 2000).abs() <= 6);
    }

    #[test]
    fn odd_sizes_give_an_answer_never_a_panic() {
        let options = MatchOptions::default();
        let tiny = Screen::new(&blank(3, 3), 3, 3);
        assert!(matches!(find(&tiny, &reference(150, GREEN), 1.0, &options), Found::Nothing { .. }));
        let screen = Screen::new(&blank(1080, 2400), 1080, 2400);
        let dot = Planes::from_rgba(&[0, 0, 0, 255], 1, 1, 1);
        assert!(matches!(find(&screen, &dot, 1.0, &options), Found::Nothing { .. }));
        let huge = reference(150, GREEN);
        assert!(matches!(find(&screen, &huge, 100.0, &options), Found::Nothing { .. }));
        let short = Screen::new(&[255; 10], 10, 10);
        assert!(matches!(find(&short, &huge, 0.05, &options), Found::Nothing { .. }));
        let odd =
            MatchOptions { window: Some((-5000, i64::MAX / 4, 10, 10)), scales: vec![f32::NAN, 0.0, 1.0], ..options };
        let _ = find(&screen, &huge, 1.0, &odd);
    }
}
