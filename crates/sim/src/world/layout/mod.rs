//! Lays the world out as a [`Screen`]: the screen's bands (status bar, app area, keyboard,
//! nav bar) and the windows stacked in them. Sizes are in dp scaled by the density, as
//! Android does. Pure: it reads the world and changes nothing. The parts live apart:
//! `app_window`, `rows`, `dialogs`, `system_windows`, and what they share, `nodes`.

mod app_window;
mod dialogs;
mod nodes;
mod rows;
mod system_windows;

use super::model::World;
use super::names::LATIN_IME;
use super::spec::KeyboardMode;
use crate::screen::{Rect, Screen};
use app_window::AppLayout;
use dialogs::{dialog_window, scrim};
use system_windows::{keyboard_window, nav_bar, status_bar};

/// The horizontal bands of the screen: status bar, app area, keyboard, nav bar.
struct Bands {
    status: i32,
    nav_top: i32,
    keyboard_top: i32,
}

fn bands(world: &World, screen: &Screen) -> Bands {
    let h = screen.height as i32;
    let nav_top = h - screen.dp(48.0);
    let keyboard_h = match (world.keyboard_shown, world.ime == LATIN_IME) {
        (false, _) => 0,
        (true, true) => screen.dp(260.0),
        (true, false) => screen.dp(56.0),
    };
    Bands { status: screen.dp(24.0), nav_top, keyboard_top: nav_top - keyboard_h }
}

fn empty_screen(world: &World) -> Screen {
    let g = world.geometry;
    Screen { width: g.width, height: g.height, density: g.density, windows: Vec::new(), active: 0, look: g.look }
}

pub(crate) fn build(world: &World) -> Screen {
    let mut screen = empty_screen(world);
    let w = screen.width as i32;
    let h = screen.height as i32;
    let Bands { status, nav_top, keyboard_top } = bands(world, &screen);

    if let Some((app, spec, inst)) = world.top() {
        // An overlaid keyboard covers the bottom of a screen laid out to the nav bar.
        let bottom = if spec.keyboard == KeyboardMode::Overlays { nav_top } else { keyboard_top };
        let lay = AppLayout { world, screen: &screen, app, spec, width: w, top: status, bottom };
        let offset = animation_offset(world, &screen);
        let window = lay.window(inst.scroll, offset);
        screen.windows.push(window);
    }
    if let Some(dialog) = world.dialogs.last() {
        screen.windows.push(scrim(w, h));
        screen.active = screen.windows.len();
        screen.windows.push(dialog_window(world, dialog, &screen));
    }
    if world.keyboard_shown {
        screen.windows.push(keyboard_window(world, Rect::new(0, keyboard_top, w, nav_top)));
    }
    screen.windows.push(status_bar(Rect::new(0, 0, w, status), world));
    screen.windows.push(nav_bar(Rect::new(0, nav_top, w, h)));
    screen
}

/// While slow-ui animates a change, content slides up into place in four steps.
fn animation_offset(world: &World, screen: &Screen) -> i32 {
    let (Some(at), false) = (world.changed_at, world.slow_ui.is_zero()) else { return 0 };
    let progress = at.elapsed().as_secs_f32() / world.slow_ui.as_secs_f32();
    if progress >= 1.0 {
        return 0;
    }
    let remaining = 1.0 - (progress * 4.0).floor() / 4.0;
    (remaining * screen.dp(96.0) as f32) as i32
}

/// The largest scroll offset of the top screen (content height minus viewport).
pub(crate) fn max_scroll(world: &World) -> i32 {
    let Some((app, spec, _)) = world.top() else { return 0 };
    let screen = empty_screen(world);
    let b = bands(world, &screen);
    let lay = AppLayout {
        world,
        screen: &screen,
        app,
        spec,
        width: screen.width as i32,
        top: b.status,
        bottom: b.keyboard_top,
    };
    (lay.content_height() - lay.viewport().height()).max(0)
}
