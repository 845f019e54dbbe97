//! The full on-screen keyboard's geometry: four rows of key caps (QWERTY letters,
//! shift/backspace, `?123 , space . ⏎`) scaled to fit the keyboard's bounds.
//!
//! The keys are not nodes (as on a phone, where the IME window exposes none), so the
//! world asks [`key_at`] which key a tap landed on, and the renderer draws the same
//! [`keys`]: typing and drawing share one geometry. Neither is done here.

use crate::screen::Rect;

/// Rows of (label, width in key units); every row spans at most 10 units.
const ROWS: [&[(&str, f32)]; 4] = [
    &[
        ("q", 1.0),
        ("w", 1.0),
        ("e", 1.0),
        ("r", 1.0),
        ("t", 1.0),
        ("y", 1.0),
        ("u", 1.0),
        ("i", 1.0),
        ("o", 1.0),
        ("p", 1.0),
    ],
    &[("a", 1.0), ("s", 1.0), ("d", 1.0), ("f", 1.0), ("g", 1.0), ("h", 1.0), ("j", 1.0), ("k", 1.0), ("l", 1.0)],
    &[("⇧", 1.5), ("z", 1.0), ("x", 1.0), ("c", 1.0), ("v", 1.0), ("b", 1.0), ("n", 1.0), ("m", 1.0), ("⌫", 1.5)],
    &[("?123", 1.5), (",", 1.0), ("space", 5.0), (".", 1.0), ("⏎", 1.5)],
];

/// One key cap: its label and its rectangle in (fractional) screen pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct KeyCap {
    pub(crate) label: &'static str,
    pub(crate) left: f32,
    pub(crate) top: f32,
    pub(crate) right: f32,
    pub(crate) bottom: f32,
}

/// Every key cap inside a keyboard spanning `left..right` × `top..bottom`, with `dp`
/// pixels per density-independent pixel.
pub(crate) fn keys(left: f32, top: f32, right: f32, bottom: f32, dp: f32) -> Vec<KeyCap> {
    let (w, h) = (right - left, bottom - top);
    if !(w > 0.0 && h > 0.0) {
        return Vec::new();
    }
    let gap = (6.0 * dp).min(w / 40.0).min(h / 20.0);
    let unit = (w - gap) / 10.0;
    let row_h = (h - gap) / 4.0;
    let key_h = row_h - gap;
    let mut out = Vec::with_capacity(40);
    for (r, row) in ROWS.iter().enumerate() {
        let units: f32 = row.iter().map(|k| k.1).sum();
        let mut x = left + gap + (10.0 - units) * unit * 0.5;
        let top = top + gap + row_h * r as f32;
        for &(label, span) in row.iter() {
            out.push(KeyCap { label, left: x, top, right: x + unit * span - gap, bottom: top + key_h });
            x += unit * span;
        }
    }
    out
}

/// The label of the key at (x, y) on a keyboard drawn in `bounds` at `density` dpi.
pub(crate) fn key_at(bounds: &Rect, density: u32, x: i32, y: i32) -> Option<&'static str> {
    let (x, y) = (x as f32, y as f32);
    let b = bounds;
    keys(b.left as f32, b.top as f32, b.right as f32, b.bottom as f32, density as f32 / 160.0)
        .into_iter()
        .find(|k| x >= k.left && x < k.right && y >= k.top && y < k.bottom)
        .map(|k| k.label)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_is_found_at_its_own_centre() {
        let bounds = Rect::new(0, 1600, 1080, 2300);
        let caps = keys(0.0, 1600.0, 1080.0, 2300.0, 420.0 / 160.0);
        assert_eq!(caps.len(), 10 + 9 + 9 + 5);
        for k in caps {
            let (cx, cy) = (((k.left + k.right) / 2.0) as i32, ((k.top + k.bottom) / 2.0) as i32);
            assert_eq!(key_at(&bounds, 420, cx, cy), Some(k.label));
        }
        assert_eq!(key_at(&bounds, 420, 5, 1000), None, "above the keyboard");
    }
}
