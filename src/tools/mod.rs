//! The tool catalog: every function a script can call on the device, declared once
//! with its Rhai signature and the one-line doc the LLM reads, and registered into a
//! [`Sandbox`] from that same declaration. `codeact tools` prints the catalog.
//!
//! Tools act through the [`Device`] trait, record each call, wait for the screen to
//! settle after acting, and never tap a stale index silently. This module does not
//! parse dumps (that is `ui`) nor run scripts (that is `sandbox`).

pub mod select;
pub mod state;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rhai::{Dynamic, EvalAltResult};

use crate::device::{Device, Observation};
use crate::sandbox::{Sandbox, Shared};

/// One tool as the LLM and the CLI see it.
#[derive(Debug, Clone, Copy)]
pub struct ToolSpec {
    pub name: &'static str,
    /// Rhai signatures, `[...]` marking optional arguments.
    pub signature: &'static str,
    pub doc: &'static str,
}

/// The catalog, in the order the prompt lists it.
pub const CATALOG: &[ToolSpec] = &[
    ToolSpec {
        name: "tap_by_index",
        signature: "tap_by_index(index)",
        doc: "Tap the element with this ui_state index (refuses if the screen changed under it).",
    },
    ToolSpec {
        name: "long_press_by_index",
        signature: "long_press_by_index(index)",
        doc: "Long-press the element with this ui_state index.",
    },
    ToolSpec {
        name: "tap",
        signature: "tap(x, y)",
        doc: "Tap a point: integers are pixels, floats in 0..1 are fractions of the screen.",
    },
    ToolSpec {
        name: "long_press",
        signature: "long_press(x, y[, ms])",
        doc: "Press and hold a point (default 800 ms).",
    },
    ToolSpec {
        name: "swipe",
        signature: "swipe(x1, y1, x2, y2[, ms])",
        doc: "Swipe from one point to another (default 300 ms); swipe up to scroll down.",
    },
    ToolSpec {
        name: "drag",
        signature: "drag(x1, y1, x2, y2[, ms])",
        doc: "Drag and drop from one point to another (default 1000 ms).",
    },
    ToolSpec {
        name: "input_text",
        signature: "input_text(text)",
        doc: "Type text (any language) into the focused field; tap the field first.",
    },
    ToolSpec { name: "clear_text", signature: "clear_text()", doc: "Empty the focused text field." },
    ToolSpec {
        name: "press_key",
        signature: "press_key(key)",
        doc: "Press a key: \"back\", \"home\", \"enter\", \"delete\", \"tab\", a KEYCODE_ name or a number.",
    },
    ToolSpec {
        name: "back",
        signature: "back()",
        doc: "Press the Back key (hides the keyboard first if it is shown).",
    },
    ToolSpec { name: "home", signature: "home()", doc: "Go to the home screen." },
    ToolSpec { name: "go_home", signature: "go_home()", doc: "Go to the home screen (same as home())." },
    ToolSpec {
        name: "start_app",
        signature: "start_app(package[, activity])",
        doc: "Start an app by package name, optionally at an activity.",
    },
    ToolSpec {
        name: "list_packages",
        signature: "list_packages([include_system])",
        doc: "Installed package names (third-party only unless include_system is true).",
    },
    ToolSpec {
        name: "remember",
        signature: "remember(text)",
        doc: "Keep a fact for later steps (returned by memory()).",
    },
    ToolSpec { name: "memory", signature: "memory()", doc: "The facts remembered so far, as an array of strings." },
    ToolSpec {
        name: "wait",
        signature: "wait(ms)",
        doc: "Wait this many milliseconds (bounded by the snippet's time limit).",
    },
    ToolSpec {
        name: "refresh",
        signature: "refresh()",
        doc: "Read the screen again: ui_state and phone_state are updated.",
    },
    ToolSpec {
        name: "find",
        signature: "find(sel)",
        doc: "The first element matching a selector on the live screen (a map like ui_state's), or ().",
    },
    ToolSpec {
        name: "find_all",
        signature: "find_all(sel)",
        doc: "Every element matching a selector, in reading order.",
    },
    ToolSpec {
        name: "tap",
        signature: "tap(sel)",
        doc: "Tap the element a selector finds: \"Wi-Fi\" (regex over text/desc/hint) or #{id: \"send\", below: \"Title\"}.",
    },
    ToolSpec { name: "long_press", signature: "long_press(sel)", doc: "Long-press the element a selector finds." },
    ToolSpec { name: "set_text", signature: "set_text(sel, text)", doc: "Tap a field, empty it and type text." },
    ToolSpec {
        name: "wait_for",
        signature: "wait_for(sel[, timeout_ms])",
        doc: "Wait until a selector matches (default 5000 ms); returns the element.",
    },
    ToolSpec {
        name: "wait_gone",
        signature: "wait_gone(sel[, timeout_ms])",
        doc: "Wait until nothing matches a selector (default 5000 ms).",
    },
    ToolSpec {
        name: "assert_visible",
        signature: "assert_visible(sel)",
        doc: "Fail the script unless a selector matches on screen.",
    },
    ToolSpec {
        name: "assert_not_visible",
        signature: "assert_not_visible(sel)",
        doc: "Fail the script if a selector matches on screen.",
    },
    ToolSpec {
        name: "scroll_until_visible",
        signature: "scroll_until_visible(sel[, direction])",
        doc: "Swipe (\"down\" by default, or \"up\") until a selector matches; returns the element.",
    },
    ToolSpec {
        name: "complete",
        signature: "complete(success[, reason])",
        doc: "Finish the task: complete(true, \"why\") or complete(false, \"why it failed\").",
    },
];

/// After an action, wait until two consecutive observations agree (bounded).
#[derive(Debug, Clone, Copy)]
pub struct Settle {
    pub enabled: bool,
    pub timeout: Duration,
}

impl Default for Settle {
    fn default() -> Self {
        Self { enabled: true, timeout: Duration::from_secs(3) }
    }
}

/// What the tools share: the device, the snapshot scripts index into, memory.
pub struct ToolContext {
    pub device: Box<dyn Device>,
    /// The observation `ui_state` shows, and its `Dynamic` form.
    snapshot: Option<(Observation, Dynamic, Dynamic)>,
    /// An action ran since the snapshot: indices must be checked before use.
    dirty: bool,
    pub memory: Vec<String>,
    pub settle: Settle,
}

pub type SharedContext = Arc<Mutex<ToolContext>>;

fn lock(ctx: &SharedContext) -> MutexGuard<'_, ToolContext> {
    ctx.lock().unwrap_or_else(|e| e.into_inner())
}

type ToolResult<T> = Result<T, Box<EvalAltResult>>;

impl ToolContext {
    pub fn new(device: Box<dyn Device>) -> SharedContext {
        Arc::new(Mutex::new(Self {
            device,
            snapshot: None,
            dirty: false,
            memory: Vec::new(),
            settle: Settle::default(),
        }))
    }

    /// Observes and makes that observation what `ui_state`/`phone_state` show.
    pub fn refresh(&mut self) -> Result<&Observation, String> {
        let obs = self.device.observe().map_err(|e| e.to_string())?;
        let (ui, phone) = (state::ui_state(&obs), state::phone_state(&obs));
        self.dirty = false;
        Ok(&self.snapshot.insert((obs, ui, phone)).0)
    }

    fn snapshot(&mut self) -> Result<&Observation, String> {
        if self.snapshot.is_none() {
            self.refresh()?;
        }
        self.snapshot.as_ref().map(|s| &s.0).ok_or_else(|| "no observation".to_string())
    }

    /// A fingerprint of what is on screen: equal fingerprints mean nothing moved.
    fn fingerprint(obs: &Observation) -> u64 {
        obs.ui.elements.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, e| {
            let b = e.bounds;
            [e.signature, b.left as u64, b.top as u64, b.right as u64, b.bottom as u64]
                .iter()
                .fold(h, |h, v| (h ^ v).wrapping_mul(0x0100_0000_01b3))
        })
    }

    /// Waits for two equal consecutive observations, within `limit`.
    fn settle(&mut self, limit: Duration) {
        self.dirty = true;
        if !self.settle.enabled {
            return;
        }
        let until = Instant::now() + self.settle.timeout.min(limit);
        let mut last = None;
        while Instant::now() < until {
            let Ok(obs) = self.device.observe() else { return };
            let print = Self::fingerprint(&obs);
            if last == Some(print) {
                return;
            }
            last = Some(print);
        }
    }

    /// The element at `index` in the snapshot, checked against the live screen when
    /// an action may have changed it. Returns its centre.
    fn element_center(&mut self, index: i64) -> Result<(i32, i32), String> {
        let snap = self.snapshot()?;
        let listed = state::listed(&snap.ui);
        let count = listed.len();
        let Some(el) = usize::try_from(index).ok().and_then(|i| listed.get(i)) else {
            return Err(format!("no element {index}: ui_state has indices 0..{}", count.saturating_sub(1)));
        };
        let (signature, label, center) = (el.signature, label(el), el.center);
        if !self.dirty {
            return Ok(center);
        }
        let live = self.device.observe().map_err(|e| e.to_string())?;
        let now = state::listed(&live.ui);
        match now.get(index as usize) {
            Some(e) if e.signature == signature => Ok(e.center),
            _ => Err(format!(
                "ui_state[{index}] ({label}) is no longer at that index: the screen changed after the last action; \
                 call refresh() and look again"
            )),
        }
    }
}

impl ToolContext {
    /// The element map for element `id` of the snapshot (`index` is its ui_state
    /// index, or -1 when ui_state does not list it).
    fn element_value(&self, id: usize) -> Dynamic {
        let Some((obs, _, _)) = &self.snapshot else { return Dynamic::UNIT };
        let listed = state::listed(&obs.ui);
        let index = listed.iter().position(|l| l.id == id).map_or(-1, |i| i as i64);
        match obs.ui.get(id) {
            Some(e) => {
                let mut m = state::element_map(index.max(0) as usize, e);
                m.insert("index".into(), Dynamic::from(index));
                Dynamic::from(m)
            }
            None => Dynamic::UNIT,
        }
    }

    /// Reads the screen (updating ui_state) and returns the ids `sel` matches.
    fn matches(&mut self, sel: &select::Selector) -> Result<Vec<usize>, String> {
        let obs = self.refresh()?;
        Ok(sel.find_all(&obs.ui).into_iter().map(|e| e.id).collect())
    }

    /// The centre of the first match, or an error that says what is on screen.
    fn locate(&mut self, sel: &select::Selector) -> Result<(i32, i32), String> {
        let ids = self.matches(sel)?;
        let obs = self.snapshot()?;
        match ids.first().and_then(|id| obs.ui.get(*id)) {
            Some(e) => Ok(e.center),
            None => {
                let seen: Vec<String> = state::listed(&obs.ui).iter().take(12).map(|e| label(e)).collect();
                Err(format!("nothing on screen matches {}; visible: {}", sel.shown, seen.join(", ")))
            }
        }
    }

    /// Polls until `sel` matches (`present`) or stops matching, within `ms`.
    fn wait(&mut self, sel: &select::Selector, ms: i64, present: bool, limit: Duration) -> Result<Dynamic, String> {
        let ms = u64::try_from(ms).map_err(|_| "timeout_ms must be ≥ 0".to_string())?;
        let until = Instant::now() + Duration::from_millis(ms).min(limit);
        loop {
            let ids = self.matches(sel)?;
            match (present, ids.first()) {
                (true, Some(id)) => return Ok(self.element_value(*id)),
                (false, None) => return Ok(Dynamic::UNIT),
                _ => {}
            }
            if Instant::now() >= until {
                let what = if present { "appear" } else { "go away" };
                return Err(format!("{} did not {what} within {ms} ms", sel.shown));
            }
            std::thread::sleep(Duration::from_millis(50).min(until.saturating_duration_since(Instant::now())));
        }
    }
}

/// Records a finished tool call and turns its error into a script error that names
/// the tool: the one place every tool ends.
fn finish<T>(
    shared: &Shared,
    name: &str,
    args: Vec<String>,
    started: Instant,
    result: Result<T, String>,
) -> ToolResult<T> {
    let summary = match &result {
        Ok(_) => "ok".to_string(),
        Err(e) => e.clone(),
    };
    shared.record(name, args, summary, started);
    result.map_err(|e| format!("{name}: {e}").into())
}

fn selector(v: &Dynamic) -> Result<select::Selector, String> {
    select::Selector::from_dynamic(v)
}

fn label(e: &crate::ui::Element) -> String {
    let text = if e.text.is_empty() { &e.content_desc } else { &e.text };
    format!("{} {text:?}", e.class.rsplit('.').next().unwrap_or("element"))
}

/// Pixels from an int, or a fraction of `size` from a float in 0..=1.
fn coord(v: &Dynamic, size: u32, what: &str) -> Result<i32, String> {
    if let Ok(i) = v.as_int() {
        return i32::try_from(i).map_err(|_| format!("{what} {i} is out of range"));
    }
    match v.as_float() {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok((f * f64::from(size)).round() as i32),
        Ok(f) => Err(format!("{what} {f}: floats are fractions of the screen (0..1); use an integer for pixels")),
        Err(t) => Err(format!("{what} must be a number, not {t}")),
    }
}

/// Registers every tool `allowed` accepts into `sandbox`, and `ui_state` /
/// `phone_state` as variables that always show the latest snapshot.
pub fn install(sandbox: &mut Sandbox, ctx: SharedContext, allowed: &dyn Fn(&str) -> bool) {
    let shared = sandbox.shared();
    let engine = sandbox.engine_mut();
    {
        let ctx = ctx.clone();
        // Marked deprecated only as "volatile"; it is the way to serve live variables.
        #[allow(deprecated)]
        engine.on_var(move |name, _, _| match name {
            "ui_state" | "phone_state" => {
                let mut c = lock(&ctx);
                if c.snapshot.is_none() {
                    c.refresh().map_err(|e| -> Box<EvalAltResult> { e.into() })?;
                }
                Ok(c.snapshot.as_ref().map(|s| if name == "ui_state" { s.1.clone() } else { s.2.clone() }))
            }
            _ => Ok(None),
        });
    }

    // Each tool: record the call, run it on the context, turn errors into script errors.
    macro_rules! tool {
        ($name:literal, |$c:ident $(, $arg:ident : $ty:ty)*| $body:expr) => {
            if allowed($name) {
                let ctx = ctx.clone();
                let shared = shared.clone();
                engine.register_fn($name, move |$($arg: $ty),*| -> ToolResult<_> {
                    let started = Instant::now();
                    let args = vec![$(format!("{:?}", $arg)),*];
                    let mut guard = lock(&ctx);
                    let $c: &mut ToolContext = &mut guard;
                    #[allow(unused_mut)]
                    let mut body = || $body;
                    let result: Result<_, String> = body();
                    finish(&shared, $name, args, started, result)
                });
            }
        };
    }

    let left = {
        let shared = shared.clone();
        move || shared.time_left()
    };
    let l = left.clone();
    tool!("tap_by_index", |c, index: i64| {
        let (x, y) = c.element_center(index)?;
        c.device.tap(x, y).map_err(|e| e.to_string())?;
        c.settle(l());
        Ok(())
    });
    let l = left.clone();
    tool!("long_press_by_index", |c, index: i64| {
        let (x, y) = c.element_center(index)?;
        c.device.long_press(x, y, 800).map_err(|e| e.to_string())?;
        c.settle(l());
        Ok(())
    });
    let l = left.clone();
    tool!("tap", |c, x: Dynamic, y: Dynamic| {
        let (w, h) = c.snapshot()?.screen;
        let (x, y) = (coord(&x, w, "x")?, coord(&y, h, "y")?);
        c.device.tap(x, y).map_err(|e| e.to_string())?;
        c.settle(l());
        Ok(())
    });
    for arity in [2, 3] {
        let l = left.clone();
        let (ctx, shared) = (ctx.clone(), shared.clone());
        if !allowed("long_press") {
            break;
        }
        let run = move |x: Dynamic, y: Dynamic, ms: i64| -> ToolResult<()> {
            let started = Instant::now();
            let mut c = lock(&ctx);
            let result = (|| {
                let (w, h) = c.snapshot()?.screen;
                let (x, y) = (coord(&x, w, "x")?, coord(&y, h, "y")?);
                let ms = u32::try_from(ms).map_err(|_| format!("ms {ms} is out of range"))?;
                c.device.long_press(x, y, ms).map_err(|e| e.to_string())?;
                c.settle(l());
                Ok::<(), String>(())
            })();
            finish(&shared, "long_press", vec![format!("{ms}")], started, result)
        };
        if arity == 2 {
            engine.register_fn("long_press", move |x: Dynamic, y: Dynamic| run(x, y, 800));
        } else {
            engine.register_fn("long_press", run);
        }
    }
    for (name, default_ms) in [("swipe", 300i64), ("drag", 1000)] {
        if !allowed(name) {
            continue;
        }
        let make = |ctx: SharedContext, shared: Arc<Shared>, l: Arc<dyn Fn() -> Duration + Send + Sync>| {
            move |x1: Dynamic, y1: Dynamic, x2: Dynamic, y2: Dynamic, ms: i64| -> ToolResult<()> {
                let started = Instant::now();
                let mut c = lock(&ctx);
                let result = (|| {
                    let (w, h) = c.snapshot()?.screen;
                    let p = (coord(&x1, w, "x1")?, coord(&y1, h, "y1")?, coord(&x2, w, "x2")?, coord(&y2, h, "y2")?);
                    let ms = u32::try_from(ms).map_err(|_| format!("ms {ms} is out of range"))?;
                    let r = if name == "swipe" {
                        c.device.swipe(p.0, p.1, p.2, p.3, ms)
                    } else {
                        c.device.drag(p.0, p.1, p.2, p.3, ms)
                    };
                    r.map_err(|e| e.to_string())?;
                    c.settle(l());
                    Ok::<(), String>(())
                })();
                finish(&shared, name, vec![format!("{ms}")], started, result)
            }
        };
        let l: Arc<dyn Fn() -> Duration + Send + Sync> = Arc::new(left.clone());
        let full = make(ctx.clone(), shared.clone(), l.clone());
        let short = make(ctx.clone(), shared.clone(), l);
        engine.register_fn(name, full);
        engine.register_fn(name, move |x1: Dynamic, y1: Dynamic, x2: Dynamic, y2: Dynamic| {
            short(x1, y1, x2, y2, default_ms)
        });
    }
    let l = left.clone();
    tool!("input_text", |c, text: &str| {
        c.device.input_text(text).map_err(|e| e.to_string())?;
        c.settle(l());
        Ok(())
    });
    let l = left.clone();
    tool!("clear_text", |c| {
        c.device.clear_text().map_err(|e| e.to_string())?;
        c.settle(l());
        Ok(())
    });
    let l = left.clone();
    tool!("press_key", |c, key: &str| {
        c.device.press_key(key).map_err(|e| e.to_string())?;
        c.settle(l());
        Ok(())
    });
    let l = left.clone();
    tool!("back", |c| {
        c.device.press_key("back").map_err(|e| e.to_string())?;
        c.settle(l());
        Ok(())
    });
    for name in ["home", "go_home"] {
        if !allowed(name) {
            continue;
        }
        let (ctx, shared, l) = (ctx.clone(), shared.clone(), left.clone());
        engine.register_fn(name, move || -> ToolResult<()> {
            let started = Instant::now();
            let mut c = lock(&ctx);
            let result = c.device.go_home().map_err(|e| e.to_string());
            if result.is_ok() {
                c.settle(l());
            }
            finish(&shared, name, Vec::new(), started, result)
        });
    }
    let l = left.clone();
    tool!("start_app", |c, package: &str| {
        c.device.start_app(package, None).map_err(|e| e.to_string())?;
        c.settle(l());
        Ok(())
    });
    let l = left.clone();
    tool!("start_app", |c, package: &str, activity: &str| {
        c.device.start_app(package, Some(activity)).map_err(|e| e.to_string())?;
        c.settle(l());
        Ok(())
    });
    tool!("list_packages", |c| {
        let list = c.device.list_packages(false).map_err(|e| e.to_string())?;
        Ok(list.into_iter().map(Dynamic::from).collect::<rhai::Array>())
    });
    tool!("list_packages", |c, include_system: bool| {
        let list = c.device.list_packages(include_system).map_err(|e| e.to_string())?;
        Ok(list.into_iter().map(Dynamic::from).collect::<rhai::Array>())
    });
    tool!("remember", |c, text: &str| {
        c.memory.push(text.to_string());
        Ok(())
    });
    tool!("memory", |c| Ok(c.memory.iter().cloned().map(Dynamic::from).collect::<rhai::Array>()));
    let l = left.clone();
    tool!("wait", |_c, ms: i64| {
        let ms = u64::try_from(ms).map_err(|_| "ms must be ≥ 0".to_string())?;
        let wanted = Duration::from_millis(ms);
        let room = l();
        std::thread::sleep(wanted.min(room));
        if wanted > room { Err(format!("waiting {ms} ms would pass the snippet's time limit")) } else { Ok(()) }
    });
    tool!("refresh", |c| {
        c.refresh()?;
        Ok(())
    });
    tool!("find", |c, sel: Dynamic| {
        let sel = selector(&sel)?;
        let ids = c.matches(&sel)?;
        Ok(ids.first().map_or(Dynamic::UNIT, |id| c.element_value(*id)))
    });
    tool!("find_all", |c, sel: Dynamic| {
        let sel = selector(&sel)?;
        let ids = c.matches(&sel)?;
        Ok(ids.iter().map(|id| c.element_value(*id)).collect::<rhai::Array>())
    });
    let l = left.clone();
    tool!("tap", |c, sel: Dynamic| {
        let (x, y) = c.locate(&selector(&sel)?)?;
        c.device.tap(x, y).map_err(|e| e.to_string())?;
        c.settle(l());
        Ok(())
    });
    let l = left.clone();
    tool!("long_press", |c, sel: Dynamic| {
        let (x, y) = c.locate(&selector(&sel)?)?;
        c.device.long_press(x, y, 800).map_err(|e| e.to_string())?;
        c.settle(l());
        Ok(())
    });
    let l = left.clone();
    tool!("set_text", |c, sel: Dynamic, text: &str| {
        let (x, y) = c.locate(&selector(&sel)?)?;
        c.device.tap(x, y).map_err(|e| e.to_string())?;
        c.device.clear_text().map_err(|e| e.to_string())?;
        c.device.input_text(text).map_err(|e| e.to_string())?;
        c.settle(l());
        Ok(())
    });
    for (name, present) in [("wait_for", true), ("wait_gone", false)] {
        if !allowed(name) {
            continue;
        }
        for with_timeout in [false, true] {
            let (ctx, shared, l) = (ctx.clone(), shared.clone(), left.clone());
            let run = move |sel: Dynamic, ms: i64| -> ToolResult<Dynamic> {
                let started = Instant::now();
                let mut c = lock(&ctx);
                let result = selector(&sel).and_then(|s| c.wait(&s, ms, present, l()));
                finish(&shared, name, vec![format!("{sel}")], started, result)
            };
            if with_timeout {
                engine.register_fn(name, run);
            } else {
                engine.register_fn(name, move |sel: Dynamic| run(sel, 5000));
            }
        }
    }
    tool!("assert_visible", |c, sel: Dynamic| {
        let sel = selector(&sel)?;
        if c.matches(&sel)?.is_empty() {
            Err(format!("assertion failed: {} is not on screen", sel.shown))
        } else {
            Ok(())
        }
    });
    tool!("assert_not_visible", |c, sel: Dynamic| {
        let sel = selector(&sel)?;
        if c.matches(&sel)?.is_empty() { Ok(()) } else { Err(format!("assertion failed: {} is on screen", sel.shown)) }
    });
    for with_direction in [false, true] {
        if !allowed("scroll_until_visible") {
            break;
        }
        let (ctx, shared, l) = (ctx.clone(), shared.clone(), left.clone());
        let run = move |sel: Dynamic, direction: &str| -> ToolResult<Dynamic> {
            let started = Instant::now();
            let mut c = lock(&ctx);
            let mut attempt = || -> Result<Dynamic, String> {
                let s = selector(&sel)?;
                let down = match direction {
                    "down" => true,
                    "up" => false,
                    other => return Err(format!("direction {other:?}: use \"down\" or \"up\"")),
                };
                let mut last = None;
                for _ in 0..15 {
                    if let Some(id) = c.matches(&s)?.first() {
                        return Ok(c.element_value(*id));
                    }
                    let obs = c.snapshot()?;
                    let print = ToolContext::fingerprint(obs);
                    if last == Some(print) {
                        return Err(format!("reached the end of the list without finding {}", s.shown));
                    }
                    last = Some(print);
                    let (w, h) = (obs.screen.0 as i32, obs.screen.1 as i32);
                    let (from, to) = if down { (h * 7 / 10, h * 3 / 10) } else { (h * 3 / 10, h * 7 / 10) };
                    c.device.swipe(w / 2, from, w / 2, to, 300).map_err(|e| e.to_string())?;
                    c.settle(l());
                }
                Err(format!("{} did not show after 15 swipes", s.shown))
            };
            let result = attempt();
            finish(&shared, "scroll_until_visible", vec![format!("{sel}")], started, result)
        };
        if with_direction {
            engine.register_fn("scroll_until_visible", run);
        } else {
            engine.register_fn("scroll_until_visible", move |sel: Dynamic| run(sel, "down"));
        }
    }
}

/// The catalog as the prompt, `codeact tools` and the REPL print it.
pub fn describe(allowed: &dyn Fn(&str) -> bool) -> String {
    CATALOG.iter().filter(|t| allowed(t.name)).map(|t| format!("- {}: {}\n", t.signature, t.doc)).collect()
}
