//! The on-screen keyboard: a grey panel with four rows of white key caps (QWERTY
//! letters, shift/backspace, `?123 , space . ⏎`), scaled to fit the node.
//!
//! The keys are not nodes (as on a phone, where the IME window exposes none), but the
//! world asks [`key_at`] which key a tap landed on, so drawing and typing share one
//! geometry.

use super::super::screen::Rect;
use super::font::{self, Align, TextStyle};
use super::paint::{Canvas, FRect};
use super::widgets::{Ctx, DARK, vector_symbol};

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

/// Every key cap's label and rectangle inside the keyboard bounds `b`.
fn keys(b: FRect, dp: f32) -> Vec<(&'static str, FRect)> {
    let (w, h) = (b.width(), b.height());
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
        let mut x = b.left + gap + (10.0 - units) * unit * 0.5;
        let top = b.top + gap + row_h * r as f32;
        for &(label, span) in row.iter() {
            out.push((label, FRect::new(x, top, x + unit * span - gap, top + key_h)));
            x += unit * span;
        }
    }
    out
}

/// The label of the key at (x, y) on a keyboard drawn in `bounds` at `density` dpi.
pub fn key_at(bounds: &Rect, density: u32, x: i32, y: i32) -> Option<&'static str> {
    let b = FRect::new(bounds.left as f32, bounds.top as f32, bounds.right as f32, bounds.bottom as f32);
    let (x, y) = (x as f32, y as f32);
    keys(b, density as f32 / 160.0)
        .into_iter()
        .find(|(_, k)| x >= k.left && x < k.right && y >= k.top && y < k.bottom)
        .map(|(label, _)| label)
}

pub fn draw(cv: &mut Canvas, ctx: &Ctx, b: FRect) {
    cv.fill_rect(cv.clip(), 0xE8EAED, 255);
    let keys = keys(b, ctx.dp(1.0));
    let key_h = keys.first().map(|(_, k)| k.height()).unwrap_or(0.0);
    let label_px = ctx.dp(22.0).min(key_h * 0.5);
    for (label, key) in keys {
        cv.round_rect(key, ctx.dp(5.0), 0xFFFFFF, 255);
        // A faint bottom shadow so the caps read as keys.
        let shadow = FRect::new(key.left, key.bottom - 1.0, key.right, key.bottom + 1.0);
        cv.round_rect(shadow, 1.0, 0xBDC1C6, 255);
        let small = label.chars().count() > 1;
        let style = TextStyle { size_px: if small { label_px * 0.7 } else { label_px }, bold: false, color: DARK };
        if label.chars().all(font::has_glyph) || !vector_symbol(cv, label, key.cx(), key.cy(), label_px * 0.9, DARK) {
            font::draw_text(cv, label, key, &style, Align::Center(0.0), 1);
        }
    }
}
