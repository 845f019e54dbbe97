//! The screenshot renderer: draws a laid-out [`Screen`] into an RGBA frame and encodes
//! it as PNG, so that a vision model sees what the hierarchy dump describes (legible
//! Latin and CJK text, clearly on/off switches, icons as coloured shapes with pictures,
//! a game's sprites), in the light or dark theme at the set font scale.
//!
//! It does not lay anything out, hit-test or read app state: every node is drawn inside
//! the pixel bounds it already has, per its [`Role`]. Drawing never fails or panics on odd
//! input (inverted, off-screen or huge bounds, huge text, a zero-size screen); only PNG
//! encoding can return an error.

mod emblems;
mod font;
mod keyboard;
mod paint;
mod style;
mod symbols;
mod widgets;

use crate::screen::{Node, Rect, Role, Screen};
use paint::{Canvas, FRect, IRect};

/// Frames larger than this per side are cut to it (guards against absurd allocations).
const MAX_SIDE: u32 = 8192;
/// Deeper node trees than this are not drawn further (guards the stack).
const MAX_DEPTH: usize = 256;

/// A rendered screen: row-major RGBA_8888, every alpha 255.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Frame {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) rgba: Vec<u8>,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum RenderError {
    #[error("the frame holds {len} bytes, {width}x{height} RGBA needs {expected}")]
    BadFrame { len: usize, width: u32, height: u32, expected: u64 },
    #[error("PNG encoding failed")]
    Png(#[from] png::EncodingError),
}

/// Draws all windows of `screen`, bottom-most first, each node before its children.
/// The frame is `screen.width x screen.height` (each side capped at 8192 pixels).
pub(crate) fn render(screen: &Screen) -> Frame {
    let (width, height) = (screen.width.min(MAX_SIDE), screen.height.min(MAX_SIDE));
    let mut canvas = Canvas::new(width, height);
    let ctx = style::Ctx::new(screen);
    for window in &screen.windows {
        draw_node(&mut canvas, &ctx, window, 0);
    }
    Frame { width, height, rgba: canvas.rgba }
}

/// Encodes `frame` as an 8-bit RGBA PNG with fast compression.
pub(crate) fn encode_png(frame: &Frame) -> Result<Vec<u8>, RenderError> {
    let expected = (frame.width as u64) * (frame.height as u64) * 4;
    if frame.rgba.len() as u64 != expected {
        return Err(RenderError::BadFrame {
            len: frame.rgba.len(),
            width: frame.width,
            height: frame.height,
            expected,
        });
    }
    let mut out = Vec::with_capacity(frame.rgba.len() / 8 + 1024);
    let mut encoder = png::Encoder::new(&mut out, frame.width, frame.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&frame.rgba)?;
    writer.finish()?;
    Ok(out)
}

/// The node's bounds as a paint rectangle (no arithmetic, so no overflow).
fn irect(r: &Rect) -> IRect {
    IRect { left: r.left, top: r.top, right: r.right, bottom: r.bottom }
}

fn frect(r: &Rect) -> FRect {
    FRect::new(r.left as f32, r.top as f32, r.right as f32, r.bottom as f32)
}

fn draw_node(canvas: &mut Canvas, ctx: &style::Ctx, node: &Node, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let visible = irect(&node.bounds).intersect(&canvas.full());
    if !visible.is_empty() && node.role != Role::Container {
        let full = canvas.set_clip(visible);
        widgets::draw(canvas, ctx, node, frect(&node.bounds));
        canvas.set_clip(full);
    }
    for child in &node.children {
        draw_node(canvas, ctx, child, depth + 1);
    }
}

#[cfg(test)]
mod tests;
