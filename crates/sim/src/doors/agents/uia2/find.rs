//! Finding elements as the server does, on the whole page or below an element:
//! `id` (the resource id, or its part after `:id/`), `accessibility id` (the
//! content description), `class name`, `xpath` (over the page source, `xpath.rs`)
//! and `-android uiautomator` (a `UiSelector` chain, or a `UiScrollable` that
//! scrolls until its target shows, `uiselector.rs`). One element not found is
//! W3C's `no such element`; the driver does the implicit wait. Not what is done
//! with an element (`element.rs`).

use std::time::Duration;

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::reply::{Reply, Uia2Error, error, invalid};
use super::uiselector::{self, Query};
use super::xpath;
use crate::device::SimDevice;
use crate::device::uia2_state::{ElementRef, descendants};
use crate::doors::agents::u2_selector;
use crate::screen::{Node, Screen};

/// W3C's key for an element reference (the server also sends the legacy `ELEMENT`).
pub(super) const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// An element reference as a reply.
pub(super) fn reference(id: &str) -> Value {
    json!({"ELEMENT": id, ELEMENT_KEY: id})
}

pub(super) fn no_such_element(what: &str) -> Uia2Error {
    error(
        StatusCode::NOT_FOUND,
        "no such element",
        format!("An element could not be located on the page using the given search parameters ({what})"),
    )
}

pub(super) fn stale(id: &str) -> Uia2Error {
    error(StatusCode::NOT_FOUND, "stale element reference", format!("The element '{id}' does not exist in DOM anymore"))
}

/// The element a client names, resolved on `screen`: its reference and its view.
pub(super) fn resolve<'a>(
    device: &SimDevice,
    screen: &'a Screen,
    id: &str,
) -> Result<(ElementRef, &'a Node), Uia2Error> {
    let element = device.agents().uia2.element(id).ok_or_else(|| stale(id))?;
    let node = element.resolve(screen).ok_or_else(|| stale(id))?;
    Ok((element, node))
}

/// `POST /element(s)` and `/element/:id/element(s)`: W3C's `{"using", "value"}`,
/// or the driver's own `{"strategy", "selector", "context"}` (the context, when
/// set, the element to search below).
pub(super) fn find(device: &SimDevice, scope: Option<&str>, multiple: bool, body: &Value) -> Reply {
    let field = |w3c: &str, driver: &str| body.get(w3c).or_else(|| body.get(driver)).and_then(Value::as_str);
    let using = field("using", "strategy").ok_or_else(|| invalid("'using' (or 'strategy') is required"))?;
    let value = field("value", "selector").ok_or_else(|| invalid("'value' (or 'selector') is required"))?;
    let context = body.get("context").and_then(Value::as_str).filter(|c| !c.is_empty());
    let scope = match scope.or(context) {
        Some(id) => {
            let screen = super::screen::page(device);
            Some(resolve(device, &screen, id)?.0.path)
        }
        None => None,
    };
    let paths = locate(device, using, value, scope.as_deref())?;
    let screen = super::screen::page(device);
    let mut ids = Vec::new();
    for path in paths.into_iter().take(if multiple { usize::MAX } else { 1 }) {
        if let Some(node) = crate::device::uia2_state::node_at(&screen, &path) {
            ids.push(device.agents().uia2.remember(ElementRef::new(path, node)));
        }
    }
    if multiple {
        return Ok(Value::Array(ids.iter().map(|id| reference(id)).collect()));
    }
    ids.first().map(|id| reference(id)).ok_or_else(|| no_such_element(&format!("{using}: {value}")))
}

/// `GET /appium/element/:id/first_visible`: the element's first child on screen.
pub(super) fn first_visible(device: &SimDevice, id: &str) -> Reply {
    let screen = super::screen::page(device);
    let (element, _) = resolve(device, &screen, id)?;
    let depth = element.path.len() + 1;
    let child = descendants(&screen, Some(&element.path))
        .into_iter()
        .find(|(p, n)| p.len() == depth && !n.bounds.is_empty())
        .ok_or_else(|| no_such_element("no child of the element is visible"))?;
    Ok(reference(&device.agents().uia2.remember(ElementRef::new(child.0, child.1))))
}

/// The paths of the views a locator finds, in document order.
fn locate(device: &SimDevice, using: &str, value: &str, scope: Option<&[usize]>) -> Result<Vec<Vec<usize>>, Uia2Error> {
    let by = |test: &dyn Fn(&Node) -> bool| {
        let screen = super::screen::page(device);
        descendants(&screen, scope).into_iter().filter(|(_, n)| test(n)).map(|(p, _)| p).collect()
    };
    Ok(match using {
        "id" => {
            let short = format!(":id/{value}");
            by(&|n| n.resource_id == value || (!value.contains(":id/") && n.resource_id.ends_with(&short)))
        }
        "accessibility id" => by(&|n| n.content_desc == value),
        "class name" => by(&|n| n.class == value),
        "xpath" => {
            let screen = super::screen::page(device);
            xpath::find(&screen, value, scope).map_err(|why| invalid_selector(using, value, &why))?
        }
        "-android uiautomator" => {
            let query = uiselector::parse(value).map_err(|why| invalid_selector(using, value, &why))?;
            match query {
                Query::Plain(selector) => {
                    let screen = super::screen::page(device);
                    let all = descendants(&screen, scope).into_iter();
                    let found = all.filter(|(p, n)| accepts(&selector, p, n)).map(|(p, _)| p);
                    match selector.instance() {
                        Some(nth) => found.skip(nth).take(1).collect(),
                        None => found.collect(),
                    }
                }
                Query::Scroll(scroll) => scroll_into_view(device, &scroll, scope),
            }
        }
        other => {
            return Err(error(
                StatusCode::BAD_REQUEST,
                "invalid selector",
                format!(
                    "The locator strategy '{other}' is not supported by UiAutomator2 on the virtual phone: use id, accessibility id, class name, xpath or -android uiautomator"
                ),
            ));
        }
    })
}

fn invalid_selector(using: &str, value: &str, why: &str) -> Uia2Error {
    let shown: String = value.chars().take(200).collect();
    error(StatusCode::BAD_REQUEST, "invalid selector", format!("Could not parse the {using} selector '{shown}': {why}"))
}

/// Whether the view at `path` meets the selector (its index: its place among its siblings).
fn accepts(selector: &u2_selector::Selector, path: &[usize], node: &Node) -> bool {
    selector.accepts(&u2_selector::Seen(node), path.last().copied().unwrap_or(0))
}

/// Scrolls the scrollable view until the target shows (or nothing moves, or the
/// swipes run out); the target's paths then.
fn scroll_into_view(device: &SimDevice, scroll: &uiselector::Scroll, scope: Option<&[usize]>) -> Vec<Vec<usize>> {
    for _ in 0..=scroll.max_swipes {
        let screen = super::screen::page(device);
        let all = descendants(&screen, scope);
        let found: Vec<Vec<usize>> =
            all.iter().filter(|(p, n)| accepts(&scroll.target, p, n)).map(|(p, _)| p.clone()).collect();
        if !found.is_empty() {
            return found;
        }
        let Some((_, list)) = all.iter().find(|(p, n)| accepts(&scroll.within, p, n)) else { return found };
        let b = list.bounds;
        let (cx, cy) = ((b.left + b.right) / 2, (b.top + b.bottom) / 2);
        let (from, to) = if scroll.horizontal {
            ((b.left + b.width() * 3 / 4, cy), (b.left + b.width() / 4, cy))
        } else {
            ((cx, b.top + b.height() * 3 / 4), (cx, b.top + b.height() / 4))
        };
        let before = crate::page_source::uia2::to_xml(&screen);
        device.world().swipe(from.0, from.1, to.0, to.1, 300);
        std::thread::sleep(Duration::from_millis(20));
        if crate::page_source::uia2::to_xml(&super::screen::page(device)) == before {
            return Vec::new();
        }
    }
    Vec::new()
}
