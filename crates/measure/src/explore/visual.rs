//! Where to tap on a surface the tree cannot see into (a game, a map, a canvas):
//! the screenshot cut into blocks, the surface's own colour found (the commonest
//! block colour), and every patch of blocks that differs from it taken as one thing
//! drawn there — its centre is a place to tap. Not a detector of what things are;
//! only of where something is drawn.

use codeact_platform::ui::Bounds;

/// Block side in pixels: about a fingertip's tenth at 420 dpi.
const BLOCK: u32 = 24;
/// How far (the largest channel difference) a block's colour must be from the
/// surface's to count as drawn.
const DIFFERENT: i32 = 40;
/// At most this many places per surface, the largest first.
const MAX_PLACES: usize = 16;

/// The centres of what is drawn on `area` of the screenshot `png`, largest first,
/// in screen pixels; empty when the picture cannot be read.
pub fn drawn_places(png: &[u8], area: Bounds) -> Vec<(i32, i32)> {
    let Ok(image) = image::load_from_memory(png) else { return Vec::new() };
    let rgb = image.to_rgb8();
    let (w, h) = rgb.dimensions();
    let left = area.left.clamp(0, w as i32) as u32;
    let top = area.top.clamp(0, h as i32) as u32;
    let right = area.right.clamp(0, w as i32) as u32;
    let bottom = area.bottom.clamp(0, h as i32) as u32;
    if right <= left + BLOCK || bottom <= top + BLOCK {
        return Vec::new();
    }
    let (cols, rows) = ((right - left) / BLOCK, (bottom - top) / BLOCK);
    let mut colours = Vec::with_capacity((cols * rows) as usize);
    for by in 0..rows {
        for bx in 0..cols {
            let mut sum = [0u32; 3];
            for y in 0..BLOCK {
                for x in 0..BLOCK {
                    let p = rgb.get_pixel(left + bx * BLOCK + x, top + by * BLOCK + y);
                    for c in 0..3 {
                        sum[c] += u32::from(p[c]);
                    }
                }
            }
            let n = BLOCK * BLOCK;
            colours.push([(sum[0] / n) as i32, (sum[1] / n) as i32, (sum[2] / n) as i32]);
        }
    }
    // The surface's colour: the commonest block colour, coarsely binned.
    let bin = |c: &[i32; 3]| (c[0] / 16, c[1] / 16, c[2] / 16);
    let mut counts = std::collections::HashMap::new();
    for c in &colours {
        *counts.entry(bin(c)).or_insert(0usize) += 1;
    }
    let Some((&(r, g, b), _)) = counts.iter().max_by_key(|(k, n)| (**n, **k)) else { return Vec::new() };
    let background = [r * 16 + 8, g * 16 + 8, b * 16 + 8];
    let drawn: Vec<bool> =
        colours.iter().map(|c| (0..3).map(|i| (c[i] - background[i]).abs()).max().unwrap_or(0) > DIFFERENT).collect();
    // Patches of drawn blocks, four-connected.
    let mut label = vec![usize::MAX; drawn.len()];
    let mut patches: Vec<(usize, u64, u64)> = Vec::new();
    for start in 0..drawn.len() {
        if !drawn[start] || label[start] != usize::MAX {
            continue;
        }
        let id = patches.len();
        let (mut count, mut sx, mut sy) = (0usize, 0u64, 0u64);
        let mut stack = vec![start];
        label[start] = id;
        while let Some(i) = stack.pop() {
            let (x, y) = (i as u32 % cols, i as u32 / cols);
            count += 1;
            sx += u64::from(x);
            sy += u64::from(y);
            let mut push = |j: usize| {
                if drawn[j] && label[j] == usize::MAX {
                    label[j] = id;
                    stack.push(j);
                }
            };
            if x > 0 {
                push(i - 1);
            }
            if x + 1 < cols {
                push(i + 1);
            }
            if y > 0 {
                push(i - cols as usize);
            }
            if y + 1 < rows {
                push(i + cols as usize);
            }
        }
        patches.push((count, sx, sy));
    }
    // A speck is noise; a patch covering most of the surface is a backdrop.
    let total = drawn.len();
    patches.retain(|(n, _, _)| *n >= 2 && *n * 2 < total);
    patches.sort_by_key(|p| std::cmp::Reverse(p.0));
    patches
        .iter()
        .take(MAX_PLACES)
        .map(|(n, sx, sy)| {
            let cx = left as f64 + (*sx as f64 / *n as f64 + 0.5) * f64::from(BLOCK);
            let cy = top as f64 + (*sy as f64 / *n as f64 + 0.5) * f64::from(BLOCK);
            (cx.round() as i32, cy.round() as i32)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32, paint: impl Fn(u32, u32) -> [u8; 3]) -> Vec<u8> {
        let img = image::RgbImage::from_fn(width, height, |x, y| image::Rgb(paint(x, y)));
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
    }

    #[test]
    fn things_drawn_on_a_plain_surface_are_found_largest_first() {
        let shot = png(480, 480, |x, y| {
            if (100..220).contains(&x) && (100..220).contains(&y) {
                [250, 210, 0]
            } else if (300..360).contains(&x) && (360..420).contains(&y) {
                [255, 255, 255]
            } else {
                [74, 20, 140]
            }
        });
        let places = drawn_places(&shot, Bounds { left: 0, top: 0, right: 480, bottom: 480 });
        assert_eq!(places.len(), 2, "{places:?}");
        let (x, y) = places[0];
        assert!((150..=170).contains(&x) && (150..=170).contains(&y), "{places:?}");
        let (x, y) = places[1];
        assert!((320..=345).contains(&x) && (380..=400).contains(&y), "{places:?}");
        assert!(drawn_places(b"not a png", Bounds { left: 0, top: 0, right: 10, bottom: 10 }).is_empty());
        let plain = png(100, 100, |_, _| [1, 2, 3]);
        assert!(drawn_places(&plain, Bounds { left: 0, top: 0, right: 100, bottom: 100 }).is_empty());
    }
}
