//! Selector tools: finding, tapping, typing into, waiting for and asserting on
//! elements the way scripts describe them (`"Wi-Fi"`, `#{id: "send", below: "To"}`,
//! `#{image: "send_button"}`), always on the live screen. `ui_state`'s snapshot stays
//! as it was; a found element carries its `ui_state` index only when it shows it.

use std::time::{Duration, Instant};

use rhai::{Array, Dynamic, ImmutableString};

use crate::acting::DeviceAct;
use crate::arguments::wait_ms;
use crate::catalog::registry::tool;
use crate::catalog::spec::{Access, Gate, ParamKind, ParamSpec, Press, Replay, Role, ToolSpec, common};
use crate::context::ToolContext;
use crate::context::effect::safe_to_repeat;
use crate::context::state;
use crate::error::{Awaited, ToolError};
use crate::guard::watchers::keyboard_covers;
use crate::locating;
use crate::locating::closest;
use crate::select::Selector;
use codeact_platform::ui::{Element, UiTree};

/// How many swipes `scroll_until_visible` tries before it gives up.
const MAX_SWIPES: usize = 15;

/// The ids of the elements `sel` matches on the live screen. When none does, the
/// watchers get their turn first (a blocker may hide what is looked for): a
/// script's watcher that matches ends the call (the worker runs it and calls
/// again), else the built-in ones clear what they know.
fn matches(c: &mut ToolContext, sel: &Selector) -> Result<Vec<usize>, ToolError> {
    let obs = locating::look(c, sel)?;
    let ids: Vec<usize> = sel.find_all(&obs.ui).into_iter().map(|e| e.id).collect();
    if !ids.is_empty() {
        return Ok(ids);
    }
    refuse_ambiguous(&obs.ui, sel)?;
    let fired = c.run_watchers(obs.clone())?;
    let now = if fired.is_empty() { obs } else { locating::screen_for(c, c.live_arc().unwrap_or(obs), sel)? };
    Ok(sel.find_all(&now.ui).into_iter().map(|e| e.id).collect())
}

/// A selector whose position anchor matches several places is an error that names
/// them: a guess would act on the wrong element and report success. (Such a
/// selector matches nothing, so this is asked only when nothing matched.)
fn refuse_ambiguous(tree: &UiTree, sel: &Selector) -> Result<(), ToolError> {
    match sel.ambiguous_anchor(tree) {
        Some(a) => Err(closest::ambiguous_anchor(tree, sel, a)),
        None => Ok(()),
    }
}

/// What an acting lookup found.
enum Found {
    Element(Box<Element>),
    /// A blocker watcher had just pressed the very button the selector named.
    PressedByWatcher(String),
    /// Nothing matches, after a blocker watcher answered a dialog (what it did).
    NotAfterWatcher(String),
}

/// An acting lookup: a script's watcher may fire first, then the blockers are
/// cleared, whether or not the selector matches (a dump may hold the app under a
/// dialog, but a tap would land on the dialog), then the first match. When the
/// watchers act only on a blocked action (scripts), a match that no dialog covers —
/// or that is part of the dialog, which the script means to answer — is acted on
/// as it is.
fn acting_match(c: &mut ToolContext, sel: &Selector) -> Result<Option<Found>, ToolError> {
    let obs = locating::look(c, sel)?;
    let first_match = sel.find_all(&obs.ui).first().map(|e| (*e).clone());
    if first_match.is_none() {
        refuse_ambiguous(&obs.ui, sel)?;
    }
    if !c.watchers_ahead()
        && let Some(e) = first_match.as_ref().filter(|e| !c.blocked(&obs, e))
    {
        c.watchers_before(obs.clone())?;
        return Ok(Some(Found::Element(Box::new(e.clone()))));
    }
    let before = first_match.map(|e| e.center);
    let fired = c.run_watchers(obs.clone())?;
    let now = if fired.is_empty() { obs } else { locating::screen_for(c, c.live_arc().unwrap_or(obs), sel)? };
    match sel.find_all(&now.ui).first() {
        Some(e) => Ok(Some(Found::Element(Box::new((*e).clone())))),
        None => {
            let same_button = before.and_then(|center| fired.iter().find(|f| f.button == center));
            Ok(match (same_button, fired.last()) {
                (Some(f), _) => Some(Found::PressedByWatcher(f.line.clone())),
                (None, Some(f)) => Some(Found::NotAfterWatcher(f.line.clone())),
                (None, None) => None,
            })
        }
    }
}

/// The first match on the live screen, as a script sees an element; `()` if none.
fn first(c: &mut ToolContext, sel: &Dynamic) -> Result<Dynamic, ToolError> {
    let sel = c.selector(sel)?;
    let ids = matches(c, &sel)?;
    Ok(ids.first().map_or(Dynamic::UNIT, |id| c.element_value(*id)))
}

/// The first match on the live screen, if any.
fn first_match(c: &mut ToolContext, sel: &Selector) -> Result<Option<Element>, ToolError> {
    let ids = matches(c, sel)?;
    Ok(ids.first().and_then(|id| c.live().and_then(|o| o.ui.get(*id))).cloned())
}

/// What an action is about to act on: the first match; when nothing matches, the
/// main list scrolled to look (unless the selector says `no_scroll`); and the
/// keyboard hidden first when it covers the element. The action's effect is
/// measured from the screen this returns on. `None`: a blocker watcher already
/// pressed the button the selector names (the action is done; its effect says so).
fn target(c: &mut ToolContext, sel: &Selector) -> Result<Option<Element>, ToolError> {
    let mut found = match acting_match(c, sel)? {
        Some(Found::Element(e)) => *e,
        Some(Found::PressedByWatcher(line)) => {
            c.call_record().note_effect(format!("{}{line}", codeact_engine::sandbox::ALREADY_DONE));
            return Ok(None);
        }
        // A watcher cleared some other blocker: look on (the list may need scrolling).
        Some(Found::NotAfterWatcher(line)) => {
            let why = format!(
                " ({line} just before; to answer such dialogs yourself, run with --watchers off, or permission=ask for permissions)"
            );
            if sel.no_scroll {
                return Err(nothing(c, sel, &why));
            }
            scroll_to_find(c, sel, &why)?
        }
        None if sel.no_scroll => return Err(nothing(c, sel, "")),
        None => scroll_to_find(c, sel, "")?,
    };
    if c.options().watchers.keyboard
        && c.watchers_may_fire()
        && let Some(obs) = c.live_arc()
        && keyboard_covers(&obs, found.center)
    {
        c.hide_keyboard_for(&closest::described(&found))?;
        found = match first_match(c, sel)? {
            Some(e) => e,
            None => return Err(nothing(c, sel, " (after hiding the keyboard)")),
        };
    }
    c.measure_effect_from_here();
    let index = c.live().and_then(|o| state::listed(&o.ui).iter().position(|e| e.id == found.id));
    c.call_record().aim_at(index, &found);
    Ok(Some(found))
}

/// [`target`] for actions that need an element: a button a watcher pressed is
/// not a field or a list.
fn element_target(c: &mut ToolContext, sel: &Selector) -> Result<Element, ToolError> {
    match target(c, sel)? {
        Some(e) => Ok(e),
        None => Err(nothing(c, sel, " (a watcher had just answered the dialog it was on)")),
    }
}

/// How many swipes the fallback makes each way before giving up.
const FALLBACK_SWIPES: usize = 3;

/// The fallback when nothing matches: swipe the main scrollable container down
/// (at most [`FALLBACK_SWIPES`] times, stopping at its end), then back up past
/// where it started (as many again, plus [`FALLBACK_SWIPES`]), looking after each.
/// `note` ends the error when it finds nothing.
fn scroll_to_find(c: &mut ToolContext, sel: &Selector, note: &str) -> Result<Element, ToolError> {
    let mut went_down = 0;
    for down in [true, false] {
        let most = if down { FALLBACK_SWIPES } else { went_down + FALLBACK_SWIPES };
        for _ in 0..most {
            let Some(obs) = c.live_arc() else { break };
            let Some(list) = main_scrollable(&obs.ui) else {
                return Err(nothing(c, sel, note));
            };
            let b = list.bounds;
            let (x, h) = ((b.left + b.right) / 2, b.bottom - b.top);
            let (from, to) = (b.top + h * 8 / 10, b.top + h * 2 / 10);
            let before = obs.ui.fingerprint();
            let (from, to) = if down { ((x, from), (x, to)) } else { ((x, to), (x, from)) };
            c.act(DeviceAct::Stroke { from, to, ms: 300, drag: false, scroll: true })?;
            if let Some(Found::Element(e)) = acting_match(c, sel)? {
                return Ok(*e);
            }
            if c.live().map(|o| o.ui.fingerprint()) == Some(before) {
                break;
            }
            if down {
                went_down += 1;
            }
        }
    }
    Err(nothing(c, sel, &format!(" (after scrolling the list down and back up){note}")))
}

/// The biggest visible scrollable element: the list a screen is about.
fn main_scrollable(ui: &UiTree) -> Option<&Element> {
    ui.elements.iter().filter(|e| e.scrollable && e.visible).max_by_key(|e| {
        let b = e.bounds;
        i64::from(b.right - b.left) * i64::from(b.bottom - b.top)
    })
}

/// The error for `sel` matching nothing on the screen as it is now.
fn nothing(c: &ToolContext, sel: &Selector, searched: &str) -> ToolError {
    closest::nothing_matches(c.live(), sel, searched)
}

/// A gesture on the first match: a tap, or a long press. One that changed nothing
/// visible is made once more on the element found again (it may have moved while
/// the screen settled), unless repeating could undo it (a toggle).
fn press(c: &mut ToolContext, sel: &Dynamic, long: bool) -> Result<(), ToolError> {
    let sel = c.selector(sel)?;
    let Some(e) = target(c, &sel)? else { return Ok(()) };
    let safe = c.live_arc().is_some_and(|o| safe_to_repeat(&o.ui, &e));
    let gesture = |at| if long { DeviceAct::LongPress(at, 800) } else { DeviceAct::Tap(at) };
    c.act(gesture(e.center))?;
    let unchanged = c.call_record().last_action_unseen();
    if unchanged && safe {
        let Some(again) = target(c, &sel)? else { return Ok(()) };
        c.act(gesture(again.center))?;
        c.call_record().prefix_effect("retried once: ");
    }
    Ok(())
}

/// How long a wait goes on before it says that it is waiting.
const TELL_AFTER: Duration = Duration::from_secs(2);
/// Polls until `sel` matches (`Appear`) or stops matching (`GoAway`), within `ms`
/// and the snippet's time.
pub(super) fn wait(c: &mut ToolContext, sel: &Dynamic, ms: i64, awaited: Awaited) -> Result<Dynamic, ToolError> {
    let sel = c.selector(sel)?;
    let ms = wait_ms(ms, "timeout_ms")?;
    let wanted = Duration::from_millis(ms);
    let limit = c.left();
    let began = Instant::now();
    let until = began + wanted.min(limit);
    let mut last_look = false;
    // A wait that lasts says so once, to whoever watches (a Maestro tap waits 17 s).
    let mut told = false;
    loop {
        if !told && began.elapsed() >= TELL_AFTER {
            told = true;
            let what = if matches!(awaited, Awaited::Appear) { "to show" } else { "to go" };
            let left = until.saturating_duration_since(Instant::now()).as_secs_f64().ceil();
            c.shared().notice(&format!("waiting for {} {what}, up to {left} s more", sel.shown));
        }
        let ids = match matches(c, &sel) {
            Ok(ids) => ids,
            // A look cut short by the snippet's deadline ends the wait, not the device.
            Err(_) if c.left().is_zero() => {
                let near = closest::after_wait(c.live(), &sel, awaited);
                return Err(ToolError::WaitTimedOut { selector: sel.shown, awaited, ms, cut_by_limit: true, near });
            }
            Err(e) => return Err(e),
        };
        match (awaited, ids.first()) {
            (Awaited::Appear, Some(id)) => {
                c.outcome_checked();
                return Ok(c.element_value(*id));
            }
            (Awaited::GoAway, None) => {
                c.outcome_checked();
                return Ok(Dynamic::UNIT);
            }
            _ => {}
        }
        if !last_look {
            c.pause(Duration::from_millis(50).min(until.saturating_duration_since(Instant::now())))?;
        }
        // One more look at the timeout itself, unless the snippet's deadline is
        // what ends the wait (the device may not be asked past it).
        if Instant::now() >= until && !last_look && wanted <= limit {
            last_look = true;
            continue;
        }
        if Instant::now() >= until {
            let near = closest::after_wait(c.live(), &sel, awaited);
            let cut_by_limit = wanted > limit;
            return Err(ToolError::WaitTimedOut { selector: sel.shown, awaited, ms, cut_by_limit, near });
        }
    }
}

/// Swipes until `sel` matches; errors at the end of the list.
fn scroll_until(c: &mut ToolContext, sel: &Dynamic, direction: &str) -> Result<Dynamic, ToolError> {
    let sel = c.selector(sel)?;
    let down = match direction {
        "down" => true,
        "up" => false,
        other => return Err(ToolError::BadDirection(other.to_string())),
    };
    let mut last = None;
    for _ in 0..MAX_SWIPES {
        if let Some(id) = matches(c, &sel)?.first() {
            return Ok(c.element_value(*id));
        }
        let Some(obs) = c.live() else { break };
        let print = obs.ui.fingerprint();
        if last == Some(print) {
            return Err(ToolError::EndOfList(sel.shown));
        }
        last = Some(print);
        let (w, h) = (obs.screen.0 as i32, obs.screen.1 as i32);
        let (from, to) = if down { (h * 7 / 10, h * 3 / 10) } else { (h * 3 / 10, h * 7 / 10) };
        c.act(DeviceAct::Stroke { from: (w / 2, from), to: (w / 2, to), ms: 300, drag: false, scroll: true })?;
    }
    Err(ToolError::NotAfterSwipes { selector: sel.shown, swipes: MAX_SWIPES })
}

/// A swipe inside the element `sel` finds, the finger moving `direction` ("up",
/// "down", "left", "right") across the middle 60% of it.
fn swipe_inside(c: &mut ToolContext, sel: &Dynamic, direction: &str, scroll: bool) -> Result<(), ToolError> {
    let sel = c.selector(sel)?;
    let e = element_target(c, &sel)?;
    // Across the part on the screen: a list that runs off an edge is swiped where it shows.
    let (w, h) = c.live().map(|o| (o.ui.screen.0 as i32, o.ui.screen.1 as i32)).unwrap_or_default();
    let b = e.bounds.within(&codeact_platform::ui::Bounds { left: 0, top: 0, right: w, bottom: h }).unwrap_or(e.bounds);
    let (w, h) = (b.right - b.left, b.bottom - b.top);
    if w < 10 || h < 10 {
        return Err(ToolError::TooSmall { selector: sel.shown, width: w, height: h });
    }
    let (cx, cy) = b.center();
    let (dx, dy) = (w * 3 / 10, h * 3 / 10);
    let (from, to) = match direction {
        "up" => ((cx, cy + dy), (cx, cy - dy)),
        "down" => ((cx, cy - dy), (cx, cy + dy)),
        "left" => ((cx + dx, cy), (cx - dx, cy)),
        "right" => ((cx - dx, cy), (cx + dx, cy)),
        other => return Err(ToolError::BadSwipeDirection(other.to_string())),
    };
    c.act(DeviceAct::Stroke { from, to, ms: 300, drag: false, scroll })
}

/// The finger direction that scrolls content `direction` (scrolling down moves the
/// finger up).
fn finger_for_scroll(direction: &str) -> &str {
    match direction {
        "down" => "up",
        "up" => "down",
        "left" => "right",
        "right" => "left",
        other => other,
    }
}

pub(crate) const SWIPE_ON: ToolSpec = ToolSpec {
    name: "swipe_on",
    params: &[
        common::SEL,
        ParamSpec::new("direction", ParamKind::Text, "where the finger moves: \"up\", \"down\", \"left\" or \"right\""),
    ],
    doc: "Swipe inside the element a selector finds, the finger moving \"up\", \"down\", \"left\" or \"right\" (a carousel, a row to dismiss).",
    access: Access::Acts,
    gates: &[Gate::Element],
    replay: Replay::BySelector,
    role: Role::Kept,
    register: |r| tool!(r, |c, sel: Dynamic, direction: ImmutableString| swipe_inside(c, &sel, &direction, false)),
};

pub(crate) const SCROLL: ToolSpec = ToolSpec {
    name: "scroll",
    params: &[
        common::SEL,
        ParamSpec::new(
            "direction",
            ParamKind::Text,
            "where the content moves into view: \"down\", \"up\", \"left\" or \"right\"",
        ),
    ],
    doc: "Scroll the content of the element a selector finds \"down\", \"up\", \"left\" or \"right\" (one swipe).",
    access: Access::Acts,
    gates: &[Gate::Element],
    replay: Replay::BySelector,
    role: Role::Kept,
    register: |r| {
        tool!(r, |c, sel: Dynamic, direction: ImmutableString| swipe_inside(
            c,
            &sel,
            finger_for_scroll(&direction),
            true
        ))
    },
};

pub(crate) const FIND: ToolSpec = ToolSpec {
    name: "find",
    params: &[common::SEL],
    doc: "The first element matching a selector on the live screen (a map like ui_state's; index -1 if ui_state does not show it), or ().",
    access: Access::Reads,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Skipped,
    register: |r| tool!(r, |c, sel: Dynamic| first(c, &sel)),
};

pub(crate) const FIND_ALL: ToolSpec = ToolSpec {
    name: "find_all",
    params: &[common::SEL],
    doc: "Every element matching a selector, in reading order.",
    access: Access::Reads,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Skipped,
    register: |r| {
        tool!(r, |c, sel: Dynamic| {
            let sel = c.selector(&sel)?;
            let ids = matches(c, &sel)?;
            Ok(ids.iter().map(|id| c.element_value(*id)).collect::<Array>())
        })
    },
};

pub(crate) const TAP_SELECTOR: ToolSpec = ToolSpec {
    name: "tap",
    params: &[common::SEL],
    doc: "Tap the element a selector finds: \"Wi-Fi\" (text, desc or hint: exact, else contains) or #{id: \"send\", below: \"To\"} (keys: see Selectors).",
    access: Access::Acts,
    gates: &[Gate::Element],
    replay: Replay::BySelector,
    role: Role::Press(Press::Tap),
    register: |r| tool!(r, |c, sel: Dynamic| press(c, &sel, false)),
};

pub(crate) const LONG_PRESS_SELECTOR: ToolSpec = ToolSpec {
    name: "long_press",
    params: &[common::SEL],
    doc: "Long-press the element a selector finds.",
    access: Access::Acts,
    gates: &[Gate::Element],
    replay: Replay::BySelector,
    role: Role::Press(Press::LongPress),
    register: |r| tool!(r, |c, sel: Dynamic| press(c, &sel, true)),
};

pub(crate) const SET_TEXT: ToolSpec = ToolSpec {
    name: "set_text",
    params: &[common::SEL, ParamSpec::new("text", ParamKind::Text, "what the field is to hold")],
    doc: "Tap a text field, empty it and type text; fails if the selector finds no text field or the field does not show the text afterwards.",
    access: Access::Acts,
    gates: &[Gate::Element, Gate::Text],
    replay: Replay::BySelector,
    role: Role::Press(Press::TapThenType),
    register: |r| {
        tool!(r, |c, sel: Dynamic, text: ImmutableString| {
            let sel = c.selector(&sel)?;
            let field = element_target(c, &sel)?;
            if !field.actions.set_text {
                return Err(ToolError::NotAField { selector: sel.shown, element: closest::described(&field) });
            }
            c.gate_element("type", &field, Some(&text))?;
            // The field must have focus (and its keyboard) before it is emptied.
            c.act(DeviceAct::Tap(field.center))?;
            c.act(DeviceAct::ClearText)?;
            crate::context::typing::type_into_focused(c, &text)
        })
    },
};

pub(crate) const WAIT_FOR: ToolSpec = ToolSpec {
    name: "wait_for",
    params: &[common::SEL, common::TIMEOUT_MS],
    doc: "Wait until a selector matches (default 5000 ms); returns the element.",
    access: Access::Reads,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Check,
    register: |r| {
        tool!(r, |c, sel: Dynamic| wait(c, &sel, 5000, Awaited::Appear));
        tool!(r, |c, sel: Dynamic, timeout_ms: i64| wait(c, &sel, timeout_ms, Awaited::Appear));
    },
};

pub(crate) const WAIT_GONE: ToolSpec = ToolSpec {
    name: "wait_gone",
    params: &[common::SEL, common::TIMEOUT_MS],
    doc: "Wait until nothing matches a selector (default 5000 ms).",
    access: Access::Reads,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Check,
    register: |r| {
        tool!(r, |c, sel: Dynamic| wait(c, &sel, 5000, Awaited::GoAway));
        tool!(r, |c, sel: Dynamic, timeout_ms: i64| wait(c, &sel, timeout_ms, Awaited::GoAway));
    },
};

pub(crate) const SCROLL_UNTIL_VISIBLE: ToolSpec = ToolSpec {
    name: "scroll_until_visible",
    params: &[common::SEL, ParamSpec::optional("direction", ParamKind::Text, "\"down\" (the default) or \"up\"")],
    doc: "Swipe (\"down\" by default, or \"up\") until a selector matches; returns the element.",
    access: Access::Acts,
    gates: &[Gate::Element],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| {
        tool!(r, |c, sel: Dynamic| scroll_until(c, &sel, "down"));
        tool!(r, |c, sel: Dynamic, direction: ImmutableString| scroll_until(c, &sel, &direction));
    },
};
