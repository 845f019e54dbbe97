//! The tool catalog: every function a script can call on the device, declared once
//! with its Rhai signature and the one-line doc the LLM reads, and registered into a
//! [`Sandbox`] from that same declaration. `codeact tools` prints the catalog.
//!
//! Tools act through the [`Device`] trait, record each call, wait for the screen to
//! settle after acting, and never tap a stale index silently. This module does not
//! parse dumps (that is `ui`) nor run scripts (that is `sandbox`).

pub mod apps;
pub mod select;
pub mod state;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rhai::{Dynamic, EvalAltResult};

use crate::device::{Device, Observation};
use crate::sandbox::{Capture, Sandbox, Shared};

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
        name: "open_app",
        signature: "open_app(name)",
        doc: "Open an app by its name in any language (\"Settings\", \"设置\", \"Messages\") or package; returns the package.",
    },
    ToolSpec {
        name: "list_packages",
        signature: "list_packages([include_system])",
        doc: "Installed package names (third-party only unless include_system is true).",
    },
    ToolSpec {
        name: "remember",
        signature: "remember(text)",
        doc: "Keep a fact for later steps (returned by memory(); the last 20 are kept).",
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
        name: "screenshot",
        signature: "screenshot()",
        doc: "Take a screenshot (kept in the trajectory); returns #{width, height, bytes}.",
    },
    ToolSpec {
        name: "find",
        signature: "find(sel)",
        doc: "The first element matching a selector on the live screen (a map like ui_state's; index -1 if ui_state does not show it), or ().",
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
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settle {
    pub enabled: bool,
    pub timeout: Duration,
}

impl Default for Settle {
    fn default() -> Self {
        Self { enabled: true, timeout: Duration::from_secs(3) }
    }
}

/// What each action keeps for the trajectory, besides its name, arguments and timing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Record {
    /// Nothing more (the fastest).
    #[default]
    None,
    /// The UI dump after each action.
    Ui,
    /// The UI dump and a screenshot after each action.
    All,
}

impl std::str::FromStr for Record {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "none" => Ok(Record::None),
            "ui" => Ok(Record::Ui),
            "all" => Ok(Record::All),
            other => Err(format!("record {other:?}: use none, ui or all")),
        }
    }
}

/// How tools behave, set from the CLI, `codeact.toml` or a persona.
#[derive(Debug, Clone)]
pub struct ToolOptions {
    pub settle: Settle,
    /// When set to N, integer coordinates are 0..=N across the screen (1000 for vision
    /// models that answer in per-mille); otherwise they are pixels.
    pub coordinate_scale: Option<u32>,
    pub record: Record,
    pub apps: apps::AppDirectory,
}

impl Default for ToolOptions {
    fn default() -> Self {
        Self { settle: Settle::default(), coordinate_scale: None, record: Record::None, apps: Default::default() }
    }
}

/// What the tools share: the device, the snapshot scripts index into, memory.
pub struct ToolContext {
    pub device: Box<dyn Device>,
    /// The observation `ui_state` shows.
    snapshot: Option<Observation>,
    /// `ui_state` as scripts see it, built from the snapshot when first read.
    ui_value: Option<Dynamic>,
    /// An action ran since the snapshot: indices must be checked before use.
    dirty: bool,
    pub memory: Vec<String>,
    pub options: ToolOptions,
    /// The newest observation made while settling (what the screen showed last).
    latest: Option<Observation>,
    /// What the running tool captured for its action record.
    capture: Capture,
    /// The last screenshot a script took (the agent shows it to a vision model).
    pub last_screenshot: Option<Arc<[u8]>>,
    installed: Option<Vec<String>>,
    /// When the running snippet must stop: tools bound their waits by it.
    deadline: Instant,
}

pub type SharedContext = Arc<Mutex<ToolContext>>;

fn lock(ctx: &SharedContext) -> MutexGuard<'_, ToolContext> {
    ctx.lock().unwrap_or_else(|e| e.into_inner())
}

type ToolResult<T> = Result<T, Box<EvalAltResult>>;

fn device_err(e: crate::device::DeviceError) -> String {
    e.to_string()
}

impl ToolContext {
    pub fn new(device: Box<dyn Device>) -> SharedContext {
        Self::with_options(device, ToolOptions::default())
    }

    pub fn with_options(device: Box<dyn Device>, options: ToolOptions) -> SharedContext {
        Arc::new(Mutex::new(Self {
            device,
            snapshot: None,
            ui_value: None,
            dirty: false,
            memory: Vec::new(),
            options,
            latest: None,
            capture: Capture::default(),
            last_screenshot: None,
            installed: None,
            deadline: Instant::now(),
        }))
    }

    /// Observes and makes that observation what `ui_state`/`phone_state` show.
    pub fn refresh(&mut self) -> Result<&Observation, String> {
        let obs = self.device.observe().map_err(device_err)?;
        self.dirty = false;
        self.latest = None;
        self.ui_value = None;
        Ok(self.snapshot.insert(obs))
    }

    /// Drops the snapshot: the next `ui_state` reads the screen again.
    pub fn forget_snapshot(&mut self) {
        self.installed = None;
        self.snapshot = None;
        self.ui_value = None;
        self.latest = None;
        self.dirty = false;
    }

    /// The observation `ui_state` shows (observing first if there is none yet).
    pub fn snapshot(&mut self) -> Result<&Observation, String> {
        if self.snapshot.is_none() {
            self.refresh()?;
        }
        self.snapshot.as_ref().ok_or_else(|| "no observation".to_string())
    }

    /// Runs `f` with the device bound to `deadline`: no device call inside may
    /// outlast the snippet.
    fn bounded<T>(&mut self, deadline: Instant, f: impl FnOnce(&mut Self) -> T) -> T {
        self.device.set_deadline(Some(deadline));
        let out = f(self);
        self.device.set_deadline(None);
        out
    }

    /// The time the running snippet has left.
    pub fn left(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
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

    /// After an action: wait for the screen to settle (two equal consecutive
    /// observations, within `limit`), then capture what the options ask to record.
    fn after_action(&mut self) {
        let limit = self.left();
        self.dirty = true;
        self.latest = None;
        if self.options.settle.enabled {
            let until = Instant::now() + self.options.settle.timeout.min(limit);
            let mut last = None;
            while Instant::now() < until {
                let Ok(obs) = self.device.observe() else { break };
                let print = Self::fingerprint(&obs);
                let done = last == Some(print);
                last = Some(print);
                self.latest = Some(obs);
                if done {
                    break;
                }
            }
        }
        if self.options.record == Record::None {
            return;
        }
        if self.latest.is_none() {
            self.latest = self.device.observe().ok();
        }
        self.capture.ui_xml = self.latest.as_ref().map(|o| Arc::from(o.dump.as_str()));
        if self.options.record == Record::All {
            self.capture.screenshot = self.device.screenshot().ok().map(Arc::from);
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
        let (signature, label, center, id) = (el.signature, label(el), el.center, el.id);
        if !self.dirty {
            let target = self.snapshot.as_ref().and_then(|snap| select::selector_for(&snap.ui, id));
            self.capture.target = target;
            return Ok(center);
        }
        let live = self.device.observe().map_err(device_err)?;
        let now = state::listed(&live.ui);
        match now.get(index as usize) {
            Some(e) if e.signature == signature => {
                self.capture.target = select::selector_for(&live.ui, e.id);
                Ok(e.center)
            }
            _ => Err(format!(
                "ui_state[{index}] ({label}) is no longer at that index: the screen changed after the last action; \
                 call refresh() and look again"
            )),
        }
    }

    /// A point from script coordinates: pixels, fractions (floats in 0..1), or
    /// 0..=N when the session's coordinate scale is N.
    fn point(&mut self, x: &Dynamic, y: &Dynamic) -> Result<(i32, i32), String> {
        let scale = self.options.coordinate_scale;
        let (w, h) = self.snapshot()?.screen;
        Ok((coord(x, w, scale, "x")?, coord(y, h, scale, "y")?))
    }

    /// The screen as last read: the newest observation, else the snapshot.
    fn live(&self) -> Option<&Observation> {
        self.latest.as_ref().or(self.snapshot.as_ref())
    }

    /// The element map for element `id` of the live screen. Its `index` is the
    /// element's ui_state index when the snapshot lists the very same element there,
    /// else -1: an index never points at something ui_state does not show.
    fn element_value(&self, id: usize) -> Dynamic {
        let Some(e) = self.live().and_then(|o| o.ui.get(id)) else { return Dynamic::UNIT };
        let index = self.snapshot.as_ref().map_or(-1, |snap| {
            state::listed(&snap.ui)
                .iter()
                .position(|l| l.signature == e.signature && l.bounds == e.bounds)
                .map_or(-1, |i| i as i64)
        });
        let mut m = state::element_map(index.max(0) as usize, e);
        m.insert("index".into(), Dynamic::from(index));
        Dynamic::from(m)
    }

    /// Reads the live screen and returns the ids `sel` matches on it. The snapshot
    /// (ui_state, indices) stays as it was, unless there was none yet.
    fn matches(&mut self, sel: &select::Selector) -> Result<Vec<usize>, String> {
        let obs = self.device.observe().map_err(device_err)?;
        let ids = sel.find_all(&obs.ui).into_iter().map(|e| e.id).collect();
        if self.snapshot.is_none() {
            self.snapshot = Some(obs.clone());
            self.ui_value = None;
            self.dirty = false;
        }
        self.latest = Some(obs);
        Ok(ids)
    }

    /// The centre of the first match, or an error that says what is on screen.
    fn locate(&mut self, sel: &select::Selector) -> Result<(i32, i32), String> {
        let ids = self.matches(sel)?;
        let obs = self.live().ok_or_else(|| "no observation".to_string())?;
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
        let wanted = Duration::from_millis(ms);
        let until = Instant::now() + wanted.min(limit);
        let mut last_look = false;
        loop {
            let ids = self.matches(sel)?;
            match (present, ids.first()) {
                (true, Some(id)) => return Ok(self.element_value(*id)),
                (false, None) => return Ok(Dynamic::UNIT),
                _ => {}
            }
            if !last_look {
                std::thread::sleep(Duration::from_millis(50).min(until.saturating_duration_since(Instant::now())));
            }
            // One more look at the timeout itself, unless the snippet's deadline is
            // what ends the wait (the device may not be asked past it).
            if Instant::now() >= until && !last_look && wanted <= limit {
                last_look = true;
                continue;
            }
            if Instant::now() >= until {
                let what = if present { "appear" } else { "go away" };
                let cut = if wanted > limit { " (the snippet's time limit came first)" } else { "" };
                return Err(format!("{} did not {what} within {ms} ms{cut}", sel.shown));
            }
        }
    }

    /// Swipes until `sel` matches; errors at the end of the list.
    fn scroll_until(&mut self, sel: &select::Selector, direction: &str) -> Result<Dynamic, String> {
        let down = match direction {
            "down" => true,
            "up" => false,
            other => return Err(format!("direction {other:?}: use \"down\" or \"up\"")),
        };
        let mut last = None;
        for _ in 0..15 {
            if let Some(id) = self.matches(sel)?.first() {
                return Ok(self.element_value(*id));
            }
            let obs = self.live().ok_or_else(|| "no observation".to_string())?;
            let print = Self::fingerprint(obs);
            if last == Some(print) {
                return Err(format!("reached the end of the list without finding {}", sel.shown));
            }
            last = Some(print);
            let (w, h) = (obs.screen.0 as i32, obs.screen.1 as i32);
            let (from, to) = if down { (h * 7 / 10, h * 3 / 10) } else { (h * 3 / 10, h * 7 / 10) };
            self.device.swipe(w / 2, from, w / 2, to, 300).map_err(device_err)?;
            self.after_action();
        }
        Err(format!("{} did not show after 15 swipes", sel.shown))
    }

    /// Opens an app by what people call it, through the alias table.
    fn open_app(&mut self, name: &str) -> Result<String, String> {
        if self.installed.is_none() {
            self.installed = Some(self.device.list_packages(true).map_err(device_err)?);
        }
        let installed = self.installed.as_deref().unwrap_or_default();
        let package = self.options.apps.resolve(name, installed)?;
        self.device.start_app(&package, None).map_err(device_err)?;
        self.after_action();
        Ok(package)
    }

    /// Takes a screenshot, keeps it for the action record and for the agent.
    fn screenshot(&mut self) -> Result<Dynamic, String> {
        let png: Arc<[u8]> = Arc::from(self.device.screenshot().map_err(device_err)?);
        let mut m = rhai::Map::new();
        let (w, h) = png_size(&png).unwrap_or_default();
        m.insert("width".into(), Dynamic::from(i64::from(w)));
        m.insert("height".into(), Dynamic::from(i64::from(h)));
        m.insert("bytes".into(), Dynamic::from(png.len() as i64));
        self.capture.screenshot = Some(png.clone());
        self.last_screenshot = Some(png);
        Ok(Dynamic::from(m))
    }
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    let w = png.get(16..20)?.try_into().ok().map(u32::from_be_bytes)?;
    let h = png.get(20..24)?.try_into().ok().map(u32::from_be_bytes)?;
    Some((w, h))
}

/// Runs one tool call: locks the context, records the call (with whatever it
/// captured) and turns an error into a script error that names the tool. Every tool
/// goes through here.
fn call<T>(
    ctx: &SharedContext,
    shared: &Shared,
    name: &str,
    args: Vec<String>,
    body: impl FnOnce(&mut ToolContext) -> Result<T, String>,
) -> ToolResult<T> {
    let started = Instant::now();
    let mut c = lock(ctx);
    c.capture = Capture::default();
    c.deadline = started + shared.time_left();
    let deadline = c.deadline;
    let mut result = c.bounded(deadline, body);
    let capture = std::mem::take(&mut c.capture);
    drop(c);
    if let Err(e) = &result
        && Instant::now() >= deadline
    {
        result = Err(format!("{e} (stopped at the snippet's time limit)"));
    }
    let summary = match &result {
        Ok(_) => "ok".to_string(),
        Err(e) => e.clone(),
    };
    shared.record(name, args, summary, started, capture);
    result.map_err(|e| format!("{name}: {e}").into())
}

fn selector(v: &Dynamic) -> Result<select::Selector, String> {
    select::Selector::from_dynamic(v)
}

fn label(e: &crate::ui::Element) -> String {
    let text = if e.text.is_empty() { &e.content_desc } else { &e.text };
    format!("{} {text:?}", e.class.rsplit('.').next().unwrap_or("element"))
}

/// A coordinate on an axis `size` pixels long: an int is pixels (or 0..=N of the
/// screen when `scale` is N), a float in 0..1 is a fraction of the screen.
fn coord(v: &Dynamic, size: u32, scale: Option<u32>, what: &str) -> Result<i32, String> {
    let size_i = i64::from(size);
    if let Ok(i) = v.as_int() {
        return match scale {
            Some(n) if (0..=i64::from(n)).contains(&i) => Ok((i * size_i / i64::from(n.max(1))).min(size_i - 1) as i32),
            Some(n) => Err(format!("{what} {i} is outside 0..{n} (this session reads coordinates as 0..{n})")),
            None if (0..size_i).contains(&i) => Ok(i as i32),
            None => Err(format!("{what} {i} is off the screen (0..{}); use pixels inside it", size_i - 1)),
        };
    }
    match v.as_float() {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok(((f * size as f64).round() as i32).min(size as i32 - 1).max(0)),
        Ok(f) => Err(format!("{what} {f}: floats are fractions of the screen (0..1); use an integer for pixels")),
        Err(t) => Err(format!("{what} must be a number, not {t}")),
    }
}

/// A gesture's duration: 0..60000 ms, and short enough to end before the snippet's
/// deadline (the device would otherwise hold the snippet past its limit).
fn ms_arg(ms: i64, left: Duration) -> Result<u32, String> {
    let ms = u32::try_from(ms).ok().filter(|m| *m <= 60_000).ok_or_else(|| format!("ms {ms}: use 0..60000"))?;
    if Duration::from_millis(u64::from(ms)) >= left {
        return Err(format!("a {ms} ms gesture would pass the snippet's time limit ({} ms left)", left.as_millis()));
    }
    Ok(ms)
}

/// Registers every tool `allowed` accepts into `sandbox`, and `ui_state` /
/// `phone_state` as variables that always show the latest snapshot.
pub fn install(sandbox: &mut Sandbox, ctx: SharedContext, allowed: &dyn Fn(&str) -> bool) {
    let shared = sandbox.shared();
    let engine = sandbox.engine_mut();
    {
        let (ctx, shared) = (ctx.clone(), shared.clone());
        // Marked deprecated only as "volatile"; it is the way to serve live variables.
        #[allow(deprecated)]
        engine.on_var(move |name, _, _| match name {
            "ui_state" | "phone_state" => {
                let mut c = lock(&ctx);
                if c.snapshot.is_none() {
                    // The first read observes: it too must end by the snippet's deadline.
                    let read = c.bounded(Instant::now() + shared.time_left(), |c| c.refresh().map(drop));
                    read.map_err(|e| -> Box<EvalAltResult> { format!("reading {name}: {e}").into() })?;
                }
                let c = &mut *c;
                let Some(snapshot) = &c.snapshot else { return Ok(None) };
                if name == "ui_state" {
                    return Ok(Some(c.ui_value.get_or_insert_with(|| state::ui_state(snapshot)).clone()));
                }
                // Indices belong to the snapshot; the phone's state has none, so it
                // shows the newest observation (the one an action settled on).
                Ok(Some(state::phone_state(c.latest.as_ref().unwrap_or(snapshot))))
            }
            _ => Ok(None),
        });
    }

    // `tool!("name", |c, arg: Type, ...| body)` registers one overload: `c` is the
    // locked context (`c.left()` is the time the snippet has left), the body returns
    // Result<T, String>. Overloads with defaults call the full form's body.
    macro_rules! tool {
        ($name:expr, |$c:ident $(, $arg:ident : $ty:ty)*| $body:expr) => {
            if allowed($name) {
                let ctx = ctx.clone();
                let shared = shared.clone();
                engine.register_fn($name, move |$($arg: $ty),*| -> ToolResult<_> {
                    let args = vec![$(format!("{:?}", $arg)),*];
                    call(&ctx, &shared, $name, args, |$c: &mut ToolContext| $body)
                });
            }
        };
    }

    tool!("tap_by_index", |c, index: i64| {
        let (x, y) = c.element_center(index)?;
        c.device.tap(x, y).map_err(device_err)?;
        c.after_action();
        Ok(())
    });
    tool!("long_press_by_index", |c, index: i64| {
        let (x, y) = c.element_center(index)?;
        c.device.long_press(x, y, 800).map_err(device_err)?;
        c.after_action();
        Ok(())
    });
    tool!("tap", |c, x: Dynamic, y: Dynamic| {
        let (x, y) = c.point(&x, &y)?;
        c.device.tap(x, y).map_err(device_err)?;
        c.after_action();
        Ok(())
    });
    let long_press = |c: &mut ToolContext, x: &Dynamic, y: &Dynamic, ms: i64| {
        let ms = ms_arg(ms, c.left())?;
        let (x, y) = c.point(x, y)?;
        c.device.long_press(x, y, ms).map_err(device_err)?;
        c.after_action();
        Ok(())
    };
    tool!("long_press", |c, x: Dynamic, y: Dynamic| long_press(c, &x, &y, 800));
    tool!("long_press", |c, x: Dynamic, y: Dynamic, ms: i64| long_press(c, &x, &y, ms));
    for (name, default_ms) in [("swipe", 300i64), ("drag", 1000)] {
        let gesture = move |c: &mut ToolContext, p: [&Dynamic; 4], ms: i64| {
            let ms = ms_arg(ms, c.left())?;
            let (x1, y1) = c.point(p[0], p[1])?;
            let (x2, y2) = c.point(p[2], p[3])?;
            let r =
                if name == "swipe" { c.device.swipe(x1, y1, x2, y2, ms) } else { c.device.drag(x1, y1, x2, y2, ms) };
            r.map_err(device_err)?;
            c.after_action();
            Ok(())
        };
        tool!(name, |c, x1: Dynamic, y1: Dynamic, x2: Dynamic, y2: Dynamic| {
            gesture(c, [&x1, &y1, &x2, &y2], default_ms)
        });
        tool!(name, |c, x1: Dynamic, y1: Dynamic, x2: Dynamic, y2: Dynamic, ms: i64| {
            gesture(c, [&x1, &y1, &x2, &y2], ms)
        });
    }
    tool!("input_text", |c, text: &str| {
        c.device.input_text(text).map_err(device_err)?;
        c.after_action();
        Ok(())
    });
    tool!("clear_text", |c| {
        c.device.clear_text().map_err(device_err)?;
        c.after_action();
        Ok(())
    });
    tool!("press_key", |c, key: &str| {
        c.device.press_key(key).map_err(device_err)?;
        c.after_action();
        Ok(())
    });
    tool!("back", |c| {
        c.device.press_key("back").map_err(device_err)?;
        c.after_action();
        Ok(())
    });
    for name in ["home", "go_home"] {
        tool!(name, |c| {
            c.device.go_home().map_err(device_err)?;
            c.after_action();
            Ok(())
        });
    }
    tool!("start_app", |c, package: &str| {
        c.device.start_app(package, None).map_err(device_err)?;
        c.after_action();
        Ok(())
    });
    tool!("start_app", |c, package: &str, activity: &str| {
        c.device.start_app(package, Some(activity)).map_err(device_err)?;
        c.after_action();
        Ok(())
    });
    tool!("open_app", |c, name: &str| c.open_app(name));
    tool!("list_packages", |c| {
        let list = c.device.list_packages(false).map_err(device_err)?;
        Ok(list.into_iter().map(Dynamic::from).collect::<rhai::Array>())
    });
    tool!("list_packages", |c, include_system: bool| {
        let list = c.device.list_packages(include_system).map_err(device_err)?;
        Ok(list.into_iter().map(Dynamic::from).collect::<rhai::Array>())
    });
    tool!("remember", |c, text: &str| {
        if text.len() > MEMORY_ITEM_BYTES {
            return Err(format!("keep facts short: {} bytes is over {MEMORY_ITEM_BYTES}", text.len()));
        }
        if c.memory.len() == MEMORY_ITEMS {
            c.memory.remove(0);
        }
        c.memory.push(text.to_string());
        Ok(())
    });
    tool!("memory", |c| Ok(c.memory.iter().cloned().map(Dynamic::from).collect::<rhai::Array>()));
    tool!("wait", |c, ms: i64| {
        let ms = u64::try_from(ms).map_err(|_| "ms must be ≥ 0".to_string())?;
        let wanted = Duration::from_millis(ms);
        let room = c.left();
        std::thread::sleep(wanted.min(room));
        if wanted > room { Err(format!("waiting {ms} ms would pass the snippet's time limit")) } else { Ok(()) }
    });
    tool!("refresh", |c| {
        c.refresh()?;
        Ok(())
    });
    tool!("screenshot", |c| c.screenshot());
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
    tool!("tap", |c, sel: Dynamic| {
        let (x, y) = c.locate(&selector(&sel)?)?;
        c.device.tap(x, y).map_err(device_err)?;
        c.after_action();
        Ok(())
    });
    tool!("long_press", |c, sel: Dynamic| {
        let (x, y) = c.locate(&selector(&sel)?)?;
        c.device.long_press(x, y, 800).map_err(device_err)?;
        c.after_action();
        Ok(())
    });
    tool!("set_text", |c, sel: Dynamic, text: &str| {
        let (x, y) = c.locate(&selector(&sel)?)?;
        c.device.tap(x, y).map_err(device_err)?;
        // The field must have focus (and its keyboard) before it is emptied.
        c.after_action();
        c.device.clear_text().map_err(device_err)?;
        c.device.input_text(text).map_err(device_err)?;
        c.after_action();
        Ok(())
    });
    for (name, present) in [("wait_for", true), ("wait_gone", false)] {
        tool!(name, |c, sel: Dynamic| c.wait(&selector(&sel)?, 5000, present, c.left()));
        tool!(name, |c, sel: Dynamic, timeout_ms: i64| c.wait(&selector(&sel)?, timeout_ms, present, c.left()));
    }
    tool!("assert_visible", |c, sel: Dynamic| {
        let sel = selector(&sel)?;
        if c.matches(&sel)?.is_empty() { Err(format!("{ASSERTION} {} is not on screen", sel.shown)) } else { Ok(()) }
    });
    tool!("assert_not_visible", |c, sel: Dynamic| {
        let sel = selector(&sel)?;
        if c.matches(&sel)?.is_empty() { Ok(()) } else { Err(format!("{ASSERTION} {} is on screen", sel.shown)) }
    });
    tool!("scroll_until_visible", |c, sel: Dynamic| c.scroll_until(&selector(&sel)?, "down"));
    tool!("scroll_until_visible", |c, sel: Dynamic, direction: &str| { c.scroll_until(&selector(&sel)?, direction) });
}

/// `remember()` keeps this many facts (the oldest go first), each at most this long:
/// memory is shown to the LLM every step, so it must stay small.
pub const MEMORY_ITEMS: usize = 20;
pub const MEMORY_ITEM_BYTES: usize = 1000;

/// How an assertion tool's error starts, so reports can tell failures from errors.
pub const ASSERTION: &str = "assertion failed:";

/// The catalog as the prompt, `codeact tools` and the REPL print it.
pub fn describe(allowed: &dyn Fn(&str) -> bool) -> String {
    CATALOG.iter().filter(|t| allowed(t.name)).map(|t| format!("- {}: {}\n", t.signature, t.doc)).collect()
}

/// The catalog as a Markdown table (the README's copy; `codeact tools --markdown`).
pub fn markdown_table(allowed: &dyn Fn(&str) -> bool) -> String {
    let mut out = String::from("| Tool | What it does |\n|---|---|\n");
    for t in CATALOG.iter().filter(|t| allowed(t.name)) {
        out.push_str(&format!("| `{}` | {} |\n", t.signature, t.doc.replace('|', "\\|")));
    }
    out
}
