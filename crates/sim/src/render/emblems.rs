//! Draws an [`Emblem`]: flat pictures built from circles, rings, rounded rectangles,
//! convex polygons and strokes, in a square of half-side `h` centred at (cx, cy).
//! `fg` is the picture's colour and `bg` the colour under it (cut-outs such as a
//! clock's hands or a card's stripe are painted in it). Pure drawing: never fails.

use super::paint::{Canvas, FRect};
use crate::emblem::Emblem;

/// Where and in which colours one emblem is drawn.
pub(crate) struct Placement {
    pub(crate) cx: f32,
    pub(crate) cy: f32,
    /// Half the side of the square the picture fills.
    pub(crate) half: f32,
    pub(crate) fg: u32,
    pub(crate) bg: u32,
}

pub(crate) fn draw(cv: &mut Canvas, emblem: Emblem, at: &Placement) {
    if !(at.half.is_finite() && at.half > 0.5) {
        return;
    }
    let (cx, cy, h, fg, bg) = (at.cx, at.cy, at.half, at.fg, at.bg);
    // Unit coordinates (-1..1 across the square) to pixels.
    let p = |x: f32, y: f32| (cx + x * h, cy + y * h);
    let rect = |l: f32, t: f32, r: f32, b: f32| FRect::new(cx + l * h, cy + t * h, cx + r * h, cy + b * h);
    let poly = |cv: &mut Canvas, pts: &[(f32, f32)], color: u32| {
        let px: Vec<(f32, f32)> = pts.iter().map(|&(x, y)| p(x, y)).collect();
        cv.convex_polygon(&px, color, 255);
    };
    match emblem {
        Emblem::Gear => {
            for k in 0..8 {
                let a = std::f32::consts::FRAC_PI_4 * k as f32;
                let (s, c) = a.sin_cos();
                let (w, r0, r1) = (0.17, 0.45, 0.8);
                let corner = |r: f32, side: f32| (c * r - s * side, s * r + c * side);
                poly(cv, &[corner(r0, -w), corner(r1, -w), corner(r1, w), corner(r0, w)], fg);
            }
            cv.ring(cx, cy, 0.42 * h, 0.3 * h, fg, 255);
        }
        Emblem::Bubble => {
            cv.round_rect(rect(-0.8, -0.65, 0.8, 0.4), 0.3 * h, fg, 255);
            poly(cv, &[(-0.45, 0.3), (-0.05, 0.3), (-0.55, 0.8)], fg);
            for x in [-0.4, 0.0, 0.4] {
                cv.circle(p(x, -0.12).0, p(x, -0.12).1, 0.11 * h, bg, 255);
            }
        }
        Emblem::Person => {
            cv.circle(cx, cy - 0.38 * h, 0.32 * h, fg, 255);
            cv.round_rect(rect(-0.7, 0.05, 0.7, 0.8), 0.45 * h, fg, 255);
        }
        Emblem::Calendar => {
            cv.round_rect(rect(-0.75, -0.6, 0.75, 0.75), 0.12 * h, fg, 255);
            cv.fill_rect(rect(-0.75, -0.3, 0.75, -0.22).to_irect().intersect(&cv.clip()), bg, 255);
            for (x, y) in [(-0.4, 0.05), (0.0, 0.05), (0.4, 0.05), (-0.4, 0.42), (0.0, 0.42)] {
                cv.round_rect(rect(x - 0.12, y - 0.1, x + 0.12, y + 0.1), 0.03 * h, bg, 255);
            }
            for x in [-0.4, 0.4] {
                cv.line(p(x, -0.85), p(x, -0.5), 0.16 * h, fg, 255);
            }
        }
        Emblem::Clock => {
            cv.circle(cx, cy, 0.82 * h, fg, 255);
            cv.line(p(0.0, 0.0), p(0.0, -0.55), 0.14 * h, bg, 255);
            cv.line(p(0.0, 0.0), p(0.4, 0.2), 0.14 * h, bg, 255);
        }
        Emblem::Folder => {
            poly(cv, &[(-0.8, -0.6), (-0.2, -0.6), (0.0, -0.4), (-0.8, -0.4)], fg);
            cv.round_rect(rect(-0.8, -0.45, 0.8, 0.65), 0.1 * h, fg, 255);
            cv.line(p(-0.8, -0.2), p(0.8, -0.2), 0.08 * h, bg, 255);
        }
        Emblem::Note => {
            poly(cv, &[(-0.6, -0.8), (0.3, -0.8), (0.6, -0.5), (0.6, 0.8), (-0.6, 0.8)], fg);
            for y in [-0.3, 0.05, 0.4] {
                cv.line(p(-0.35, y), p(0.35, y), 0.1 * h, bg, 255);
            }
        }
        Emblem::Card => {
            cv.round_rect(rect(-0.85, -0.55, 0.85, 0.55), 0.15 * h, fg, 255);
            cv.fill_rect(rect(-0.85, -0.32, 0.85, -0.1).to_irect().intersect(&cv.clip()), bg, 255);
            cv.round_rect(rect(-0.6, 0.15, -0.1, 0.32), 0.05 * h, bg, 255);
        }
        Emblem::Gamepad => {
            cv.round_rect(rect(-0.9, -0.4, 0.9, 0.45), 0.4 * h, fg, 255);
            cv.line(p(-0.68, 0.02), p(-0.22, 0.02), 0.13 * h, bg, 255);
            cv.line(p(-0.45, -0.21), p(-0.45, 0.25), 0.13 * h, bg, 255);
            cv.circle(p(0.35, -0.1).0, p(0.35, -0.1).1, 0.1 * h, bg, 255);
            cv.circle(p(0.58, 0.14).0, p(0.58, 0.14).1, 0.1 * h, bg, 255);
        }
        Emblem::Star => {
            let point = |k: usize, r: f32| {
                let a = -std::f32::consts::FRAC_PI_2 + std::f32::consts::PI * 0.2 * k as f32;
                (a.cos() * r, a.sin() * r + 0.08)
            };
            let inner: Vec<(f32, f32)> = (0..5).map(|k| point(2 * k + 1, 0.38)).collect();
            poly(cv, &inner, fg);
            for k in 0..5 {
                poly(cv, &[point(2 * k, 0.95), inner[(k + 4) % 5], inner[k]], fg);
            }
        }
        Emblem::Heart => {
            cv.circle(p(-0.38, -0.3).0, p(-0.38, -0.3).1, 0.42 * h, fg, 255);
            cv.circle(p(0.38, -0.3).0, p(0.38, -0.3).1, 0.42 * h, fg, 255);
            poly(cv, &[(-0.78, -0.2), (0.78, -0.2), (0.0, 0.82)], fg);
        }
        Emblem::Diamond => {
            poly(cv, &[(-0.85, -0.25), (-0.45, -0.7), (0.45, -0.7), (0.85, -0.25), (0.0, 0.85)], fg);
            cv.line(p(-0.85, -0.25), p(0.85, -0.25), 0.07 * h, bg, 255);
        }
        Emblem::Bomb => {
            cv.circle(p(-0.1, 0.2).0, p(-0.1, 0.2).1, 0.65 * h, fg, 255);
            cv.line(p(0.3, -0.3), p(0.6, -0.7), 0.15 * h, fg, 255);
            cv.circle(p(0.7, -0.8).0, p(0.7, -0.8).1, 0.13 * h, 0xFF6D00, 255);
            cv.circle(p(-0.35, -0.05).0, p(-0.35, -0.05).1, 0.14 * h, bg, 128);
        }
        Emblem::Coin => {
            cv.circle(cx, cy, 0.85 * h, fg, 255);
            cv.ring(cx, cy, 0.62 * h, 0.1 * h, bg, 255);
            cv.round_rect(rect(-0.1, -0.38, 0.1, 0.38), 0.08 * h, bg, 255);
        }
        Emblem::Bolt => {
            poly(cv, &[(0.1, -0.9), (0.45, -0.9), (0.15, -0.1), (-0.45, -0.1)], fg);
            poly(cv, &[(-0.45, -0.1), (0.45, -0.1), (-0.2, 0.9)], fg);
        }
        Emblem::Play => {
            cv.circle(cx, cy, 0.9 * h, fg, 255);
            poly(cv, &[(-0.25, -0.45), (0.5, 0.0), (-0.25, 0.45)], bg);
        }
        Emblem::Pause => {
            cv.round_rect(rect(-0.55, -0.7, -0.15, 0.7), 0.08 * h, fg, 255);
            cv.round_rect(rect(0.15, -0.7, 0.55, 0.7), 0.08 * h, fg, 255);
        }
        Emblem::Trophy => {
            cv.round_rect(rect(-0.55, -0.8, 0.55, 0.0), 0.45 * h, fg, 255);
            cv.fill_rect(rect(-0.55, -0.8, 0.55, -0.4).to_irect().intersect(&cv.clip()), fg, 255);
            cv.ring(p(-0.55, -0.45).0, p(-0.55, -0.45).1, 0.22 * h, 0.1 * h, fg, 255);
            cv.ring(p(0.55, -0.45).0, p(0.55, -0.45).1, 0.22 * h, 0.1 * h, fg, 255);
            cv.fill_rect(rect(-0.1, -0.05, 0.1, 0.5).to_irect().intersect(&cv.clip()), fg, 255);
            cv.round_rect(rect(-0.45, 0.5, 0.45, 0.8), 0.05 * h, fg, 255);
        }
        Emblem::Moon => {
            cv.circle(cx, cy, 0.8 * h, fg, 255);
            cv.circle(p(0.4, -0.3).0, p(0.4, -0.3).1, 0.68 * h, bg, 255);
        }
        Emblem::Key => {
            cv.ring(p(-0.45, 0.0).0, p(-0.45, 0.0).1, 0.3 * h, 0.18 * h, fg, 255);
            cv.line(p(-0.15, 0.0), p(0.85, 0.0), 0.18 * h, fg, 255);
            cv.line(p(0.55, 0.0), p(0.55, 0.35), 0.16 * h, fg, 255);
            cv.line(p(0.8, 0.0), p(0.8, 0.3), 0.16 * h, fg, 255);
        }
        Emblem::Bag => {
            cv.ring(p(0.0, -0.4).0, p(0.0, -0.4).1, 0.32 * h, 0.1 * h, fg, 255);
            poly(cv, &[(-0.7, -0.3), (0.7, -0.3), (0.8, 0.85), (-0.8, 0.85)], fg);
        }
        Emblem::Globe => {
            cv.ring(cx, cy, 0.8 * h, 0.12 * h, fg, 255);
            cv.line(p(-0.8, 0.0), p(0.8, 0.0), 0.1 * h, fg, 255);
            cv.line(p(0.0, -0.8), p(0.0, 0.8), 0.1 * h, fg, 255);
            cv.ring(cx, cy, 0.4 * h, 0.09 * h, fg, 255);
        }
        Emblem::Music => {
            cv.circle(p(-0.35, 0.5).0, p(-0.35, 0.5).1, 0.28 * h, fg, 255);
            cv.line(p(-0.12, 0.5), p(-0.12, -0.75), 0.14 * h, fg, 255);
            poly(cv, &[(-0.12, -0.8), (0.6, -0.5), (0.6, -0.25), (-0.12, -0.5)], fg);
        }
        Emblem::Pin => {
            cv.circle(p(0.0, -0.3).0, p(0.0, -0.3).1, 0.55 * h, fg, 255);
            poly(cv, &[(-0.47, -0.05), (0.47, -0.05), (0.0, 0.9)], fg);
            cv.circle(p(0.0, -0.3).0, p(0.0, -0.3).1, 0.22 * h, bg, 255);
        }
        Emblem::Check => {
            cv.line(p(-0.65, 0.05), p(-0.2, 0.5), 0.24 * h, fg, 255);
            cv.line(p(-0.2, 0.5), p(0.7, -0.5), 0.24 * h, fg, 255);
        }
        Emblem::Cup => {
            cv.round_rect(rect(-0.65, -0.35, 0.35, 0.6), 0.2 * h, fg, 255);
            cv.ring(p(0.4, 0.1).0, p(0.4, 0.1).1, 0.25 * h, 0.1 * h, fg, 255);
            cv.fill_rect(rect(-0.75, 0.68, 0.55, 0.8).to_irect().intersect(&cv.clip()), fg, 255);
            cv.line(p(-0.3, -0.8), p(-0.3, -0.5), 0.09 * h, fg, 255);
            cv.line(p(0.0, -0.8), p(0.0, -0.5), 0.09 * h, fg, 255);
        }
        Emblem::Tree => {
            poly(cv, &[(0.0, -0.9), (0.65, 0.35), (-0.65, 0.35)], fg);
            cv.fill_rect(rect(-0.12, 0.3, 0.12, 0.85).to_irect().intersect(&cv.clip()), fg, 255);
        }
        Emblem::Bed => {
            cv.fill_rect(rect(-0.85, -0.6, -0.7, 0.7).to_irect().intersect(&cv.clip()), fg, 255);
            cv.round_rect(rect(-0.85, 0.05, 0.85, 0.45), 0.06 * h, fg, 255);
            cv.circle(p(-0.4, -0.15).0, p(-0.4, -0.15).1, 0.18 * h, fg, 255);
            cv.round_rect(rect(-0.15, -0.3, 0.85, 0.05), 0.12 * h, fg, 255);
            cv.fill_rect(rect(0.7, 0.3, 0.85, 0.7).to_irect().intersect(&cv.clip()), fg, 255);
        }
    }
}
