//! The live view: a thread that looks at the phone through the studio's session
//! [`FRAMES_PER_SECOND`] times a second (while the picture changes; 5 times while it
//! is still, once while no page looks), keeps the newest screenshot when it
//! changed, and the element tree (read again when the picture changed, at most
//! [`TREES_PER_SECOND`] times a second, and every few seconds anyway); and the
//! long poll that hands a page what changed since it last asked (`api/live?since=N`
//! waits up to [`POLL`] for news). The picture itself is fetched by its version
//! (`frame.png?v=N`). A device that fails is reported, and looked at again. The
//! thread's loop is `watch.rs`. Not the routes that act (`act.rs`).

use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use codeact_platform::device::Observation;

/// How often the phone is looked at.
pub const FRAMES_PER_SECOND: u64 = 20;
/// How often, at most, the tree is read again.
pub(super) const TREES_PER_SECOND: u64 = 4;
/// How long a long poll waits for news.
pub const POLL: Duration = Duration::from_secs(20);

/// What the page is shown.
#[derive(Default)]
pub(super) struct Shown {
    /// Bumped on every change of anything below.
    seq: u64,
    pub(super) frame: Option<Arc<Vec<u8>>>,
    pub(super) frame_v: u64,
    tree: Arc<Value>,
    tree_v: u64,
    /// What went wrong with the last look, when it did.
    pub(super) problem: Option<String>,
    /// New pictures (the screen changed) over the last second: 0 while it is still.
    pub(super) fps: f64,
    /// The phone, and how its pictures are taken.
    pub(super) device: String,
    pub(super) screenshots: &'static str,
}

/// The newest look at the phone, and who waits for the next.
pub struct Live {
    shown: Mutex<Shown>,
    news: tokio::sync::watch::Sender<u64>,
    /// Live channels open now (long polls waiting).
    pub polls: AtomicUsize,
    /// Bumped by every act: the screen is about to change, look at full speed.
    pub(super) pokes: AtomicUsize,
}

impl Default for Live {
    fn default() -> Self {
        Self {
            shown: Mutex::default(),
            news: tokio::sync::watch::channel(0).0,
            polls: AtomicUsize::new(0),
            pokes: AtomicUsize::new(0),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Live {
    /// The newest picture (the page asks for it by version only to miss no cache).
    pub fn frame(&self) -> Option<Arc<Vec<u8>>> {
        lock(&self.shown).frame.clone()
    }

    /// The tree as the page shows it.
    pub fn tree(&self) -> Arc<Value> {
        lock(&self.shown).tree.clone()
    }

    pub(super) fn change(&self, apply: impl FnOnce(&mut Shown) -> bool) {
        let mut shown = lock(&self.shown);
        if apply(&mut shown) {
            shown.seq += 1;
            let seq = shown.seq;
            drop(shown);
            self.news.send_replace(seq);
        }
    }

    /// Something acted on the phone: look at full speed again.
    pub fn poke(&self) {
        self.pokes.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// A tree read by someone else (an act's settle): shown at once.
    pub fn show_tree(&self, obs: &Observation) {
        let tree = Arc::new(tree_json(obs));
        self.change(|s| {
            let differs = *s.tree != *tree;
            if differs {
                s.tree = tree;
                s.tree_v += 1;
            }
            differs
        });
    }

    /// What changed since `since`: waits up to [`POLL`] when nothing has.
    pub async fn poll(&self, since: u64, stop: &CancellationToken) -> Value {
        let mut news = self.news.subscribe();
        let wait = async {
            while *news.borrow_and_update() <= since {
                if news.changed().await.is_err() {
                    break;
                }
            }
        };
        tokio::select! {
            _ = wait => {}
            _ = tokio::time::sleep(POLL) => {}
            _ = stop.cancelled() => {}
        }
        let shown = lock(&self.shown);
        json!({
            "seq": shown.seq, "frame": shown.frame_v, "tree_version": shown.tree_v, "tree": *shown.tree,
            "problem": shown.problem, "fps": (shown.fps * 10.0).round() / 10.0,
            "device": shown.device, "screenshots": shown.screenshots,
        })
    }
}

/// The most elements the page is sent (a screen past it is cut, and says so).
const MOST_ELEMENTS: usize = 5_000;
/// The most characters of one text the page is sent.
const MOST_TEXT: usize = 2_000;

/// An element tree as the page reads it: each element's place, words (clipped) and state.
pub fn tree_json(obs: &Observation) -> Value {
    let clip = |t: &str| codeact_base::clip::clip(t, MOST_TEXT).into_owned();
    let elements: Vec<Value> = obs
        .ui
        .elements
        .iter()
        .take(MOST_ELEMENTS)
        .map(|e| {
            let b = e.bounds;
            json!({
                "i": e.id, "parent": e.parent, "depth": e.depth, "class": clip(&e.class), "text": clip(&e.text),
                "desc": clip(&e.content_desc), "id": clip(e.resource_id.rsplit('/').next().unwrap_or("")),
                "resource_id": clip(&e.resource_id), "hint": clip(&e.hint), "package": clip(&e.package),
                "bounds": [b.left, b.top, b.right, b.bottom], "visible": e.visible,
                "clickable": e.clickable, "checkable": e.checkable, "checked": e.checked,
                "editable": e.is_editable(), "scrollable": e.scrollable, "enabled": e.enabled,
                "focused": e.focused, "selected": e.selected, "password": e.password,
            })
        })
        .collect();
    json!({
        "screen": [obs.screen.0, obs.screen.1], "app": obs.phone.package, "activity": obs.phone.activity,
        "keyboard": obs.phone.keyboard_shown, "elements": elements,
        "cut": obs.ui.elements.len().saturating_sub(MOST_ELEMENTS),
    })
}
