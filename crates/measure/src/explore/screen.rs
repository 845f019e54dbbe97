//! What the explorer sees on one screen: the screen's key (which screens count as
//! the same), the activity in front (fully qualified), and the actions the screen
//! offers — each a line of Rhai with a selector, so the path to any screen is a
//! script that replays. Not the walk itself (`systematic.rs`).

use codeact_engine::emit::rhai::string as rhai_string;
use codeact_platform::device::Observation;
use codeact_platform::ui::StableHasher;
use codeact_platform::ui::{Element, UiTree};
use codeact_tools::{selector_for, toggle_selector_for};

use super::persona::UserPersona;
use codeact_tools::call::ToolCall;

/// `.Main` or `Main` in `package` → `package.Main`; full names stay.
pub fn qualify(package: &str, activity: &str) -> String {
    if activity.is_empty() {
        String::new()
    } else if activity.starts_with('.') {
        format!("{package}{activity}")
    } else if !activity.contains('.') {
        format!("{package}.{activity}")
    } else {
        activity.to_string()
    }
}

/// The activity in front, fully qualified.
pub fn activity_of(obs: &Observation) -> String {
    qualify(&obs.phone.package, &obs.phone.activity)
}

/// Which screens count as one: the app and activity, and the kinds of things one
/// can act on (class and id, or label where there is no id) — not list contents,
/// which change as the app's data does.
pub fn screen_key(obs: &Observation) -> u64 {
    let mut parts: Vec<String> = obs
        .ui
        .elements
        .iter()
        .filter(|e| e.visible && (e.actions.touch || e.actions.set_text || e.actions.scroll || e.actions.long_touch))
        .map(|e| {
            let name = if e.resource_id.is_empty() { e.content_desc.as_str() } else { e.resource_id.as_str() };
            format!("{}|{name}", e.class)
        })
        .collect();
    parts.sort();
    parts.dedup();
    let mut h = StableHasher::default();
    h.field(obs.phone.package.as_bytes()).field(activity_of(obs).as_bytes());
    for p in &parts {
        h.field(p.as_bytes());
    }
    h.finish()
}

/// What an action does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Fill a field (first: forms are filled before they are sent).
    Type,
    Tap,
    LongPress,
    Scroll,
    /// The Back key (last: it leaves the screen).
    Back,
}

/// One thing to do on a screen.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Candidate {
    /// Stable within its screen: the kind and the element's signature.
    pub key: u64,
    pub kind: Kind,
    /// The snippet that does it (`tap(#{id: "…"})`).
    pub code: String,
    /// The element's signature (widget identity across screens), 0 for Back.
    pub widget: u64,
    /// A few words for people: `tap "Save"`.
    pub label: String,
}

fn label_of(e: &Element) -> String {
    let words = [&e.text, &e.content_desc, &e.hint].into_iter().find(|s| !s.is_empty()).cloned().unwrap_or_else(|| {
        let id = e.resource_id.rsplit('/').next().unwrap_or("");
        if id.is_empty() { e.class.rsplit('.').next().unwrap_or("view").to_string() } else { id.to_string() }
    });
    codeact_base::clip::clip(&words, 40).into_owned()
}

/// The selector of `e` on `tree`, or its centre when none finds it first. Never by
/// the own text of what changes it (a field's content, a switch's ON/OFF).
fn target(tree: &UiTree, e: &Element) -> String {
    let selector =
        if e.checkable || e.actions.set_text { toggle_selector_for(tree, e.id) } else { selector_for(tree, e.id) };
    selector.unwrap_or_else(|| format!("{}, {}", e.center.0, e.center.1))
}

/// Where on a canvas the explorer taps when it has no screenshot: a 3 × 4 grid
/// of cell centres.
const GRID: [(f64, f64); 12] = {
    let mut g = [(0.0, 0.0); 12];
    let mut i = 0;
    while i < 12 {
        g[i] = ((i % 3) as f64 / 3.0 + 1.0 / 6.0, (i / 3) as f64 * 0.25 + 0.125);
        i += 1;
    }
    g
};

/// Whether `obs` shows a canvas of `app` (then candidates want a screenshot).
pub fn has_canvas(obs: &Observation, app: &str) -> bool {
    obs.ui.elements.iter().any(|e| e.visible && e.package == app && is_canvas(e, &obs.ui))
}

/// A surface the app draws on itself: a SurfaceView, TextureView or GL view, or a
/// big leaf with nothing to act on.
fn is_canvas(e: &Element, tree: &UiTree) -> bool {
    let surface = ["SurfaceView", "TextureView", "GLSurfaceView"].iter().any(|c| e.class.ends_with(c));
    let area = i64::from(e.bounds.width()) * i64::from(e.bounds.height());
    let screen = i64::from(tree.screen.0) * i64::from(tree.screen.1);
    let big_leaf = e.children.is_empty() && !e.actions.touch && screen > 0 && area * 5 >= screen * 2;
    surface || big_leaf
}

/// Words of a button that sends a form: tried first after the fields are filled.
const SUBMIT: &[&str] = &["save", "done", "ok", "add", "create", "send", "submit", "confirm", "apply", "next", "set"];
/// Words of a button that leaves: tried after the others.
const LEAVE: &[&str] = &["navigate up", "cancel", "close", "discard", "back", "dismiss"];

fn words_of(e: &Element) -> String {
    format!("{} {}", e.text, e.content_desc).trim().to_lowercase()
}

/// Where a tap goes among the taps: 0 sends a form, 1 anything else, 2 leaves.
fn tap_rank(e: &Element) -> u8 {
    let words = words_of(e);
    let short_id = e.resource_id.rsplit('/').next().unwrap_or("").to_lowercase();
    let says = |list: &[&str]| list.iter().any(|w| words == *w || short_id.starts_with(w));
    if says(LEAVE) {
        2
    } else if says(SUBMIT) {
        0
    } else {
        1
    }
}

/// The actions `obs` offers inside `app`, in the order the explorer tries them:
/// fields, then taps (those that send a form first, those that leave last), long
/// presses, scrolls, then Back (`screenshot` shows what a canvas draws). A tap
/// that sends a form fills the screen's fields
/// first, as a person would, so that sending it can succeed (and the way through
/// it replays).
pub fn candidates(obs: &Observation, app: &str, user: &UserPersona, screenshot: Option<&[u8]>) -> Vec<Candidate> {
    let tree = &obs.ui;
    let mine: Vec<&Element> = tree.elements.iter().filter(|e| e.visible && e.enabled && e.package == app).collect();
    let mut fills = Vec::new();
    let mut out: Vec<(u8, Candidate)> = Vec::new();
    for e in &mine {
        let at = target(tree, e);
        let mut add = |kind: Kind, rank: u8, code: String, label: String| {
            let mut h = StableHasher::default();
            h.field(&[kind as u8]).field(&e.signature.to_le_bytes());
            out.push((rank, Candidate { key: h.finish(), kind, code, widget: e.signature, label }));
        };
        if e.actions.set_text && !e.password {
            // An empty field shows its hint as its text on many Androids: the hint,
            // then the text, say what the field is for before its id does.
            let value = user.value_for(&[&e.hint, &e.text, &e.content_desc, &e.resource_id]);
            let code = ToolCall::set_text(&at, &value).expr();
            fills.push(code.clone());
            add(Kind::Type, 0, code, format!("type {value:?} into {}", label_of(e)));
            continue;
        }
        if e.actions.touch {
            add(Kind::Tap, tap_rank(e), ToolCall::tap(&at).expr(), format!("tap {:?}", label_of(e)));
        }
        if e.actions.long_touch {
            add(Kind::LongPress, 0, ToolCall::long_press(&at).expr(), format!("long-press {:?}", label_of(e)));
        }
        if e.actions.scroll {
            add(Kind::Scroll, 0, ToolCall::scroll(&at, "down").expr(), format!("scroll {:?} down", label_of(e)));
        }
    }
    // A canvas (a game, a map, a drawing) hides what it draws from the tree: tap
    // what the screenshot shows drawn on it, else a grid over it.
    let (sw, sh) = (tree.screen.0.max(1) as f64, tree.screen.1.max(1) as f64);
    for e in mine.iter().filter(|e| is_canvas(e, tree)) {
        let places: Vec<(i32, i32)> = match screenshot {
            Some(png) => super::visual::drawn_places(png, e.bounds),
            None => GRID
                .iter()
                .map(|(fx, fy)| {
                    let x = f64::from(e.bounds.left) + fx * f64::from(e.bounds.width());
                    let y = f64::from(e.bounds.top) + fy * f64::from(e.bounds.height());
                    (x as i32, y as i32)
                })
                .collect(),
        };
        for (x, y) in places {
            // Keyed by where, to a fingertip: the same thing drawn again is the same action.
            let mut h = StableHasher::default();
            h.field(&[Kind::Tap as u8])
                .field(&e.signature.to_le_bytes())
                .field(&(x / 48).to_le_bytes())
                .field(&(y / 48).to_le_bytes());
            let key = h.finish();
            out.push((
                1,
                Candidate {
                    key,
                    kind: Kind::Tap,
                    code: ToolCall::tap_fraction(f64::from(x) / sw, f64::from(y) / sh).expr(),
                    widget: key,
                    label: format!("tap what is drawn at {x}, {y}"),
                },
            ));
        }
    }
    if !fills.is_empty() {
        let prefix = fills.join("; ");
        for (rank, c) in out.iter_mut().filter(|(_, c)| c.kind == Kind::Tap) {
            if *rank == 0 {
                c.code = format!("{prefix}; {}", c.code);
                c.label = format!("fill the form, then {}", c.label);
            }
        }
    }
    out.sort_by_key(|(rank, c)| (c.kind, *rank));
    let mut list: Vec<Candidate> = out.into_iter().map(|(_, c)| c).collect();
    list.push(Candidate {
        key: 0,
        kind: Kind::Back,
        code: ToolCall::back().expr(),
        widget: 0,
        label: "press Back".into(),
    });
    list
}

/// The line that starts `app` for a path to replay: clean (its data forgotten), or
/// stopped and started where clearing is not possible or not wanted.
pub fn start_line(app: &str, clean: bool) -> String {
    match clean {
        true => ToolCall::start_app_clean(app).expr(),
        false => format!("{}; {}", ToolCall::stop_app(app).expr(), ToolCall::start_app(app).expr()),
    }
}

/// A short hex name for a screen key (`s3fa2c1d0`).
pub fn screen_name(key: u64) -> String {
    format!("s{:08x}", key >> 32)
}

/// A selector that tells this screen apart and does not depend on the app's data:
/// an id of the app's own that is there once, outside any list, else the title (text near the top
/// that is not a button). What a test found here asserts at its end.
pub fn anchor(obs: &Observation, app: &str) -> Option<String> {
    let tree = &obs.ui;
    let in_list = |e: &Element| {
        let mut parent = e.parent;
        while let Some(p) = parent.and_then(|p| tree.get(p)) {
            if p.scrollable {
                return true;
            }
            parent = p.parent;
        }
        false
    };
    let mine = || tree.elements.iter().filter(|e| e.visible && e.package == app && !e.is_editable());
    // The app's own ids only: `android:id/content` is on every screen.
    let own_id = format!("{app}:id/");
    let by_id = mine().find(|e| {
        e.resource_id.starts_with(&own_id)
            && !in_list(e)
            && !e.checkable
            && tree.elements.iter().filter(|o| o.resource_id == e.resource_id).count() == 1
    });
    if let Some(e) = by_id {
        return Some(format!("#{{id: {}}}", rhai_string(&e.resource_id)));
    }
    let top = tree.screen.1 as i32 / 6;
    mine()
        .find(|e| !e.text.is_empty() && !e.clickable && !in_list(e) && e.bounds.top < top)
        .map(|e| format!("#{{text: {}}}", rhai_string(&e.text)))
}
