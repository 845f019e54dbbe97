//! Pixel painting primitives for the screenshot renderer: a clipped RGBA canvas with
//! solid fills, alpha blending and anti-aliased shapes described by signed distance
//! functions (circles, pills, rounded rects, convex polygons, thick line segments).
//!
//! It knows nothing about views, roles or text layout; every operation clips to the
//! canvas's current clip rectangle (itself always inside the frame), so callers may pass
//! any coordinates, including negative, inverted or huge ones, without panicking.

/// An integer pixel rectangle `[left, right) x [top, bottom)`; empty when `right <= left`
/// or `bottom <= top`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IRect {
    pub(crate) left: i32,
    pub(crate) top: i32,
    pub(crate) right: i32,
    pub(crate) bottom: i32,
}

impl IRect {
    pub(crate) fn is_empty(&self) -> bool {
        self.right <= self.left || self.bottom <= self.top
    }

    /// The part of `self` inside `other` (possibly empty); never overflows.
    pub(crate) fn intersect(&self, other: &IRect) -> IRect {
        IRect {
            left: self.left.max(other.left),
            top: self.top.max(other.top),
            right: self.right.min(other.right),
            bottom: self.bottom.min(other.bottom),
        }
    }
}

/// A floating-point rectangle used for geometry (sub-pixel positions, AA shapes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FRect {
    pub(crate) left: f32,
    pub(crate) top: f32,
    pub(crate) right: f32,
    pub(crate) bottom: f32,
}

impl FRect {
    pub(crate) fn new(left: f32, top: f32, right: f32, bottom: f32) -> Self {
        Self { left, top, right, bottom }
    }
    pub(crate) fn width(&self) -> f32 {
        self.right - self.left
    }
    pub(crate) fn height(&self) -> f32 {
        self.bottom - self.top
    }
    pub(crate) fn cx(&self) -> f32 {
        (self.left + self.right) * 0.5
    }
    pub(crate) fn cy(&self) -> f32 {
        (self.top + self.bottom) * 0.5
    }
    /// The smallest integer rectangle covering `self` (saturating float-to-int casts).
    pub(crate) fn to_irect(self) -> IRect {
        IRect {
            left: self.left.floor() as i32,
            top: self.top.floor() as i32,
            right: self.right.ceil() as i32,
            bottom: self.bottom.ceil() as i32,
        }
    }
}

/// Splits 0xRRGGBB into its channels.
pub(crate) fn rgb(color: u32) -> [u8; 3] {
    [(color >> 16) as u8, (color >> 8) as u8, color as u8]
}

/// An RGBA_8888 pixel buffer with a clip rectangle.
pub(crate) struct Canvas {
    pub(crate) width: i32,
    pub(crate) height: i32,
    pub(crate) rgba: Vec<u8>,
    clip: IRect,
}

impl Canvas {
    /// A canvas filled with opaque white. Callers bound the size beforehand.
    pub(crate) fn new(width: u32, height: u32) -> Self {
        let (w, h) = (width.min(i32::MAX as u32) as i32, height.min(i32::MAX as u32) as i32);
        let len = (w as usize).saturating_mul(h as usize).saturating_mul(4);
        Self { width: w, height: h, rgba: vec![255; len], clip: IRect { left: 0, top: 0, right: w, bottom: h } }
    }

    pub(crate) fn full(&self) -> IRect {
        IRect { left: 0, top: 0, right: self.width, bottom: self.height }
    }

    pub(crate) fn clip(&self) -> IRect {
        self.clip
    }

    /// Sets the clip to `r` inside the frame and returns the previous clip for restoring.
    pub(crate) fn set_clip(&mut self, r: IRect) -> IRect {
        let old = self.clip;
        self.clip = r.intersect(&self.full());
        old
    }

    /// Blends `color` over pixel (x, y) with coverage `alpha` (0..=255), if inside the clip.
    #[inline]
    pub(crate) fn blend(&mut self, x: i32, y: i32, color: [u8; 3], alpha: u32) {
        let c = self.clip;
        if alpha == 0 || x < c.left || x >= c.right || y < c.top || y >= c.bottom {
            return;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        if let Some(px) = self.rgba.get_mut(i..i + 4) {
            blend_span(px, color, alpha);
        }
    }

    /// Fills `r` (clipped) with `color` at opacity `alpha`.
    pub(crate) fn fill_rect(&mut self, r: IRect, color: u32, alpha: u32) {
        let r = r.intersect(&self.clip);
        if r.is_empty() || alpha == 0 {
            return;
        }
        let c = rgb(color);
        let stride = self.width as usize * 4;
        let (x0, x1) = (r.left as usize * 4, r.right as usize * 4);
        for y in r.top as usize..r.bottom as usize {
            let Some(row) = self.rgba.get_mut(y * stride + x0..y * stride + x1) else {
                return;
            };
            blend_span(row, c, alpha);
        }
    }

    /// Fills the pixels whose centres lie near the shape given by the signed distance
    /// function `sdf` (negative inside), within `bbox`, with a 1 px anti-aliased edge.
    ///
    /// With `convex`, each row's inside is one interval, so only its ends are evaluated
    /// and the fully covered middle is filled as a span.
    pub(crate) fn fill_sdf(&mut self, bbox: FRect, color: u32, alpha: u32, sdf: impl Fn(f32, f32) -> f32) {
        self.fill_sdf_impl(bbox, color, alpha, false, sdf);
    }

    fn fill_sdf_impl(&mut self, bbox: FRect, color: u32, alpha: u32, convex: bool, sdf: impl Fn(f32, f32) -> f32) {
        let r = bbox.to_irect().intersect(&self.clip);
        if r.is_empty() || alpha == 0 {
            return;
        }
        let c = rgb(color);
        let stride = self.width as usize * 4;
        let edge = |rgba: &mut [u8], x: i32, y: i32| -> bool {
            let d = sdf(x as f32 + 0.5, y as f32 + 0.5);
            if d >= 0.5 {
                return false;
            }
            let cov = if d <= -0.5 { 1.0 } else { 0.5 - d };
            let i = y as usize * stride + x as usize * 4;
            if let Some(px) = rgba.get_mut(i..i + 4) {
                blend_span(px, c, (cov * alpha as f32 + 0.5) as u32);
            }
            d <= -0.5
        };
        for y in r.top..r.bottom {
            if !convex {
                for x in r.left..r.right {
                    edge(&mut self.rgba, x, y);
                }
                continue;
            }
            // Walk in from the left to the first fully covered pixel, then from the right.
            let mut xl = r.left;
            while xl < r.right && !edge(&mut self.rgba, xl, y) {
                xl += 1;
            }
            if xl >= r.right {
                continue;
            }
            let mut xr = r.right - 1;
            while xr > xl && !edge(&mut self.rgba, xr, y) {
                xr -= 1;
            }
            if xr > xl + 1 {
                let base = y as usize * stride;
                let span = base + (xl as usize + 1) * 4..base + xr as usize * 4;
                if let Some(row) = self.rgba.get_mut(span) {
                    blend_span(row, c, alpha);
                }
            }
        }
    }

    /// A rounded rectangle; `radius` is clamped to half the shorter side (a pill at most).
    pub(crate) fn round_rect(&mut self, r: FRect, radius: f32, color: u32, alpha: u32) {
        if !(r.width() > 0.0 && r.height() > 0.0) {
            return;
        }
        let rad = radius.clamp(0.0, r.width().min(r.height()) * 0.5);
        let (cx, cy) = (r.cx(), r.cy());
        let (hx, hy) = (r.width() * 0.5 - rad, r.height() * 0.5 - rad);
        self.fill_sdf_impl(r, color, alpha, true, |x, y| {
            let qx = (x - cx).abs() - hx;
            let qy = (y - cy).abs() - hy;
            let outside = if qx > 0.0 && qy > 0.0 { (qx * qx + qy * qy).sqrt() } else { qx.max(qy).max(0.0) };
            outside + qx.max(qy).min(0.0) - rad
        });
    }

    /// A filled circle.
    pub(crate) fn circle(&mut self, cx: f32, cy: f32, radius: f32, color: u32, alpha: u32) {
        if radius.is_nan() || radius <= 0.0 {
            return;
        }
        let bbox = FRect::new(cx - radius - 1.0, cy - radius - 1.0, cx + radius + 1.0, cy + radius + 1.0);
        self.fill_sdf(bbox, color, alpha, |x, y| {
            let (dx, dy) = (x - cx, y - cy);
            (dx * dx + dy * dy).sqrt() - radius
        });
    }

    /// A circular outline of stroke `width` centred on `radius`.
    pub(crate) fn ring(&mut self, cx: f32, cy: f32, radius: f32, width: f32, color: u32, alpha: u32) {
        if !(radius > 0.0 && width > 0.0) {
            return;
        }
        let o = radius + width;
        let bbox = FRect::new(cx - o, cy - o, cx + o, cy + o);
        let hw = width * 0.5;
        self.fill_sdf(bbox, color, alpha, |x, y| {
            let (dx, dy) = (x - cx, y - cy);
            ((dx * dx + dy * dy).sqrt() - radius).abs() - hw
        });
    }

    /// A line segment with round caps, `width` pixels thick.
    pub(crate) fn line(&mut self, a: (f32, f32), b: (f32, f32), width: f32, color: u32, alpha: u32) {
        if width.is_nan() || width <= 0.0 {
            return;
        }
        let hw = width * 0.5;
        let bbox = FRect::new(
            a.0.min(b.0) - hw - 1.0,
            a.1.min(b.1) - hw - 1.0,
            a.0.max(b.0) + hw + 1.0,
            a.1.max(b.1) + hw + 1.0,
        );
        let (vx, vy) = (b.0 - a.0, b.1 - a.1);
        let len2 = (vx * vx + vy * vy).max(1e-6);
        self.fill_sdf_impl(bbox, color, alpha, true, |x, y| {
            let (px, py) = (x - a.0, y - a.1);
            let t = ((px * vx + py * vy) / len2).clamp(0.0, 1.0);
            let (dx, dy) = (px - vx * t, py - vy * t);
            (dx * dx + dy * dy).sqrt() - hw
        });
    }

    /// A convex polygon (vertices in either winding order), anti-aliased.
    pub(crate) fn convex_polygon(&mut self, pts: &[(f32, f32)], color: u32, alpha: u32) {
        if pts.len() < 3 {
            return;
        }
        // Orientation: the signed area decides which side of each edge is inside.
        let mut area = 0.0;
        for (i, p) in pts.iter().enumerate() {
            let q = pts[(i + 1) % pts.len()];
            area += p.0 * q.1 - q.0 * p.1;
        }
        let sign = if area >= 0.0 { 1.0 } else { -1.0 };
        // Up to 8 edges as (nx, ny, c) with n pointing outwards: d = n.p - c.
        let mut edges = [(0.0f32, 0.0f32, 0.0f32); 8];
        let n = pts.len().min(8);
        let mut bbox = FRect::new(f32::MAX, f32::MAX, f32::MIN, f32::MIN);
        for i in 0..n {
            let (p, q) = (pts[i], pts[(i + 1) % n]);
            let (ex, ey) = (q.0 - p.0, q.1 - p.1);
            let len = (ex * ex + ey * ey).sqrt().max(1e-6);
            let (nx, ny) = (sign * ey / len, -sign * ex / len);
            edges[i] = (nx, ny, nx * p.0 + ny * p.1);
            bbox = FRect::new(bbox.left.min(p.0), bbox.top.min(p.1), bbox.right.max(p.0), bbox.bottom.max(p.1));
        }
        let bbox = FRect::new(bbox.left - 1.0, bbox.top - 1.0, bbox.right + 1.0, bbox.bottom + 1.0);
        let edges = &edges[..n];
        self.fill_sdf_impl(bbox, color, alpha, true, |x, y| {
            edges.iter().fold(f32::MIN, |d, &(nx, ny, c)| d.max(nx * x + ny * y - c))
        });
    }
}

/// Blends `c` at opacity `alpha` (0..=255) over a run of RGBA pixels; alpha stays 255.
///
/// Written for unoptimised builds too (the tests run the phone in one): an opaque run
/// is filled by doubling memmoves, a translucent one by plain indexing, with no
/// iterator adaptors, whose unoptimised calls and checks were most of a run's CPU.
#[inline]
fn blend_span(px: &mut [u8], c: [u8; 3], alpha: u32) {
    let a = alpha.min(255) as u16;
    let n = px.len() / 4 * 4;
    if a == 0 || n == 0 {
        return;
    }
    let px = &mut px[..n];
    if a == 255 {
        px[..4].copy_from_slice(&[c[0], c[1], c[2], 255]);
        let mut filled = 4;
        while filled < n {
            let more = filled.min(n - filled);
            px.copy_within(..more, filled);
            filled += more;
        }
        return;
    }
    let ia = 255 - a;
    let sa = [c[0] as u16 * a + 128, c[1] as u16 * a + 128, c[2] as u16 * a + 128, 255 * a + 128];
    let mut i = 0;
    while i < n {
        // Exact round(t / 255) for t < 65536.
        let t = sa[i & 3] + px[i] as u16 * ia;
        px[i] = ((t + (t >> 8)) >> 8) as u8;
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::blend_span;

    /// The blend of one pixel channel, written the obvious way.
    fn reference(under: u8, over: u8, alpha: u32) -> u8 {
        let a = alpha.min(255);
        ((over as u32 * a + under as u32 * (255 - a)) as f64 / 255.0).round() as u8
    }

    #[test]
    fn a_span_blends_each_pixel_as_the_obvious_formula_does() {
        for alpha in [0, 1, 77, 128, 254, 255, 300] {
            for len in [0, 3, 4, 12, 4 * 37 + 2] {
                let under: Vec<u8> = (0..len).map(|i| if i % 4 == 3 { 255 } else { (i * 37 % 256) as u8 }).collect();
                let mut px = under.clone();
                blend_span(&mut px, [200, 10, 99], alpha);
                for i in 0..len / 4 * 4 {
                    let over = [200, 10, 99, 255][i % 4];
                    assert_eq!(px[i], reference(under[i], over, alpha), "alpha {alpha}, len {len}, byte {i}");
                }
                assert_eq!(px[len / 4 * 4..], under[len / 4 * 4..], "a partial pixel is left alone");
            }
        }
    }
}
