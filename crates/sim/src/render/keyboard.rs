//! Draws the full on-screen keyboard: a grey panel with white key caps where
//! `crate::keyboard` puts them (the world hit-tests the same geometry).

use super::font::{self, Align, TextStyle};
use super::paint::{Canvas, FRect};
use super::style::{Ctx, DARK};
use super::symbols::vector_symbol;
use crate::keyboard;

pub(crate) fn draw(cv: &mut Canvas, ctx: &Ctx, b: FRect) {
    cv.fill_rect(cv.clip(), 0xE8EAED, 255);
    let caps = keyboard::keys(b.left, b.top, b.right, b.bottom, ctx.dp(1.0));
    let key_h = caps.first().map(|k| k.bottom - k.top).unwrap_or(0.0);
    let label_px = ctx.dp(22.0).min(key_h * 0.5);
    for cap in caps {
        let (label, key) = (cap.label, FRect::new(cap.left, cap.top, cap.right, cap.bottom));
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
