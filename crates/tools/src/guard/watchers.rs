//! Blocker watchers: the dialogs and popups that get in the way of any script on a
//! real phone — a runtime permission request, "isn't responding", "keeps stopping",
//! a rate-this-app or update popup, the soft keyboard over the element to tap — and
//! what to do about each. Which are on (`Watchers`) comes from the defaults, a
//! persona, `[watchers]` in codeact.toml and `--watchers`; the spec string
//! (`"off"`, `"all,-popups"`, `"permission=deny"`) is parsed here. This module
//! *recognises* a blocker on an observation and names the button that clears it;
//! when watchers run and how a firing is recorded is `context.rs`'s business.

use codeact_platform::device::Observation;
use codeact_platform::ui::{Element, UiTree};

/// What to answer a runtime permission request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PermissionPolicy {
    /// Tap "Allow" ("While using the app" when the dialog offers it).
    Allow,
    /// Tap "Don't allow".
    Deny,
    /// Leave it for the script or the model to answer.
    Ask,
}

/// Which built-in watchers are on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watchers {
    /// `None`: permission dialogs are not watched.
    pub permission: Option<PermissionPolicy>,
    /// "… isn't responding": tap Wait.
    pub anr: bool,
    /// "… keeps stopping" / "… has stopped": tap Close app.
    pub crash: bool,
    /// Rate-this-app and update popups: tap Not now / Later / No thanks.
    pub popups: bool,
    /// The soft keyboard over the element a selector found: hide it, then act.
    pub keyboard: bool,
}

impl Default for Watchers {
    fn default() -> Self {
        Self::ALL
    }
}

/// The names `--watchers` takes, for help and errors.
pub const WATCHER_NAMES: &[&str] = &["permission", "anr", "crash", "popups", "keyboard"];

/// Why a watcher spec cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WatcherSpecError {
    #[error(
        "unknown watcher {0:?}; say on, off, or a list like \"all,-popups,permission=deny\" of permission, anr, crash, popups, keyboard (a leading - turns one off)"
    )]
    Unknown(String),
    #[error("permission={0:?}: the policy is allow, deny, ask or off")]
    Policy(String),
}

impl Watchers {
    pub const ALL: Watchers =
        Watchers { permission: Some(PermissionPolicy::Allow), anr: true, crash: true, popups: true, keyboard: true };
    pub const NONE: Watchers = Watchers { permission: None, anr: false, crash: false, popups: false, keyboard: false };

    /// Lays a spec over `self`: comma-separated `on`/`all`, `off`/`none`, a name (on),
    /// `-name` (off), `permission=allow|deny|ask|off`; later items win.
    pub fn with_spec(mut self, spec: &str) -> Result<Watchers, WatcherSpecError> {
        for item in spec.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            if let Some(policy) = item.strip_prefix("permission=") {
                self.permission = match policy {
                    "allow" => Some(PermissionPolicy::Allow),
                    "deny" => Some(PermissionPolicy::Deny),
                    "ask" => Some(PermissionPolicy::Ask),
                    "off" => None,
                    other => return Err(WatcherSpecError::Policy(other.to_string())),
                };
                continue;
            }
            let (on, name) = match item.strip_prefix('-') {
                Some(name) => (false, name),
                None => (true, item),
            };
            match name {
                "on" | "all" if on => self = Watchers::ALL,
                "off" | "none" if on => self = Watchers::NONE,
                "permission" => self.permission = on.then_some(PermissionPolicy::Allow),
                "anr" => self.anr = on,
                "crash" => self.crash = on,
                "popups" => self.popups = on,
                "keyboard" => self.keyboard = on,
                _ => return Err(WatcherSpecError::Unknown(item.to_string())),
            }
        }
        Ok(self)
    }

    /// The spec that gives these watchers (for messages and `results.json`).
    pub fn spec(&self) -> String {
        if *self == Watchers::NONE {
            return "off".into();
        }
        let mut on = Vec::new();
        match self.permission {
            Some(PermissionPolicy::Allow) => on.push("permission"),
            Some(PermissionPolicy::Deny) => on.push("permission=deny"),
            Some(PermissionPolicy::Ask) => on.push("permission=ask"),
            None => {}
        }
        for (name, enabled) in
            [("anr", self.anr), ("crash", self.crash), ("popups", self.popups), ("keyboard", self.keyboard)]
        {
            if enabled {
                on.push(name);
            }
        }
        on.join(",")
    }
}

/// A blocker found on screen and how to clear it.
#[derive(Debug, Clone, PartialEq)]
pub struct Blocker {
    /// The watcher that recognised it (`anr`, `permission`, ...).
    pub watcher: &'static str,
    /// What it is, as the model and the trajectory are told ("System UI isn't responding").
    pub title: String,
    /// The button to tap, with its centre; `None` when the policy leaves it alone.
    pub button: Option<(String, (i32, i32))>,
    /// The element of the dialog it was found by (a button of it).
    pub anchor: usize,
}

impl Blocker {
    /// Whether `e` is part of the blocker's dialog: inside the dialog's window (the
    /// top-most ancestor of its button that is smaller than the screen; the button's
    /// parent when none is). A script that targets the dialog itself answers it.
    pub fn holds(&self, ui: &UiTree, screen: (u32, u32), e: &Element) -> bool {
        let screen_area = i64::from(screen.0) * i64::from(screen.1);
        let area = |el: &Element| i64::from(el.bounds.width()) * i64::from(el.bounds.height());
        let mut window = ui.get(self.anchor).and_then(|a| a.parent).unwrap_or(self.anchor);
        let mut at = ui.get(self.anchor);
        while let Some(el) = at {
            if area(el) * 10 <= screen_area * 9 {
                window = el.id;
            }
            at = el.parent.and_then(|p| ui.get(p));
        }
        let mut up = Some(e.id);
        while let Some(id) = up {
            if id == window {
                return true;
            }
            up = ui.get(id).and_then(|el| el.parent);
        }
        false
    }
}

/// When the built-in watchers act.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum WatchMode {
    /// Before every action and look, so the screen is clear before anyone sees it
    /// (the agent: the model reads a screen without a dialog in the way).
    #[default]
    Ahead,
    /// Only when an action of the script is blocked: what it targets is covered by a
    /// dialog or is not there. A script that waits for a dialog and answers it gets
    /// its own answer (`exec`, the REPL).
    WhenBlocked,
}

/// Buttons that dismiss a rate or update popup without leaving the app.
const DISMISS: &[&str] =
    &["not now", "later", "maybe later", "remind me later", "no thanks", "no, thanks", "skip", "not really"];

/// Phrases that make a window a rate or update popup (an app's own "Update contact?"
/// confirmation is not one: "update" alone does not count).
const POPUP_PHRASES: &[&str] =
    &["enjoying", "update available", "new version", "update the app", "rate us", "rate this app", "leave a review"];

/// Whole words that do too ("rate" in "separate" does not).
const POPUP_WORDS: &[&str] = &["rate", "rating", "review", "stars"];

/// Whether `text` asks for a rating or an update.
fn asks_for_attention(text: &str) -> bool {
    let t = text.to_lowercase();
    POPUP_PHRASES.iter().any(|p| t.contains(p))
        || t.split(|c: char| !c.is_alphanumeric()).any(|w| POPUP_WORDS.contains(&w))
}

/// The last word of a resource id (`android:id/aerr_wait` → `aerr_wait`).
fn id_name(e: &Element) -> &str {
    e.resource_id.rsplit('/').next().unwrap_or("")
}

fn label(e: &Element) -> String {
    if e.text.is_empty() { e.content_desc.clone() } else { e.text.clone() }
}

/// The system dialogs' buttons a watcher looks for, found in one pass over the
/// dump (this runs before every action).
#[derive(Default)]
struct Buttons<'t> {
    allow: [Option<&'t Element>; 3],
    deny: [Option<&'t Element>; 2],
    wait: Option<&'t Element>,
    close: Option<&'t Element>,
}

impl<'t> Buttons<'t> {
    fn of(ui: &'t UiTree) -> Self {
        let mut b = Buttons::default();
        for e in ui.elements.iter().filter(|e| e.visible && !e.resource_id.is_empty()) {
            let slot = match id_name(e) {
                "permission_allow_foreground_only_button" => &mut b.allow[0],
                "permission_allow_one_time_button" => &mut b.allow[1],
                "permission_allow_button" => &mut b.allow[2],
                "permission_deny_button" => &mut b.deny[0],
                "permission_deny_and_dont_ask_again_button" => &mut b.deny[1],
                "aerr_wait" => &mut b.wait,
                "aerr_close" => &mut b.close,
                _ => continue,
            };
            slot.get_or_insert(e);
        }
        b
    }
}

/// The title of the window `e` is in: its alert title, else its first text.
fn title_near(ui: &UiTree, e: &Element) -> String {
    let mut root = e;
    while let Some(p) = root.parent.and_then(|p| ui.get(p)) {
        root = p;
    }
    let window = ui.subtree(root.id);
    window
        .iter()
        .find(|d| id_name(d) == "alertTitle" || id_name(d) == "permission_message")
        .or_else(|| window.iter().find(|d| !d.text.is_empty() && !d.clickable))
        .map(|d| d.text.clone())
        .unwrap_or_default()
}

fn blocker(watcher: &'static str, ui: &UiTree, button: Option<&Element>, near: &Element) -> Blocker {
    Blocker { watcher, title: title_near(ui, near), button: button.map(|b| (label(b), b.center)), anchor: near.id }
}

/// The first blocker on `obs` that an enabled watcher clears (or, for a permission
/// request under `ask`, reports).
pub fn find_blocker(obs: &Observation, on: &Watchers) -> Option<Blocker> {
    let ui = &obs.ui;
    let buttons = Buttons::of(ui);
    if let Some(policy) = on.permission {
        let allow = buttons.allow.into_iter().flatten().next();
        let deny = buttons.deny.into_iter().flatten().next();
        if let Some(near) = allow.or(deny) {
            let button = match policy {
                PermissionPolicy::Allow => allow,
                PermissionPolicy::Deny => deny,
                PermissionPolicy::Ask => None,
            };
            return Some(blocker("permission", ui, button, near));
        }
    }
    let wait = buttons.wait;
    if on.anr
        && let Some(wait) = wait
    {
        return Some(blocker("anr", ui, Some(wait), wait));
    }
    if on.crash
        && wait.is_none()
        && let Some(close) = buttons.close
    {
        return Some(blocker("crash", ui, Some(close), close));
    }
    if on.popups {
        return popup(ui, obs.screen);
    }
    None
}

/// A rate-this-app or update popup: a window with a dismiss button and a text that
/// says what it wants. Only windows smaller than the screen count (a screen of its
/// own with a "Later" button is the app's business).
fn popup(ui: &UiTree, screen: (u32, u32)) -> Option<Blocker> {
    let screen_area = i64::from(screen.0) * i64::from(screen.1);
    for &root in &ui.roots {
        let Some(r) = ui.get(root) else { continue };
        let b = r.bounds;
        let area = i64::from(b.right - b.left) * i64::from(b.bottom - b.top);
        if area * 10 > screen_area * 7 {
            continue;
        }
        let window = ui.subtree(r.id);
        let dismiss = window
            .iter()
            .find(|e| e.visible && e.clickable && DISMISS.iter().any(|d| label(e).trim().eq_ignore_ascii_case(d)));
        let Some(dismiss) = dismiss else { continue };
        let asks = window.iter().any(|e| !e.clickable && asks_for_attention(&e.text));
        if asks {
            return Some(blocker("popups", ui, Some(dismiss), dismiss));
        }
    }
    None
}

/// Whether the soft keyboard covers the point: inside the IME's window when the
/// dump has one. A dump of the app's window alone says no more than where the app
/// content ends: an app that makes room for the keyboard (adjustResize) ends above
/// it, and nothing in the dump is covered; one that keeps its full height (the
/// keyboard slides over it) has its lower 40% covered.
pub fn keyboard_covers(obs: &Observation, point: (i32, i32)) -> bool {
    if !obs.phone.keyboard_shown {
        return false;
    }
    let ui = &obs.ui;
    if let Some(k) = ui.roots.iter().filter_map(|r| ui.get(*r)).find(|r| r.package.contains("inputmethod")) {
        return k.bounds.contains(point.0, point.1);
    }
    let height = obs.screen.1 as i32;
    let content_bottom =
        ui.elements.iter().find(|e| e.resource_id == "android:id/content").map_or(height, |e| e.bounds.bottom);
    let made_room = content_bottom < height * 9 / 10;
    !made_room && point.1 > height * 6 / 10
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_popup_is_told_by_its_words_not_by_a_substring() {
        assert!(asks_for_attention("Enjoying Notes?"));
        assert!(asks_for_attention("Please rate us on Google Play"));
        assert!(asks_for_attention("Update available"));
        assert!(!asks_for_attention("Update contact?"));
        assert!(!asks_for_attention("Separate the accurate items"));
    }

    #[test]
    fn specs_layer_in_order_and_say_what_is_wrong() {
        let w = Watchers::ALL.with_spec("off,anr,permission=deny").unwrap();
        assert_eq!(w, Watchers { permission: Some(PermissionPolicy::Deny), anr: true, ..Watchers::NONE });
        assert_eq!(w.spec(), "permission=deny,anr");
        assert!(!Watchers::ALL.with_spec("all,-popups").unwrap().popups);
        assert_eq!(Watchers::ALL.with_spec("none").unwrap().spec(), "off");
        assert!(matches!(Watchers::ALL.with_spec("anr,nag"), Err(WatcherSpecError::Unknown(n)) if n == "nag"));
        assert!(matches!(Watchers::ALL.with_spec("permission=maybe"), Err(WatcherSpecError::Policy(_))));
    }
}
