//! The pictures a match works on: a screenshot or a reference reduced to grey
//! levels (and to its three colour planes, for the colour check) at a working size,
//! by averaging whole blocks of pixels — no resampling filter, so a picture reduced
//! twice reads the same. Nothing here matches anything (`matcher.rs` does).

/// A picture as planes of f32 samples, row-major: one plane for grey, three for RGB.
#[derive(Debug, Clone)]
pub struct Planes {
    pub width: usize,
    pub height: usize,
    /// Grey levels (ITU-R BT.601 luma), 0..255.
    pub grey: Vec<f32>,
    /// Red, green and blue, 0..255.
    pub rgb: [Vec<f32>; 3],
}

impl Planes {
    /// `rgba` (width × height × 4 bytes) reduced by averaging `factor`×`factor`
    /// blocks (a factor of 1 keeps every pixel; the right and bottom edges that do
    /// not fill a block are dropped).
    pub fn from_rgba(rgba: &[u8], width: usize, height: usize, factor: usize) -> Self {
        let factor = factor.max(1);
        let (w, h) = (width / factor, height / factor);
        let mut rgb = [vec![0f32; w * h], vec![0f32; w * h], vec![0f32; w * h]];
        if rgba.len() >= width * height * 4 {
            let area = (factor * factor) as f32;
            // Row by row into one line of block sums: memory is read in order.
            let mut sums = vec![0u32; w * 3];
            for by in 0..h {
                sums.fill(0);
                for y in by * factor..(by + 1) * factor {
                    let row = &rgba[y * width * 4..(y * width + w * factor) * 4];
                    for (bx, block) in row.chunks_exact(factor * 4).enumerate() {
                        let (mut r, mut g, mut b) = (0u32, 0u32, 0u32);
                        for px in block.chunks_exact(4) {
                            r += u32::from(px[0]);
                            g += u32::from(px[1]);
                            b += u32::from(px[2]);
                        }
                        sums[bx * 3] += r;
                        sums[bx * 3 + 1] += g;
                        sums[bx * 3 + 2] += b;
                    }
                }
                for bx in 0..w {
                    for c in 0..3 {
                        rgb[c][by * w + bx] = sums[bx * 3 + c] as f32 / area;
                    }
                }
            }
        }
        let grey = (0..w * h).map(|i| 0.299 * rgb[0][i] + 0.587 * rgb[1][i] + 0.114 * rgb[2][i]).collect();
        Self { width: w, height: h, grey, rgb }
    }

    /// This picture resized to `width` × `height` by area averaging (for the
    /// reference at each scale tried; references are small).
    pub fn resized(&self, width: usize, height: usize) -> Self {
        let (width, height) = (width.max(1), height.max(1));
        let resize = |plane: &[f32]| -> Vec<f32> {
            let (sx, sy) = (self.width as f32 / width as f32, self.height as f32 / height as f32);
            let mut out = vec![0f32; width * height];
            for y in 0..height {
                let (y0, y1) = (y as f32 * sy, (y + 1) as f32 * sy);
                for x in 0..width {
                    let (x0, x1) = (x as f32 * sx, (x + 1) as f32 * sx);
                    out[y * width + x] = area_mean(plane, self.width, self.height, x0, y0, x1, y1);
                }
            }
            out
        };
        let rgb = [resize(&self.rgb[0]), resize(&self.rgb[1]), resize(&self.rgb[2])];
        let grey = resize(&self.grey);
        Self { width, height, grey, rgb }
    }

    /// The colour all along the picture's edge, when it is one colour (a picture cut
    /// with a flat background round it): the mean of the edge samples near the
    /// corner's colour, when at least three quarters of the edge is that colour
    /// (a round button cut to its bounds touches its edge in four places).
    pub fn flat_border(&self) -> Option<[f32; 3]> {
        let (w, h) = (self.width, self.height);
        if w < 3 || h < 3 {
            return None;
        }
        let edge: Vec<usize> =
            (0..w).flat_map(|x| [x, (h - 1) * w + x]).chain((1..h - 1).flat_map(|y| [y * w, y * w + w - 1])).collect();
        let corner = [self.rgb[0][0], self.rgb[1][0], self.rgb[2][0]];
        let flat: Vec<usize> =
            edge.iter().copied().filter(|&i| (0..3).all(|c| (self.rgb[c][i] - corner[c]).abs() <= 16.0)).collect();
        if flat.len() * 4 < edge.len() * 3 {
            return None;
        }
        let mean = |c: usize| flat.iter().map(|&i| self.rgb[c][i]).sum::<f32>() / flat.len() as f32;
        Some([mean(0), mean(1), mean(2)])
    }

    /// Which samples are background: within 24 of `from` in every channel and, with
    /// `connected`, connected to the picture's edge (inside parts of that colour — a
    /// white sign on a coloured disc — are not); without, every one (holes that show
    /// the background through a picture, as a calendar's grid does).
    pub fn background_of(&self, from: [f32; 3], connected: bool) -> Vec<bool> {
        let (w, h) = (self.width, self.height);
        let near: Vec<bool> = (0..w * h).map(|i| (0..3).all(|c| (self.rgb[c][i] - from[c]).abs() <= 24.0)).collect();
        if !connected || w == 0 || h == 0 {
            return near;
        }
        // Each sample is pushed at most once (marked as it is pushed), so the stack
        // never outgrows the picture, whatever its size.
        let mut outside = vec![false; w * h];
        let mut stack: Vec<u32> = Vec::new();
        let visit = |i: usize, outside: &mut [bool], stack: &mut Vec<u32>| {
            if near[i] && !outside[i] {
                outside[i] = true;
                stack.push(i as u32);
            }
        };
        for x in 0..w {
            visit(x, &mut outside, &mut stack);
            visit((h - 1) * w + x, &mut outside, &mut stack);
        }
        for y in 0..h {
            visit(y * w, &mut outside, &mut stack);
            visit(y * w + w - 1, &mut outside, &mut stack);
        }
        while let Some(i) = stack.pop() {
            let i = i as usize;
            let (x, y) = (i % w, i / w);
            if x > 0 {
                visit(i - 1, &mut outside, &mut stack);
            }
            if x + 1 < w {
                visit(i + 1, &mut outside, &mut stack);
            }
            if y > 0 {
                visit(i - w, &mut outside, &mut stack);
            }
            if y + 1 < h {
                visit(i + w, &mut outside, &mut stack);
            }
        }
        outside
    }

    /// This picture with its [`background`](Self::background_of) painted `to`: the
    /// same picture as another theme would show it.
    pub fn on_background(&self, from: [f32; 3], to: [f32; 3], holes: bool) -> Self {
        let mut out = self.clone();
        for (i, _) in self.background_of(from, !holes).iter().enumerate().filter(|(_, o)| **o) {
            for (plane, value) in out.rgb.iter_mut().zip(to) {
                plane[i] = value;
            }
            out.grey[i] = 0.299 * to[0] + 0.587 * to[1] + 0.114 * to[2];
        }
        out
    }

    /// The most common colour (by 8-level bins, their mean): what most of the
    /// picture is painted, a screen's background.
    pub fn common_colour(&self) -> [f32; 3] {
        let mut bins: std::collections::HashMap<u32, (u32, [f32; 3])> = std::collections::HashMap::new();
        for i in 0..self.width * self.height {
            let q = |c: usize| (self.rgb[c][i].clamp(0.0, 255.0) as u32) >> 3;
            let slot = bins.entry((q(0) << 10) | (q(1) << 5) | q(2)).or_insert((0, [0.0; 3]));
            slot.0 += 1;
            for (sum, plane) in slot.1.iter_mut().zip(&self.rgb) {
                *sum += plane[i];
            }
        }
        bins.into_values().max_by_key(|(n, _)| *n).map(|(n, sum)| sum.map(|v| v / n as f32)).unwrap_or([255.0; 3])
    }

    /// The mean colour of the samples `mask` marks, when it marks any.
    pub fn mean_colour(&self, mask: &[bool]) -> Option<[f32; 3]> {
        let n = mask.iter().filter(|m| **m).count();
        let sum = |c: usize| self.rgb[c].iter().zip(mask).filter(|(_, m)| **m).map(|(v, _)| v).sum::<f32>();
        (n > 0).then(|| [sum(0) / n as f32, sum(1) / n as f32, sum(2) / n as f32])
    }

    /// The part `x, y, width, height` (clamped to the picture).
    pub fn crop(&self, x: usize, y: usize, width: usize, height: usize) -> Self {
        let (x, y) = (x.min(self.width), y.min(self.height));
        let (w, h) = (width.min(self.width - x), height.min(self.height - y));
        let cut = |plane: &[f32]| -> Vec<f32> {
            (y..y + h).flat_map(|row| plane[row * self.width + x..row * self.width + x + w].iter().copied()).collect()
        };
        Self {
            width: w,
            height: h,
            grey: cut(&self.grey),
            rgb: [cut(&self.rgb[0]), cut(&self.rgb[1]), cut(&self.rgb[2])],
        }
    }
}

/// The mean of `plane` over the real-valued box `[x0, x1) × [y0, y1)`, each pixel
/// weighted by how much of it the box covers.
fn area_mean(plane: &[f32], width: usize, height: usize, x0: f32, y0: f32, x1: f32, y1: f32) -> f32 {
    let (mut sum, mut weight) = (0f32, 0f32);
    let last_y = (y1.ceil() as usize).min(height);
    let last_x = (x1.ceil() as usize).min(width);
    for py in (y0.floor() as usize)..last_y {
        let wy = (y1.min(py as f32 + 1.0) - y0.max(py as f32)).max(0.0);
        for px in (x0.floor() as usize)..last_x {
            let wx = (x1.min(px as f32 + 1.0) - x0.max(px as f32)).max(0.0);
            sum += plane[py * width + px] * wx * wy;
            weight += wx * wy;
        }
    }
    if weight > 0.0 { sum / weight } else { 0.0 }
}
