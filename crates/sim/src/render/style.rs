//! What every drawing function shares: the screen's scale and the palette.

use crate::screen::Screen;

pub(crate) const DARK: u32 = 0x202124;
pub(crate) const ACCENT: u32 = 0x1A73E8;
pub(crate) const DISABLED_TEXT: u32 = 0x9E9E9E;
pub(crate) const HINT: u32 = 0x8A8A8A;
pub(crate) const WHITE: u32 = 0xFFFFFF;

/// Per-screen drawing parameters.
pub(crate) struct Ctx {
    /// Pixels per dp.
    scale: f32,
    /// Text size multiplier.
    font_scale: f32,
    dark: bool,
}

impl Ctx {
    pub(crate) fn new(screen: &Screen) -> Self {
        // Same rounding as `Screen::dp` at 1 dp, but kept fractional for font sizes.
        let scale = screen.density as f32 / 160.0;
        let font_scale = screen.look.font_scale;
        Self {
            scale: if scale.is_finite() { scale.min(64.0) } else { 1.0 },
            font_scale: if font_scale.is_finite() { font_scale.clamp(0.5, 2.0) } else { 1.0 },
            dark: screen.look.dark,
        }
    }

    /// Device-independent pixels to pixels (fractional).
    pub(crate) fn dp(&self, dp: f32) -> f32 {
        dp * self.scale
    }

    /// Scale-independent pixels (text sizes) to pixels: dp times the font scale.
    pub(crate) fn sp(&self, sp: f32) -> f32 {
        sp * self.scale * self.font_scale
    }

    /// A neutral colour (surfaces, text, outlines) as the theme shows it: unchanged
    /// in the light theme; in the dark one greys flip around the middle (white
    /// surfaces become near-black, dark text near-white) while saturated colours
    /// (accents, brand colours, icons) stay, as Material's dark theme does.
    pub(crate) fn ink(&self, color: u32) -> u32 {
        if !self.dark {
            return color;
        }
        let [r, g, b] = super::paint::rgb(color);
        let (hi, lo) = (r.max(g).max(b), r.min(g).min(b));
        if hi - lo > 48 {
            return color;
        }
        // 255 → 0x12 (Material's dark surface), 0x20 → 0xE6.
        let flip = |c: u8| 0x12 + ((255 - c as u32) * (0xE8 - 0x12) / 255);
        (flip(r) << 16) | (flip(g) << 8) | flip(b)
    }
}
