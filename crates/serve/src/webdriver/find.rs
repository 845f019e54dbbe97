//! Finding elements (`POST /element(s)`, and below an element): `id` (Android's
//! resource id, whole or the part after `:id/`; iOS's `name`; HarmonyOS's `id`),
//! `accessibility id` (the content description; iOS's `name`), `class name` (the
//! source's tag or the widget class), `name`, `xpath` (over the page source,
//! `xpath.rs`), `-android uiautomator` (`uiselector.rs`; a `UiScrollable` swipes
//! until its target shows), and codeact's own ways: `-custom`/`ai` (a description
//! the session's vision model locates, `locate(...)`) and `-image`/`image` (a
//! reference picture: a gallery name, or a base64 PNG matched on a screenshot).
//! Tree locators wait up to the session's implicit timeout, looking again every
//! [`POLL`]; a found element is a reference (`session.rs`). Not what is done with
//! one (`element.rs`).

use std::time::{Duration, Instant};

use base64::Engine as _;
use codeact_platform::device::Platform;
use codeact_platform::ui::{Bounds, UiTree};
use codeact_runtime::session::Screen;
use serde_json::{Value, json};

use super::element::{Resolved, reference, resolve};
use super::session::{Held, Place, WdSession};
use super::source::Page;
use super::uiselector::{self, Asked};
use super::wire::{Failure, Reply, clipped, invalid, no_such_element, unknown_error};
use codeact_engine::emit::rhai::string as rhai_string;
use codeact_tools::call::ToolCall;

/// How often a waiting find looks again.
const POLL: Duration = Duration::from_millis(250);

/// The longest locator a client may send (but a picture).
const MOST_LOCATOR: usize = 10_000;

/// The largest reference picture a client may send (decoded).
const MOST_PICTURE_SIDE: u32 = 4096;

fn invalid_selector(using: &str, value: &str, why: &str) -> Failure {
    Failure::new("invalid selector", format!("the {using} selector {} could not be read: {why}", clipped(value, 200)))
}

/// `POST /element(s)`, `/element/:id/element(s)`: W3C's `{"using", "value"}`.
pub fn find(s: &mut WdSession, scope: Option<&str>, multiple: bool, body: &Value) -> Reply {
    let using = body.get("using").and_then(Value::as_str).ok_or_else(|| invalid("'using' must be a string"))?;
    let value = body.get("value").and_then(Value::as_str).ok_or_else(|| invalid("'value' must be a string"))?;
    let command = if multiple { "POST /elements" } else { "POST /element" };
    // A locator is words (a picture aside): bounded before it is matched, echoed or recorded.
    if !matches!(using, "-image" | "image") && value.chars().count() > MOST_LOCATOR {
        return Err(invalid_selector(using, value, &format!("it is longer than {MOST_LOCATOR} characters")));
    }
    match using {
        "-custom" | "ai" => return by_model(s, value, multiple),
        "-image" | "image" => return by_picture(s, value, multiple),
        _ => {}
    }
    let deadline = Instant::now() + s.implicit;
    let mut swipes = 0;
    loop {
        let obs = s.look()?;
        let scope_id = match scope {
            Some(id) => match resolve(s, &obs, id)? {
                Resolved::Tree(at) => Some(at),
                Resolved::Place(..) => return Err(invalid("a picture's or a model's find has no elements below it")),
            },
            None => None,
        };
        let page = Page::of(&obs);
        let ids = match on_tree(&obs.ui, &page, using, value, scope_id)? {
            Found::Ids(ids) => ids,
            Found::Scroll { within: Some(list), horizontal, max_swipes } if swipes < max_swipes => {
                swipes += 1;
                if scroll_once(s, command, &obs.ui, list, horizontal) {
                    continue;
                }
                Vec::new()
            }
            Found::Scroll { .. } => Vec::new(),
        };
        if !ids.is_empty() || Instant::now() >= deadline {
            let refs: Vec<Value> = ids
                .iter()
                .take(if multiple { usize::MAX } else { 1 })
                .filter_map(|id| obs.ui.get(*id))
                .map(|e| reference(&s.remember(Held::Tree { signature: e.signature, bounds: e.bounds })))
                .collect();
            if multiple {
                return Ok(Value::Array(refs));
            }
            return refs.into_iter().next().ok_or_else(|| no_such_element(&format!("{using} {value}")));
        }
        std::thread::sleep(POLL.min(deadline.saturating_duration_since(Instant::now())));
    }
}

/// What a tree locator found: elements, or (a `UiScrollable`) a list to scroll.
enum Found {
    Ids(Vec<usize>),
    Scroll { within: Option<usize>, horizontal: bool, max_swipes: usize },
}

/// The elements a tree locator finds on one look.
fn on_tree(tree: &UiTree, page: &Page, using: &str, value: &str, scope: Option<usize>) -> Result<Found, Failure> {
    // A subtree is contiguous in pre-order: the scope's own id, then its descendants.
    let span = scope.map(|s| (s, s + tree.subtree(s).len()));
    let below = |id: usize| span.is_none_or(|(first, end)| id > first && id < end);
    let by = |test: &dyn Fn(usize) -> bool| -> Found {
        Found::Ids(tree.elements.iter().map(|e| e.id).filter(|id| below(*id) && test(*id)).collect())
    };
    let attr = |id: usize, name: &str| page.attribute(id, name).unwrap_or("").to_string();
    let platform = page.platform;
    Ok(match using {
        "id" => match platform {
            Platform::Android => {
                let short = format!(":id/{value}");
                by(&|id| {
                    let rid = attr(id, "resource-id");
                    rid == value || (!value.contains(":id/") && rid.ends_with(&short))
                })
            }
            Platform::Ios => by(&|id| attr(id, "name") == value),
            Platform::Harmony => by(&|id| attr(id, "id") == value),
        },
        "accessibility id" => match platform {
            Platform::Android => by(&|id| attr(id, "content-desc") == value),
            Platform::Ios => by(&|id| attr(id, "name") == value),
            Platform::Harmony => by(&|id| attr(id, "description") == value || attr(id, "id") == value),
        },
        "class name" => by(&|id| page.tags.get(id).is_some_and(|t| t == value) || tree.elements[id].class == value),
        "name" => by(&|id| page.attribute(id, "name") == Some(value) || tree.elements[id].text == value),
        "xpath" => {
            let xml = page.xml(tree);
            Found::Ids(
                super::xpath::find(tree, &xml, value, scope).map_err(|why| invalid_selector(using, value, &why))?,
            )
        }
        "-android uiautomator" if platform != Platform::Android => {
            return Err(Failure::new(
                "invalid selector",
                format!(
                    "-android uiautomator is Android's locator, and this session's phone runs {}: use xpath, accessibility id, id or class name",
                    platform.name()
                ),
            ));
        }
        "-android uiautomator" => match uiselector::parse(value).map_err(|why| invalid_selector(using, value, &why))? {
            Asked::Plain(selector) => Found::Ids(uiselector::find(&selector, tree, scope)),
            Asked::Scroll { within, target, horizontal, max_swipes } => {
                let found = uiselector::find(&target, tree, scope);
                if found.is_empty() {
                    let list = uiselector::find(&within, tree, scope).into_iter().next();
                    Found::Scroll { within: list, horizontal, max_swipes }
                } else {
                    Found::Ids(found)
                }
            }
        },
        other => {
            return Err(Failure::new(
                "invalid selector",
                format!(
                    "the locator strategy {} is not one codeact serves: use id, accessibility id, class name, name, xpath, -android uiautomator, -custom (a description for the vision model) or -image (a picture)",
                    clipped(other, 60)
                ),
            ));
        }
    })
}

/// One swipe of a scrolling list toward its end (a recorded step); whether the
/// screen moved.
fn scroll_once(s: &mut WdSession, command: &str, tree: &UiTree, list: usize, horizontal: bool) -> bool {
    let Some(e) = tree.get(list) else { return false };
    // Only the part of the list on the screen is swiped.
    let screen = Bounds { left: 0, top: 0, right: tree.screen.0 as i32, bottom: tree.screen.1 as i32 };
    let Some(b) = e.bounds.within(&screen).or((screen.is_empty()).then_some(e.bounds)) else { return false };
    let (cx, cy) = b.center();
    let (from, to) = if horizontal {
        ((b.left + b.width() * 3 / 4, cy), (b.left + b.width() / 4, cy))
    } else {
        ((cx, b.top + b.height() * 3 / 4), (cx, b.top + b.height() / 4))
    };
    let before: Vec<u64> = tree.elements.iter().map(|e| e.signature).collect();
    let swiped = s.run(
        command,
        &[ToolCall::swipe_points((from.0.into(), from.1.into()), (to.0.into(), to.1.into()), Some(300))],
        Screen::Live,
    );
    if swiped.error.is_some() {
        return false;
    }
    s.session
        .observe(false)
        .is_ok_and(|after| after.ui.elements.iter().map(|e| e.signature).collect::<Vec<_>>() != before)
}

/// Bounds from a script's element map (`bounds: [l, t, r, b]`).
fn bounds_of(map: &Value) -> Option<Bounds> {
    let b = map.get("bounds")?.as_array()?;
    let n = |i: usize| b.get(i).and_then(Value::as_i64).map(|v| v.clamp(-1_000_000, 1_000_000) as i32);
    Some(Bounds { left: n(0)?, top: n(1)?, right: n(2)?, bottom: n(3)? })
}

/// The answer to a find that has one place (or none).
fn one_place(s: &mut WdSession, place: Option<Place>, multiple: bool, what: &str) -> Reply {
    let found = place.map(|place| reference(&s.remember(Held::Place(place))));
    match (found, multiple) {
        (Some(r), true) => Ok(json!([r])),
        (None, true) => Ok(json!([])),
        (Some(r), false) => Ok(r),
        (None, false) => Err(no_such_element(what)),
    }
}

/// `-custom`: the session's vision model locates a description (`locate(...)`).
fn by_model(s: &mut WdSession, description: &str, multiple: bool) -> Reply {
    // A find is a read: not a step of the record (a replay would ask the model again);
    // the act on what it found is, by the selector of what it hit.
    let ran = s.session.call_json(&ToolCall::locate(description));
    if let Some(e) = &ran.error {
        return Err(unknown_error(format!("the model could not locate {}: {}", clipped(description, 120), e.message)));
    }
    let value: Value = ran.value.as_deref().and_then(|v| serde_json::from_str(v).ok()).unwrap_or(Value::Null);
    let place = bounds_of(&value).map(|rect| Place { rect, class: codeact_tools::select::AI_CLASS, score: None });
    one_place(s, place, multiple, &format!("-custom {description}"))
}

/// `-image`: a gallery name (`find(#{image: NAME})`), or a base64 PNG matched on
/// a screenshot of the phone.
fn by_picture(s: &mut WdSession, value: &str, multiple: bool) -> Reply {
    let value = value.trim();
    if codeact_platform::locate::gallery::valid_name(value) && value.len() < 100 {
        let literal = rhai_string(value);
        let selector = format!("#{{image: {literal}}}");
        let ran = s.session.call_json(&ToolCall::find(&selector));
        if let Some(e) = &ran.error {
            return Err(unknown_error(format!("-image {}: {}", clipped(value, 80), e.message)));
        }
        let found: Value = ran.value.as_deref().and_then(|v| serde_json::from_str(v).ok()).unwrap_or(Value::Null);
        let place = bounds_of(&found).map(|rect| Place {
            rect,
            class: codeact_tools::select::IMAGE_CLASS,
            score: found.get("score").and_then(Value::as_f64).map(|v| v as f32),
        });
        return one_place(s, place, multiple, &format!("-image {value}"));
    }
    let place = match_picture(s, value)?;
    one_place(s, place, multiple, "-image (the picture sent)")
}

/// A base64 PNG (or JPEG) sought on a screenshot: where it matched, if it did.
fn match_picture(s: &mut WdSession, base64_picture: &str) -> Result<Option<Place>, Failure> {
    use codeact_platform::locate::{Found as Seen, Planes, Reference, Screen, seek_on};
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(base64_picture.as_bytes())
        .map_err(|e| invalid(format!("-image takes a gallery name or a base64 PNG: {e}")))?;
    let reader = || image::ImageReader::new(std::io::Cursor::new(&bytes)).with_guessed_format();
    let (w, h) = reader()
        .ok()
        .and_then(|r| r.into_dimensions().ok())
        .ok_or_else(|| invalid("-image: the picture is not a PNG or JPEG"))?;
    if w == 0 || h == 0 || w > MOST_PICTURE_SIDE || h > MOST_PICTURE_SIDE {
        return Err(invalid(format!("-image: a {w}x{h} picture; send 1 to {MOST_PICTURE_SIDE} pixels a side")));
    }
    let picture = reader()
        .ok()
        .and_then(|r| r.decode().ok())
        .ok_or_else(|| invalid("-image: the picture could not be decoded"))?
        .to_rgba8();
    let planes = Planes::from_rgba(picture.as_raw(), w as usize, h as usize, 1);
    let png = s.session.screenshot().map_err(|e| unknown_error(codeact_base::error_text::full_message(&e)))?;
    let shot = image::load_from_memory(&png)
        .map_err(|e| unknown_error(format!("the phone's screenshot could not be read: {e}")))?
        .to_rgba8();
    let (sw, sh) = shot.dimensions();
    let reference = Reference {
        name: "picture".into(),
        file: String::new(),
        aliases: Vec::new(),
        screen: [sw, sh],
        at: [0, 0, sw, sh],
        threshold: None,
    };
    let screen = Screen::new(shot.as_raw(), sw as usize, sh as usize);
    let place = match seek_on(&screen, &reference, &planes, None).0 {
        Seen::One(p) => p,
        Seen::Ambiguous { places } => match places.first() {
            Some(p) => *p,
            None => return Ok(None),
        },
        Seen::Nothing { .. } => return Ok(None),
    };
    let clamp = |v: i64| v.clamp(-1_000_000, 1_000_000) as i32;
    let rect = Bounds {
        left: clamp(place.x),
        top: clamp(place.y),
        right: clamp(place.x.saturating_add(place.width)),
        bottom: clamp(place.y.saturating_add(place.height)),
    };
    Ok(Some(Place { rect, class: codeact_tools::select::IMAGE_CLASS, score: Some(place.score) }))
}
