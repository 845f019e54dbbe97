//! Text for the screenshot renderer: the bundled fonts (parsed once), glyph-by-glyph
//! fallback (Roboto, then DroidSansFallback for CJK, then a hollow box), single-line
//! shaping with ellipsis, up to two wrapped lines, and anti-aliased glyph drawing.
//!
//! It does no bidi, complex shaping, kerning or hyphenation: one char is one glyph. A
//! font that fails to parse is treated as absent (its glyphs become boxes); nothing here
//! returns errors or panics on input.

use std::sync::OnceLock;

use ab_glyph::{Font, FontRef, GlyphId, PxScale, ScaleFont, point};

use super::paint::{Canvas, FRect, IRect, rgb};

static ROBOTO_REGULAR: &[u8] = include_bytes!("../../fonts/Roboto-Regular.ttf");
static ROBOTO_MEDIUM: &[u8] = include_bytes!("../../fonts/Roboto-Medium.ttf");
static DROID_FALLBACK: &[u8] = include_bytes!("../../fonts/DroidSansFallback.ttf");

/// At most this many chars of any string are considered (huge text is cut early).
const MAX_CHARS: usize = 2048;
/// The largest font size drawn, in pixels.
const MAX_FONT_PX: f32 = 400.0;

struct Fonts {
    regular: Option<FontRef<'static>>,
    medium: Option<FontRef<'static>>,
    fallback: Option<FontRef<'static>>,
}

fn fonts() -> &'static Fonts {
    static FONTS: OnceLock<Fonts> = OnceLock::new();
    FONTS.get_or_init(|| Fonts {
        regular: FontRef::try_from_slice(ROBOTO_REGULAR).ok(),
        medium: FontRef::try_from_slice(ROBOTO_MEDIUM).ok(),
        fallback: FontRef::try_from_slice(DROID_FALLBACK).ok(),
    })
}

/// Which font a glyph comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Face {
    Regular,
    Medium,
    Fallback,
    /// No font has the char: drawn as a hollow box.
    Missing,
}

fn face_font(face: Face) -> Option<&'static FontRef<'static>> {
    let f = fonts();
    match face {
        Face::Regular => f.regular.as_ref(),
        Face::Medium => f.medium.as_ref().or(f.regular.as_ref()),
        Face::Fallback => f.fallback.as_ref(),
        Face::Missing => None,
    }
}

/// The ab_glyph scale that makes the font's em square `em_px` pixels tall.
fn scale_for(font: &FontRef<'static>, em_px: f32) -> PxScale {
    let upem = font.units_per_em().unwrap_or(1000.0).max(1.0);
    PxScale::from(em_px * font.height_unscaled() / upem)
}

/// How a run of text looks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TextStyle {
    /// The font size (em height) in pixels.
    pub(crate) size_px: f32,
    pub(crate) bold: bool,
    pub(crate) color: u32,
}

/// One positioned glyph of a shaped line.
#[derive(Debug, Clone, Copy)]
struct Glyph {
    face: Face,
    id: GlyphId,
    x: f32,
    advance: f32,
    /// Byte offset of the char in its source string.
    byte: usize,
    is_space: bool,
}

/// A shaped single line.
#[derive(Debug, Default)]
struct Line {
    glyphs: Vec<Glyph>,
    width: f32,
}

fn lookup(c: char, bold: bool, em_px: f32) -> (Face, GlyphId, f32) {
    let primary = if bold { Face::Medium } else { Face::Regular };
    for face in [primary, Face::Fallback] {
        if let Some(font) = face_font(face) {
            let id = font.glyph_id(c);
            if id.0 != 0 {
                let adv = font.as_scaled(scale_for(font, em_px)).h_advance(id);
                return (face, id, adv);
            }
        }
    }
    (Face::Missing, GlyphId(0), em_px * 0.6)
}

/// Characters with no width of their own: variation selectors, joiners, the BOM.
fn is_zero_width(c: char) -> bool {
    matches!(c, '\u{FE00}'..='\u{FE0F}' | '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{E0100}'..='\u{E01EF}')
}

/// Whether any bundled font has a glyph for `c`.
pub(crate) fn has_glyph(c: char) -> bool {
    lookup(c, false, 16.0).0 != Face::Missing
}

/// Shapes `text` (from byte `start`) until it would exceed `max_w`; returns the line and
/// whether all of the text fitted.
fn shape(text: &str, start: usize, style: &TextStyle, max_w: f32) -> (Line, bool) {
    let mut line = Line::default();
    let mut x = 0.0;
    let rest = text.get(start..).unwrap_or("");
    for (i, (b, c)) in rest.char_indices().enumerate() {
        if i >= MAX_CHARS {
            return (line, false);
        }
        // Variation selectors and joiners shape the character before them; drawn on
        // their own they would be a box each ("❤️" as two boxes).
        if is_zero_width(c) {
            continue;
        }
        let c = if c.is_control() { ' ' } else { c };
        let (face, id, advance) = lookup(c, style.bold, style.size_px);
        if x + advance > max_w + 0.01 {
            return (line, false);
        }
        line.glyphs.push(Glyph { face, id, x, advance, byte: start + b, is_space: c == ' ' });
        x += advance;
        line.width = x;
    }
    (line, true)
}

/// Cuts `line` so that an ellipsis fits after it within `max_w`, and appends the ellipsis.
fn ellipsize(line: &mut Line, style: &TextStyle, max_w: f32) {
    let (face, id, advance) = lookup('…', style.bold, style.size_px);
    while let Some(g) = line.glyphs.last() {
        if g.x + g.advance + advance <= max_w && !g.is_space {
            break;
        }
        line.glyphs.pop();
    }
    let x = line.glyphs.last().map_or(0.0, |g| g.x + g.advance);
    if x + advance <= max_w + 0.01 {
        line.glyphs.push(Glyph { face, id, x, advance, byte: usize::MAX, is_space: false });
        line.width = x + advance;
    } else {
        line.width = x;
    }
}

/// Vertical metrics (ascent, descent as a negative number, line height) at `size_px`.
pub(crate) fn metrics(style: &TextStyle) -> (f32, f32, f32) {
    let style = &TextStyle { size_px: clamp_size(style.size_px), ..*style };
    let face = if style.bold { Face::Medium } else { Face::Regular };
    match face_font(face).or(face_font(Face::Fallback)) {
        Some(font) => {
            let s = font.as_scaled(scale_for(font, style.size_px));
            (s.ascent(), s.descent(), s.ascent() - s.descent() + s.line_gap())
        }
        None => (style.size_px * 0.93, -style.size_px * 0.24, style.size_px * 1.17),
    }
}

/// Font sizes are kept within what a screen can show, so that a bogus density or size
/// cannot make the rasterizer allocate a giant coverage buffer.
fn clamp_size(px: f32) -> f32 {
    if px.is_finite() { px.clamp(0.0, MAX_FONT_PX) } else { 0.0 }
}

/// Horizontal placement of text inside its box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Align {
    /// Left-aligned, `pad` pixels from the left (and right) edge.
    Left(f32),
    /// Centred horizontally, keeping `pad` pixels free on both sides.
    Center(f32),
    /// Single line showing the end of the text (a focused field), `pad` from the left.
    Tail(f32),
}

/// Draws `text` inside `bounds`, vertically centred, clipped to `bounds`. Overflowing text
/// is wrapped onto a second line when `max_lines >= 2` and the box is tall enough, and
/// ellipsized. Returns the x where the (last) line ends, for a caret.
pub(crate) fn draw_text(
    canvas: &mut Canvas,
    text: &str,
    bounds: FRect,
    style: &TextStyle,
    align: Align,
    max_lines: usize,
) -> f32 {
    let style = &TextStyle { size_px: clamp_size(style.size_px), ..*style };
    let (Align::Left(pad) | Align::Tail(pad) | Align::Center(pad)) = align;
    let avail = (bounds.width() - 2.0 * pad).max(0.0);
    let (ascent, descent, line_h) = metrics(style);
    let x_of = |w: f32| match align {
        Align::Left(p) | Align::Tail(p) => bounds.left + p,
        Align::Center(_) => bounds.left + (bounds.width() - w) * 0.5,
    };

    let mut lines: Vec<Line> = Vec::with_capacity(2);
    if let Align::Tail(_) = align {
        let (line, fits) = shape(text, 0, style, f32::MAX);
        let mut line = line;
        if line.width > avail || !fits {
            tail(&mut line, style, avail);
        }
        lines.push(line);
    } else {
        let (mut first, fits) = shape(text, 0, style, avail);
        let two = max_lines >= 2 && bounds.height() >= 2.0 * line_h && !fits;
        if fits {
            lines.push(first);
        } else if two {
            // Break after the last space that fits, or wherever the line filled up.
            let cut = first.glyphs.iter().rposition(|g| g.is_space).filter(|&i| i > 0);
            let next = match cut {
                Some(i) => {
                    // Past the whole breaking character (a space may be wider than a byte).
                    let g = &first.glyphs[i];
                    let b = g.byte + text.get(g.byte..).and_then(|s| s.chars().next()).map_or(1, char::len_utf8);
                    first.glyphs.truncate(i);
                    b
                }
                None => first.glyphs.last().map_or(text.len(), |g| {
                    g.byte + text.get(g.byte..).and_then(|s| s.chars().next()).map_or(1, char::len_utf8)
                }),
            };
            first.width = first.glyphs.last().map_or(0.0, |g| g.x + g.advance);
            let rest = text.get(next..).unwrap_or("");
            let skip = rest.len() - rest.trim_start().len();
            let (mut second, fits2) = shape(text, next + skip, style, avail);
            if !fits2 {
                ellipsize(&mut second, style, avail);
            }
            lines.push(first);
            lines.push(second);
        } else {
            ellipsize(&mut first, style, avail);
            lines.push(first);
        }
    }

    let old = canvas.set_clip(bounds.to_irect().intersect(&canvas.clip()));
    let total_h = line_h * lines.len() as f32;
    let top = bounds.cy() - total_h * 0.5;
    let mut end_x = x_of(0.0);
    for (i, line) in lines.iter().enumerate() {
        let line_top = top + line_h * i as f32;
        // Centre the ascent..descent box within the line box.
        let baseline = line_top + (line_h - (ascent - descent)) * 0.5 + ascent;
        let x0 = x_of(line.width);
        draw_line(canvas, line, x0, baseline, style);
        end_x = x0 + line.width;
    }
    canvas.set_clip(old);
    end_x
}

/// Keeps the end of `line` within `max_w`, with a leading ellipsis.
fn tail(line: &mut Line, style: &TextStyle, max_w: f32) {
    let (face, id, advance) = lookup('…', style.bold, style.size_px);
    let mut w = advance;
    let mut keep = 0;
    for g in line.glyphs.iter().rev() {
        if w + g.advance > max_w {
            break;
        }
        w += g.advance;
        keep += 1;
    }
    let start = line.glyphs.len() - keep;
    let mut out = vec![Glyph { face, id, x: 0.0, advance, byte: usize::MAX, is_space: false }];
    let mut x = advance;
    for g in &line.glyphs[start..] {
        out.push(Glyph { x, ..*g });
        x += g.advance;
    }
    line.glyphs = out;
    line.width = x;
}

fn draw_line(canvas: &mut Canvas, line: &Line, x0: f32, baseline: f32, style: &TextStyle) {
    let color = rgb(style.color);
    let clip = canvas.clip();
    // A line wholly above or below the clip draws nothing: skip rasterising it.
    let size = style.size_px;
    if baseline + size < clip.top as f32 || baseline - size > clip.bottom as f32 {
        return;
    }
    for g in &line.glyphs {
        let gx = x0 + g.x;
        if gx > clip.right as f32 || gx + g.advance < clip.left as f32 {
            continue;
        }
        match face_font(g.face) {
            Some(font) => {
                let glyph = g.id.with_scale_and_position(scale_for(font, style.size_px), point(gx, baseline));
                if let Some(og) = font.outline_glyph(glyph) {
                    let b = og.px_bounds();
                    let (bx, by) = (b.min.x as i32, b.min.y as i32);
                    og.draw(|x, y, c| {
                        let a = (c.clamp(0.0, 1.0) * 255.0 + 0.5) as u32;
                        canvas.blend(bx.saturating_add(x as i32), by.saturating_add(y as i32), color, a);
                    });
                }
            }
            None => draw_box(canvas, gx, baseline, g.advance, style),
        }
    }
}

/// The hollow box drawn for a char that no font has.
fn draw_box(canvas: &mut Canvas, x: f32, baseline: f32, advance: f32, style: &TextStyle) {
    let s = style.size_px;
    let t = (s / 14.0).max(1.0).round() as i32;
    let r = FRect::new(x + advance * 0.12, baseline - s * 0.72, x + advance * 0.88, baseline).to_irect();
    let sides = [
        IRect { bottom: r.top.saturating_add(t), ..r },
        IRect { top: r.bottom.saturating_sub(t), ..r },
        IRect { right: r.left.saturating_add(t), ..r },
        IRect { left: r.right.saturating_sub(t), ..r },
    ];
    for side in sides {
        canvas.fill_rect(side, style.color, 255);
    }
}

#[cfg(test)]
mod zero_width_tests {
    use super::*;

    #[test]
    fn variation_selectors_and_joiners_draw_nothing_of_their_own() {
        let style = TextStyle { size_px: 40.0, bold: false, color: 0 };
        let glyphs = |t: &str| shape(t, 0, &style, f32::MAX).0.glyphs.len();
        assert_eq!(glyphs("\u{2764}\u{FE0F}"), glyphs("\u{2764}"), "❤️ is one glyph, not two");
        assert_eq!(glyphs("a\u{200D}b"), 2);
    }
}
