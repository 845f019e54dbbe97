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
}

impl Ctx {
    pub(crate) fn new(screen: &Screen) -> Self {
        // Same rounding as `Screen::dp` at 1 dp, but kept fractional for font sizes.
        let scale = screen.density as f32 / 160.0;
        Self { scale: if scale.is_finite() { scale.min(64.0) } else { 1.0 } }
    }

    /// Device-independent pixels to pixels (fractional).
    pub(crate) fn dp(&self, dp: f32) -> f32 {
        dp * self.scale
    }
}
