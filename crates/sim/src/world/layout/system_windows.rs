//! The windows the system draws over every app: the keyboard's (Gboard, the Portal's or ADB
//! Keyboard), the status bar with its clock and battery, and the navigation bar. Not the
//! keyboard's keys (`crate::keyboard`) nor dialogs (`dialogs`).

use super::super::model::World;
use super::super::names::LATIN_IME;
use super::nodes::{TEXT, label, node};
use crate::screen::{Hook, Node, Rect, Role};

pub(super) fn keyboard_window(world: &World, bounds: Rect) -> Node {
    if world.ime == LATIN_IME {
        let pkg = "com.google.android.inputmethod.latin";
        return Node {
            role: Role::Keyboard,
            hook: Some(Hook::Keyboard),
            ..node("android.widget.FrameLayout", pkg, bounds)
        };
    }
    let (pkg, name) = if world.ime == super::super::names::PORTAL_IME {
        ("com.droidrun.portal", "Droidrun Keyboard")
    } else {
        ("com.android.adbkeyboard", "ADB Keyboard {ON}")
    };
    let text = label(name.into(), pkg, bounds, 16.0, TEXT, false);
    Node {
        role: Role::Surface { color: 0xE8EAED },
        children: vec![text],
        ..node("android.widget.FrameLayout", pkg, bounds)
    }
}

pub(super) fn status_bar(bounds: Rect, world: &World) -> Node {
    let pkg = "com.android.systemui";
    let clock_w = bounds.height() * 3;
    let now = world.now_secs();
    let mut clock = label(
        super::super::template::clock_text(now, "%H:%M"),
        pkg,
        Rect::new(bounds.height() / 2, bounds.top, clock_w, bounds.bottom),
        14.0,
        TEXT,
        false,
    );
    clock.resource_id = "com.android.systemui:id/clock".into();
    clock.content_desc = super::super::template::clock_text(now, "%-I:%M %p");
    let percent = world.state.get("settings.battery_percentage").is_some_and(|v| v.truthy());
    clock.role = Role::Container;
    let battery = Node {
        resource_id: "com.android.systemui:id/battery".into(),
        content_desc: "Battery 100 percent.".into(),
        text: if percent { "100%".into() } else { String::new() },
        ..node(
            "android.widget.LinearLayout",
            pkg,
            Rect::new(bounds.right - clock_w, bounds.top, bounds.right, bounds.bottom),
        )
    };
    Node {
        resource_id: "com.android.systemui:id/status_bar".into(),
        role: Role::StatusBar,
        children: vec![clock, battery],
        ..node("android.widget.FrameLayout", pkg, bounds)
    }
}

pub(super) fn nav_bar(bounds: Rect) -> Node {
    let pkg = "com.android.systemui";
    let w = bounds.width() / 3;
    let buttons = [
        ("back", "Back", "◀", Hook::NavBack),
        ("home", "Home", "●", Hook::NavHome),
        ("recent_apps", "Overview", "■", Hook::NavRecents),
    ];
    let children = buttons
        .into_iter()
        .enumerate()
        .map(|(i, (id, desc, glyph, hook))| {
            let left = bounds.left + w * i as i32;
            Node {
                resource_id: format!("com.android.systemui:id/{id}"),
                content_desc: desc.into(),
                clickable: true,
                focusable: true,
                long_clickable: true,
                role: Role::ToolButton { glyph: glyph.into() },
                hook: Some(hook),
                ..node("android.widget.ImageView", pkg, Rect::new(left, bounds.top, left + w, bounds.bottom))
            }
        })
        .collect();
    Node {
        resource_id: "com.android.systemui:id/navigation_bar_frame".into(),
        role: Role::Surface { color: 0xF2F2F2 },
        children,
        ..node("android.widget.FrameLayout", pkg, bounds)
    }
}
