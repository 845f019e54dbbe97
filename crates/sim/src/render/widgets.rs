//! How each [`Role`] looks: switches, fields, buttons, icons, sliders, toolbar glyphs
//! and the status bar (symbols no bundled font has are drawn by `symbols.rs`).
//!
//! Each function draws one node inside its bounds; the caller has already set the clip
//! to the node's visible bounds and walks the children. Nothing here lays out or
//! measures other nodes.

use super::emblems::{self, Placement};
use super::font::{self, Align, TextStyle};
use super::keyboard;
use super::paint::{Canvas, FRect, IRect};
use super::style::{ACCENT, Ctx, DARK, DISABLED_TEXT, HINT, WHITE};
use super::symbols::vector_symbol;
use crate::emblem::Emblem;
use crate::screen::{IconShape, Node, Role};

pub(crate) fn draw(cv: &mut Canvas, ctx: &Ctx, node: &Node, b: FRect) {
    match &node.role {
        Role::Container => {}
        Role::Surface { color } => cv.fill_rect(cv.clip(), ctx.ink(*color), 255),
        Role::Scrim => cv.fill_rect(cv.clip(), 0x000000, 128),
        Role::StatusBar => status_bar(cv, ctx, node, b),
        Role::Label { size_dp, color, bold } => {
            let color = ctx.ink(if node.enabled { *color } else { DISABLED_TEXT });
            let style = TextStyle { size_px: ctx.sp(*size_dp), bold: *bold, color };
            let pad = ctx.dp(16.0).min(b.width() / 8.0);
            font::draw_text(cv, &node.text, b, &style, Align::Left(pad), 2);
        }
        Role::Switch => switch(cv, ctx, node, b),
        Role::Field => field(cv, ctx, node, b),
        Role::Button { color } => button(cv, ctx, node, b, *color),
        Role::Fab { color, glyph } => {
            let r = b.width().min(b.height()) * 0.5;
            cv.circle(b.cx(), b.cy(), r, *color, 255);
            symbol(cv, glyph, b, ctx.dp(24.0), WHITE);
        }
        Role::Icon { shape, color, emblem } => icon(cv, ctx, node, b, (*shape, *color, *emblem)),
        Role::Sprite { emblem, color, backdrop } => {
            let half = b.width().min(b.height()) * 0.5;
            let at = Placement { cx: b.cx(), cy: b.cy(), half, fg: *color, bg: ctx.ink(*backdrop) };
            emblems::draw(cv, *emblem, &at);
        }
        Role::Slider { value, max } => slider(cv, ctx, node, b, *value, *max),
        Role::ToolButton { glyph } => {
            let color = ctx.ink(if node.enabled { DARK } else { DISABLED_TEXT });
            symbol(cv, glyph, b, ctx.dp(24.0), color);
        }
        Role::Keyboard => keyboard::draw(cv, ctx, b),
    }
}

fn text_color(ctx: &Ctx, node: &Node) -> u32 {
    ctx.ink(if node.enabled { DARK } else { DISABLED_TEXT })
}

/// The status bar: its children are the clock and the battery (whose text is the
/// percentage, when Settings shows it).
fn status_bar(cv: &mut Canvas, ctx: &Ctx, node: &Node, b: FRect) {
    cv.fill_rect(cv.clip(), ctx.ink(0xF2F2F2), 255);
    let style = TextStyle { size_px: ctx.dp(14.0), bold: true, color: ctx.ink(DARK) };
    let clock = node.children.first().map(|c| c.text.as_str()).unwrap_or_default();
    font::draw_text(cv, clock, b, &style, Align::Left(ctx.dp(16.0)), 1);
    if let Some(percent) = node.children.get(1).map(|c| c.text.as_str()).filter(|t| !t.is_empty()) {
        // Left of the Wi-Fi and battery icons.
        let area = FRect::new(b.right - ctx.dp(110.0), b.top, b.right - ctx.dp(52.0), b.bottom);
        font::draw_text(cv, percent, area, &style, Align::Left(0.0), 1);
    }
    // Battery: an upright rounded body with a nub on top.
    let (cy, right) = (b.cy(), b.right - ctx.dp(16.0));
    let body = FRect::new(right - ctx.dp(8.0), cy - ctx.dp(6.5), right, cy + ctx.dp(7.5));
    cv.round_rect(body, ctx.dp(1.5), ctx.ink(DARK), 255);
    let nub = FRect::new(body.cx() - ctx.dp(2.0), body.top - ctx.dp(1.5), body.cx() + ctx.dp(2.0), body.top + 0.5);
    cv.round_rect(nub, ctx.dp(0.5), ctx.ink(DARK), 255);
    // Wi-Fi: a quarter-circle sector opening upwards.
    let (wx, wy, wr) = (body.left - ctx.dp(14.0), cy + ctx.dp(7.0), ctx.dp(13.0));
    let bbox = FRect::new(wx - wr, wy - wr, wx + wr, wy + 1.0);
    cv.fill_sdf(bbox, ctx.ink(DARK), 255, |x, y| {
        let (dx, dy) = (x - wx, y - wy);
        let round = (dx * dx + dy * dy).sqrt() - wr;
        round.max((dx.abs() + dy) * std::f32::consts::FRAC_1_SQRT_2)
    });
}

fn switch(cv: &mut Canvas, ctx: &Ctx, node: &Node, b: FRect) {
    let (track_w, track_h, thumb_r) = (ctx.dp(36.0), ctx.dp(14.0), ctx.dp(10.0));
    let overhang = thumb_r - track_h * 0.5;
    let need = track_w + 2.0 * overhang;
    let pad = ctx.dp(16.0).min(((b.width() - need) * 0.5).max(0.0));
    let right = b.right - pad - overhang;
    let track = FRect::new(right - track_w, b.cy() - track_h * 0.5, right, b.cy() + track_h * 0.5);
    if !node.text.is_empty() {
        let label = FRect { right: track.left - overhang, ..b };
        let style = TextStyle { size_px: ctx.sp(16.0), bold: false, color: text_color(ctx, node) };
        font::draw_text(cv, &node.text, label, &style, Align::Left(ctx.dp(16.0).min(b.width() / 8.0)), 2);
    }
    let alpha = if node.enabled { 255 } else { 102 };
    let ends = (track.left + track_h * 0.5, track.right - track_h * 0.5);
    if node.checked {
        cv.round_rect(track, track_h, 0x8AB4F8, alpha);
        cv.circle(ends.1, track.cy(), thumb_r, ACCENT, alpha);
    } else {
        cv.round_rect(track, track_h, ctx.ink(0xBDBDBD), alpha);
        cv.circle(ends.0, track.cy(), thumb_r, ctx.ink(0xF1F1F1), alpha);
        let w = ctx.dp(1.0).max(1.0);
        cv.ring(ends.0, track.cy(), thumb_r - w * 0.5, w, ctx.ink(0x9E9E9E), alpha);
    }
}

fn field(cv: &mut Canvas, ctx: &Ctx, node: &Node, b: FRect) {
    let bottom = b.bottom.ceil() as i32;
    let (line, color) = if node.focused { (3, ACCENT) } else { (2, ctx.ink(0x9E9E9E)) };
    cv.fill_rect(IRect { top: bottom.saturating_sub(line), bottom, ..cv.clip() }, color, 255);

    let pad = ctx.dp(16.0).min(b.width() / 8.0);
    let size_px = ctx.sp(16.0);
    let masked;
    let (text, color) = if node.text.is_empty() {
        (node.hint.as_str(), ctx.ink(HINT))
    } else if node.password {
        masked = "•".repeat(node.text.chars().count().min(256));
        (masked.as_str(), text_color(ctx, node))
    } else {
        (node.text.as_str(), text_color(ctx, node))
    };
    let style = TextStyle { size_px, bold: false, color };
    let align = if node.focused && !node.text.is_empty() { Align::Tail(pad) } else { Align::Left(pad) };
    let end = font::draw_text(cv, text, b, &style, align, 1);
    if node.focused {
        let x = if node.text.is_empty() { b.left + pad } else { end + ctx.dp(2.0) };
        let (ascent, descent, _) = font::metrics(&style);
        let h = ascent - descent;
        let r = FRect::new(x, b.cy() - h * 0.5, x + 2.0, b.cy() + h * 0.5).to_irect();
        cv.fill_rect(r, ACCENT, 255);
    }
}

fn button(cv: &mut Canvas, ctx: &Ctx, node: &Node, b: FRect, color: u32) {
    let (fill, text_color) = if node.enabled { (color, WHITE) } else { (ctx.ink(0xBDBDBD), ctx.ink(0x757575)) };
    cv.round_rect(b, ctx.dp(20.0), fill, 255);
    let label = if node.text.is_empty() { &node.content_desc } else { &node.text };
    let style = TextStyle { size_px: ctx.sp(14.0), bold: true, color: text_color };
    let pad = ctx.dp(12.0).min(b.width() / 8.0);
    font::draw_text(cv, label, b, &style, Align::Center(pad), 2);
}

fn icon(cv: &mut Canvas, ctx: &Ctx, node: &Node, b: FRect, look: (IconShape, u32, Option<Emblem>)) {
    let (shape, color, emblem) = look;
    let side = b.width().min(b.height() * 0.6);
    if side.is_nan() || side <= 0.0 {
        return;
    }
    let sq = FRect::new(b.cx() - side * 0.5, b.top, b.cx() + side * 0.5, b.top + side);
    let inset = side * 0.06;
    let s = FRect::new(sq.left + inset, sq.top + inset, sq.right - inset, sq.bottom - inset);
    let (w, h) = (s.width(), s.height());
    // Where the letter goes (the triangle's visual centre is low).
    let mut letter_box = s;
    let mut letter_px = w * 0.45;
    match shape {
        IconShape::Circle => cv.circle(s.cx(), s.cy(), w * 0.5, color, 255),
        IconShape::Square => cv.round_rect(s, w * 0.04, color, 255),
        IconShape::Squircle => cv.round_rect(s, w * 0.3, color, 255),
        IconShape::Triangle => {
            cv.convex_polygon(&[(s.cx(), s.top), (s.right, s.bottom), (s.left, s.bottom)], color, 255);
            letter_box = FRect::new(s.left, s.top + h * 0.4, s.right, s.bottom);
            letter_px = w * 0.33;
        }
        IconShape::Hexagon => {
            let (cx, cy, r) = (s.cx(), s.cy(), w * 0.5);
            let pts: Vec<(f32, f32)> = (0..6)
                .map(|k| {
                    let a = std::f32::consts::FRAC_PI_6 + std::f32::consts::FRAC_PI_3 * k as f32;
                    (cx + r * a.cos(), cy + r * a.sin())
                })
                .collect();
            cv.convex_polygon(&pts, color, 255);
        }
    }
    let label = if node.text.is_empty() { &node.content_desc } else { &node.text };
    if let Some(emblem) = emblem {
        let half = letter_px * 0.65;
        let at = Placement { cx: letter_box.cx(), cy: letter_box.cy(), half, fg: WHITE, bg: color };
        emblems::draw(cv, emblem, &at);
    } else if let Some(first) = label.chars().find(|c| !c.is_whitespace()) {
        let letter: String = first.to_uppercase().collect();
        let style = TextStyle { size_px: letter_px, bold: true, color: WHITE };
        font::draw_text(cv, &letter, letter_box, &style, Align::Center(0.0), 1);
    }
    let below = FRect { top: sq.bottom, ..b };
    let style = TextStyle { size_px: ctx.sp(12.0), bold: false, color: text_color(ctx, node) };
    font::draw_text(cv, label, below, &style, Align::Center(ctx.dp(2.0)), 2);
}

fn slider(cv: &mut Canvas, ctx: &Ctx, node: &Node, b: FRect, value: i64, max: i64) {
    let pad = ctx.dp(16.0).min(b.width() / 4.0);
    let (x0, x1, cy) = (b.left + pad, b.right - pad, b.cy());
    if x1.is_nan() || x0.is_nan() || x1 <= x0 {
        return;
    }
    let frac = if max > 0 { (value as f64 / max as f64).clamp(0.0, 1.0) as f32 } else { 0.0 };
    let xv = x0 + (x1 - x0) * frac;
    let t = ctx.dp(4.0).max(1.0);
    let accent = if node.enabled { ACCENT } else { 0x9E9E9E };
    cv.round_rect(FRect::new(x0, cy - t * 0.5, x1, cy + t * 0.5), t, ctx.ink(0xBDBDBD), 255);
    cv.round_rect(FRect::new(x0, cy - t * 0.5, xv.max(x0 + t), cy + t * 0.5), t, accent, 255);
    cv.circle(xv, cy, ctx.dp(10.0), accent, 255);
}

/// Draws a short symbol string centred in `b`: from the fonts when they have every char,
/// else as a small vector drawing for common symbols, else with boxes for missing chars.
pub(crate) fn symbol(cv: &mut Canvas, glyph: &str, b: FRect, size_px: f32, color: u32) {
    let style = TextStyle { size_px, bold: false, color };
    if glyph.chars().all(font::has_glyph) || !vector_symbol(cv, glyph, b.cx(), b.cy(), size_px, color) {
        font::draw_text(cv, glyph, b, &style, Align::Center(0.0), 1);
    }
}
