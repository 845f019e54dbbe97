//! Gestures: taps and long presses on a `ui_state` index or a point, swipes, drags.

use rhai::Dynamic;

use crate::acting::DeviceAct;
use crate::arguments::gesture_ms;
use crate::catalog::registry::tool;
use crate::catalog::spec::{Access, Gate, ParamKind, ParamSpec, Press, Replay, Role, ToolSpec, common};
use crate::context::ToolContext;
use crate::error::ToolError;

/// A point gesture after it is resolved: where, and for how long.
fn press(c: &mut ToolContext, point: (i32, i32), ms: Option<u32>) -> Result<(), ToolError> {
    c.act(match ms {
        None => DeviceAct::Tap(point),
        Some(ms) => DeviceAct::LongPress(point, ms),
    })
}

fn long_press_at(c: &mut ToolContext, x: &Dynamic, y: &Dynamic, ms: i64) -> Result<(), ToolError> {
    let ms = gesture_ms(ms, c.left())?;
    let point = c.point(x, y)?;
    press(c, point, Some(ms))
}

/// A swipe or a drag between two points, resolved and bounded.
fn stroke(c: &mut ToolContext, drag: bool, p: [&Dynamic; 4], ms: i64) -> Result<(), ToolError> {
    let ms = gesture_ms(ms, c.left())?;
    let (x1, y1) = c.point(p[0], p[1])?;
    let (x2, y2) = c.point(p[2], p[3])?;
    c.act(DeviceAct::Stroke { from: (x1, y1), to: (x2, y2), ms, drag, scroll: false })
}

pub(crate) const TAP_BY_INDEX: ToolSpec = ToolSpec {
    name: "tap_by_index",
    params: &[ParamSpec::new("index", ParamKind::Integer, "the element's index in ui_state")],
    doc: "Tap the element with this ui_state index (refuses if the screen changed under it).",
    access: Access::Acts,
    gates: &[Gate::Element],
    replay: Replay::IndexAsSelector("tap"),
    role: Role::Press(Press::Tap),
    register: |r| {
        tool!(r, |c, index: i64| {
            let point = c.element_center(index)?;
            press(c, point, None)
        })
    },
};

pub(crate) const LONG_PRESS_BY_INDEX: ToolSpec = ToolSpec {
    name: "long_press_by_index",
    params: &[ParamSpec::new("index", ParamKind::Integer, "the element's index in ui_state")],
    doc: "Long-press the element with this ui_state index.",
    access: Access::Acts,
    gates: &[Gate::Element],
    replay: Replay::IndexAsSelector("long_press"),
    role: Role::Press(Press::LongPress),
    register: |r| {
        tool!(r, |c, index: i64| {
            let point = c.element_center(index)?;
            press(c, point, Some(800))
        })
    },
};

pub(crate) const TAP_POINT: ToolSpec = ToolSpec {
    name: "tap",
    params: &[common::X, common::Y],
    doc: "Tap a point: integers are pixels, floats in 0..1 are fractions of the screen.",
    access: Access::Acts,
    gates: &[Gate::Point],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| {
        tool!(r, |c, x: Dynamic, y: Dynamic| {
            let point = c.point(&x, &y)?;
            press(c, point, None)
        })
    },
};

pub(crate) const LONG_PRESS_POINT: ToolSpec = ToolSpec {
    name: "long_press",
    params: &[
        common::X,
        common::Y,
        ParamSpec::optional("ms", ParamKind::Integer, "how long to hold, in milliseconds (default 800)"),
    ],
    doc: "Press and hold a point (default 800 ms).",
    access: Access::Acts,
    gates: &[Gate::Point],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| {
        tool!(r, |c, x: Dynamic, y: Dynamic| long_press_at(c, &x, &y, 800));
        tool!(r, |c, x: Dynamic, y: Dynamic, ms: i64| long_press_at(c, &x, &y, ms));
    },
};

pub(crate) const SWIPE: ToolSpec = ToolSpec {
    name: "swipe",
    params: &[
        common::X1,
        common::Y1,
        common::X2,
        common::Y2,
        ParamSpec::optional("ms", ParamKind::Integer, "how long the swipe takes, in milliseconds (default 300)"),
    ],
    doc: "Swipe from one point to another (default 300 ms); swipe up to scroll down.",
    access: Access::Acts,
    gates: &[Gate::Point],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| {
        tool!(r, |c, x1: Dynamic, y1: Dynamic, x2: Dynamic, y2: Dynamic| stroke(c, false, [&x1, &y1, &x2, &y2], 300));
        tool!(r, |c, x1: Dynamic, y1: Dynamic, x2: Dynamic, y2: Dynamic, ms: i64| {
            stroke(c, false, [&x1, &y1, &x2, &y2], ms)
        });
    },
};

pub(crate) const DRAG: ToolSpec = ToolSpec {
    name: "drag",
    params: &[
        common::X1,
        common::Y1,
        common::X2,
        common::Y2,
        ParamSpec::optional("ms", ParamKind::Integer, "how long the drag takes, in milliseconds (default 1000)"),
    ],
    doc: "Drag and drop from one point to another (default 1000 ms).",
    access: Access::Acts,
    gates: &[Gate::Point],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| {
        tool!(r, |c, x1: Dynamic, y1: Dynamic, x2: Dynamic, y2: Dynamic| stroke(c, true, [&x1, &y1, &x2, &y2], 1000));
        tool!(r, |c, x1: Dynamic, y1: Dynamic, x2: Dynamic, y2: Dynamic, ms: i64| {
            stroke(c, true, [&x1, &y1, &x2, &y2], ms)
        });
    },
};
