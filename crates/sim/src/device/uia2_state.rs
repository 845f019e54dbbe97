//! What Appium's UiAutomator2 server keeps between requests, and loses when its
//! process ends: the one session (its id and the capabilities it was created
//! with), the server's settings, and the elements it handed out. An element is
//! kept as its place in the page (window and child positions, counted as the page
//! source lists them) and its class and resource id: when the view at that place is
//! no longer that view, the element is stale, as an accessibility node whose view
//! went away. Not the routes (`doors/agents/uia2/`), nor the page they
//! read (`doors/agents/uia2/screen.rs`).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use serde_json::{Map, Value, json};

use crate::page_source::uia2::{children, windows};
use crate::screen::{Node, Screen};

/// The most elements one session keeps; past it the oldest half is forgotten (a
/// client still holding one gets "stale element reference").
const MOST_ELEMENTS: usize = 20_000;

/// An element handed out: where it was and what it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ElementRef {
    pub(crate) path: Vec<usize>,
    class: String,
    resource_id: String,
}

impl ElementRef {
    pub(crate) fn new(path: Vec<usize>, node: &Node) -> Self {
        Self { path, class: node.class.clone(), resource_id: node.resource_id.clone() }
    }

    /// The view this element is now, if it is still on the page.
    pub(crate) fn resolve<'a>(&self, screen: &'a Screen) -> Option<&'a Node> {
        node_at(screen, &self.path).filter(|n| n.class == self.class && n.resource_id == self.resource_id)
    }
}

/// The session the server holds.
#[derive(Debug, Clone)]
pub(crate) struct Session {
    pub(crate) id: String,
    pub(crate) capabilities: Value,
}

#[derive(Debug, Default)]
struct Inner {
    session: Option<Session>,
    settings: Map<String, Value>,
    elements: HashMap<String, (u64, ElementRef)>,
    next: u64,
}

/// The server's state (one per phone; reset when the server's process ends).
#[derive(Debug, Default)]
pub(crate) struct ServerState(Mutex<Inner>);

impl ServerState {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Everything gone, as when the server's process ends.
    pub(crate) fn forget(&self) {
        *self.lock() = Inner::default();
    }

    pub(crate) fn session(&self) -> Option<Session> {
        self.lock().session.clone()
    }

    /// Starts a session (ending any other, as the server holds one).
    pub(crate) fn start(&self, capabilities: Value) -> Session {
        let mut inner = self.lock();
        inner.next += 1;
        let n = inner.next;
        let id = format!("{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}", now_nanos() as u32, n & 0xffff, n & 0xfff, 0x5a1, n);
        let session = Session { id, capabilities };
        *inner = Inner { session: Some(session.clone()), next: n, ..Inner::default() };
        session
    }

    /// Ends the session `id`; false when it is not the one held.
    pub(crate) fn end(&self, id: &str) -> bool {
        let mut inner = self.lock();
        if inner.session.as_ref().is_none_or(|s| s.id != id) {
            return false;
        }
        inner.session = None;
        inner.elements.clear();
        true
    }

    /// The id a client uses for the element at `path` (the same id for the same
    /// view while it stays).
    pub(crate) fn remember(&self, element: ElementRef) -> String {
        let mut inner = self.lock();
        if let Some((id, _)) = inner.elements.iter().find(|(_, (_, e))| *e == element) {
            return id.clone();
        }
        inner.next += 1;
        let seq = inner.next;
        if inner.elements.len() >= MOST_ELEMENTS {
            let keep_from = seq.saturating_sub(MOST_ELEMENTS as u64 / 2);
            inner.elements.retain(|_, (at, _)| *at >= keep_from);
        }
        let id = format!("00000000-0000-{:04x}-ffff-ffff{:08x}", (seq >> 32) & 0xffff, seq & 0xffff_ffff);
        inner.elements.insert(id.clone(), (seq, element));
        id
    }

    pub(crate) fn element(&self, id: &str) -> Option<ElementRef> {
        self.lock().elements.get(id).map(|(_, e)| e.clone())
    }

    pub(crate) fn settings(&self) -> Map<String, Value> {
        let mut all = defaults();
        all.extend(self.lock().settings.clone());
        all
    }

    /// Sets the settings a client names (kept for `GET`; the phone acts on none).
    pub(crate) fn set_settings(&self, settings: &Map<String, Value>) {
        let mut inner = self.lock();
        for (key, value) in settings.iter().take(256) {
            inner.settings.insert(key.chars().take(128).collect(), value.clone());
        }
    }
}

/// The server's settings as a new session reports them.
fn defaults() -> Map<String, Value> {
    let all = json!({
        "actionAcknowledgmentTimeout": 3000, "allowInvisibleElements": false, "ignoreUnimportantViews": false,
        "elementResponseAttributes": "", "enableMultiWindows": false, "enableNotificationListener": true,
        "keyInjectionDelay": 0, "scrollAcknowledgmentTimeout": 200, "shouldUseCompactResponses": true,
        "waitForIdleTimeout": 10000, "waitForSelectorTimeout": 10000, "normalizeTagNames": false,
        "shutdownOnPowerDisconnect": true, "trackScrollEvents": true, "simpleBoundsCalculation": false,
    });
    all.as_object().cloned().unwrap_or_default()
}

fn now_nanos() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0)
}

/// The view at `path` (window, then child positions), as the page lists them.
pub(crate) fn node_at<'a>(screen: &'a Screen, path: &[usize]) -> Option<&'a Node> {
    let (first, rest) = path.split_first()?;
    let mut node = *windows(screen).get(*first)?;
    for i in rest {
        node = *children(node).get(*i)?;
    }
    Some(node)
}

/// Every view below `scope` (or on the whole page), in document order, with its path.
pub(crate) fn descendants<'a>(screen: &'a Screen, scope: Option<&[usize]>) -> Vec<(Vec<usize>, &'a Node)> {
    fn walk<'a>(node: &'a Node, path: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, &'a Node)>) {
        out.push((path.clone(), node));
        for (i, child) in children(node).into_iter().enumerate() {
            path.push(i);
            walk(child, path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    match scope {
        None => {
            for (i, window) in windows(screen).into_iter().enumerate() {
                walk(window, &mut vec![i], &mut out);
            }
        }
        Some(scope) => {
            if let Some(node) = node_at(screen, scope) {
                for (i, child) in children(node).into_iter().enumerate() {
                    let mut path = scope.to_vec();
                    path.push(i);
                    walk(child, &mut path, &mut out);
                }
            }
        }
    }
    out
}
