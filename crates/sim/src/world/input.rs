//! What touches, keys and typed text do to the world: hit-testing the laid-out
//! screen, then running the item's behaviour (toggle, focus, actions, scroll).
//!
//! Coordinates are screen pixels, as `input tap` gives them. Nothing here parses
//! command lines; that is `commands/`.

use std::time::Instant;

use super::model::{DialogInstance, FaultDialog, Focus, World};
use super::spec::ItemKind;
use crate::screen::{Hook, Node, Rect, Role};
use adb_wire::keycodes;

/// The state key the system clipboard lives in.
pub(crate) const CLIPBOARD: &str = "system.clipboard";

/// A press held at least this long is a long press (Android's default timeout).
pub(crate) const LONG_PRESS_MS: u64 = 400;
/// Movement below this many dp is a tap, not a swipe (touch slop).
const TOUCH_SLOP_DP: f32 = 8.0;

/// The node under a point that reacts to touch, with its bounds.
#[derive(Clone)]
struct Hit {
    hook: Hook,
    bounds: Rect,
    enabled: bool,
}

/// What a finger landed on when it touched down: a gesture acts on that view, even
/// if the content moves under the finger before it lifts (as on a phone).
pub(crate) struct TouchDown(Option<Hit>);

fn deepest_hook(node: &Node, x: i32, y: i32) -> Option<Hit> {
    if !node.bounds.contains(x, y) && node.role != Role::Container {
        return None;
    }
    for child in node.children.iter().rev() {
        if let Some(hit) = deepest_hook(child, x, y) {
            return Some(hit);
        }
    }
    match node.hook {
        Some(hook) if node.bounds.contains(x, y) => Some(Hit { hook, bounds: node.bounds, enabled: node.enabled }),
        _ => None,
    }
}

impl World {
    /// The reacting node at (x, y) in the top-most window that covers the point.
    fn hit(&self, x: i32, y: i32) -> Option<Hit> {
        let screen = self.screen();
        for window in screen.windows.iter().rev() {
            if window.bounds.contains(x, y) {
                // A window that covers the point takes the touch, reacting or not.
                return deepest_hook(window, x, y);
            }
        }
        None
    }

    /// What is under the finger at (x, y) now.
    pub(crate) fn touch_down_at(&self, x: i32, y: i32) -> TouchDown {
        TouchDown(self.hit(x, y))
    }

    pub(crate) fn tap(&mut self, x: i32, y: i32) {
        // A tap places the caret: the selection is gone.
        self.all_selected = false;
        let hit = self.hit(x, y);
        self.tap_on(hit, x, y);
    }

    fn tap_on(&mut self, hit: Option<Hit>, x: i32, y: i32) {
        let Some(hit) = hit else { return };
        if !hit.enabled {
            return;
        }
        match hit.hook {
            Hook::NavBack => self.back(),
            Hook::NavUp => self.finish_activity(),
            Hook::NavHome => self.go_home(),
            Hook::NavRecents => {}
            Hook::Keyboard => self.press_soft_key(&hit.bounds, x, y),
            Hook::AppIcon(app) => {
                self.launch(app);
            }
            Hook::DialogButton(button) => self.press_dialog_button(button),
            Hook::Item { item, record } => self.tap_item(item, record, x, &hit.bounds),
        }
    }

    /// A tap on the full on-screen keyboard types what the key under it shows.
    fn press_soft_key(&mut self, bounds: &Rect, x: i32, y: i32) {
        match crate::keyboard::key_at(bounds, self.geometry.density, x, y) {
            Some("space") => {
                self.type_text(" ");
            }
            Some("⌫") => self.key(keycodes::DEL),
            Some("⏎") => self.key(keycodes::ENTER),
            Some("⇧" | "?123") | None => {}
            Some(label) => {
                self.type_text(label);
            }
        }
    }

    fn press_dialog_button(&mut self, button: usize) {
        let Some(dialog) = self.dialogs.pop() else { return };
        self.screen_changed();
        match dialog {
            DialogInstance::Fault { kind, package, .. } => match (kind, button) {
                // Close app on an app's ANR ends it; on System UI's, and Rate now and
                // Update, it leaves for elsewhere.
                (FaultDialog::Anr, 1) if let Some(app) = self.catalog.app_index(&package) => self.force_stop(app),
                (FaultDialog::Anr | FaultDialog::Rate | FaultDialog::Update, 1) => self.go_home(),
                (FaultDialog::Permission, _) => {
                    let answer = if button == 0 { "granted" } else { "denied" };
                    self.set_value(&format!("permission.{package}"), answer);
                }
                _ => {}
            },
            DialogInstance::App { app, dialog, record } => {
                let script = self
                    .catalog
                    .apps
                    .get(app)
                    .and_then(|a| a.dialogs.get(dialog))
                    .and_then(|d| d.buttons.get(button))
                    .map(|b| b.on_tap.clone());
                if let Some(script) = script {
                    self.run_actions(&script, record);
                }
            }
        }
    }

    fn tap_item(&mut self, index: usize, record: Option<usize>, x: i32, bounds: &Rect) {
        if self.fails_on_tap(index) {
            return;
        }
        let Some((_, screen, _)) = self.top() else { return };
        let Some(item) = screen.items.get(index).cloned() else { return };
        let record_ref = match (record, &item.source) {
            (Some(i), Some(source)) => Some((source.clone(), i)),
            _ => None,
        };
        match item.kind {
            ItemKind::Field => {
                self.focus = Some(Focus { item: index });
                self.keyboard_shown = true;
                self.screen_changed();
            }
            ItemKind::Switch => {
                if let Some(key) = &item.bind {
                    self.run_actions(&format!("toggle {key}"), None);
                }
                if let Some(script) = &item.on_tap {
                    self.run_actions(script, None);
                }
            }
            ItemKind::Slider => {
                let max = item.max.unwrap_or(100);
                let span = bounds.width().max(1) as i64;
                let value = ((x - bounds.left).clamp(0, bounds.width()) as i64 * max + span / 2) / span;
                if let Some(key) = &item.bind {
                    self.run_actions(&format!("set {key} {value}"), None);
                }
            }
            ItemKind::List => {
                let switch_zone = bounds.right - self.geometry.dp(88.0);
                match (&item.switch, &item.on_tap) {
                    (Some(field), None) => self.run_actions(&format!("toggle record.{field}"), record_ref),
                    (Some(field), Some(_)) if x >= switch_zone => {
                        self.run_actions(&format!("toggle record.{field}"), record_ref)
                    }
                    (_, Some(script)) => self.run_actions(script, record_ref),
                    (None, None) => {}
                }
            }
            _ => {
                if let Some(script) = &item.on_tap {
                    self.run_actions(script, record_ref);
                }
            }
        }
    }

    fn long_press_on(&mut self, hit: Option<Hit>) {
        let Some(hit) = hit else { return };
        let Hook::Item { item, record } = hit.hook else { return };
        if !hit.enabled {
            return;
        }
        let Some((_, screen, _)) = self.top() else { return };
        let Some(spec) = screen.items.get(item) else { return };
        let record_ref = match (record, &spec.source) {
            (Some(i), Some(source)) => Some((source.clone(), i)),
            _ => None,
        };
        if let Some(script) = spec.on_long_press.clone() {
            self.run_actions(&script, record_ref);
        }
    }

    /// A swipe that barely moves is a tap or, held long enough, a long press; a
    /// mostly vertical one scrolls the list; one that starts on a slider drags it.
    pub(crate) fn swipe(&mut self, x1: i32, y1: i32, x2: i32, y2: i32, duration_ms: u64) {
        let down = self.touch_down_at(x1, y1);
        self.swipe_from(down, (x1, y1), (x2, y2), duration_ms);
    }

    /// The gesture that touched down on `down` at `from` and lifted at `to`.
    pub(crate) fn swipe_from(&mut self, down: TouchDown, from: (i32, i32), to: (i32, i32), duration_ms: u64) {
        let ((x1, y1), (x2, y2)) = (from, to);
        let slop = self.geometry.dp(TOUCH_SLOP_DP);
        if (x2 - x1).abs() <= slop && (y2 - y1).abs() <= slop {
            if duration_ms >= LONG_PRESS_MS {
                self.long_press_on(down.0);
            } else {
                self.tap_on(down.0, x1, y1);
            }
            return;
        }
        if let Some(hit) = down.0
            && let Hook::Item { item, record } = hit.hook
            && self.top().and_then(|(_, s, _)| s.items.get(item)).is_some_and(|i| i.kind == ItemKind::Slider)
        {
            if hit.enabled {
                self.tap_item(item, record, x2, &hit.bounds);
            }
            return;
        }
        if !self.dialogs.is_empty() || (y2 - y1).abs() <= (x2 - x1).abs() {
            return;
        }
        let max = super::layout::max_scroll(self);
        if let Some(inst) = self.tasks.last_mut().and_then(|t| t.stack.last_mut()) {
            let before = inst.scroll;
            inst.scroll = (inst.scroll + (y1 - y2)).clamp(0, max);
            if inst.scroll != before {
                self.screen_changed();
            }
        }
    }

    /// `input motionevent DOWN|MOVE|UP|CANCEL X Y`: a gesture built from raw events;
    /// UP completes it as the tap, long press or swipe it amounts to.
    pub(crate) fn motion_event(&mut self, action: &str, x: i32, y: i32) {
        match action {
            "DOWN" => self.touch_down = Some((x, y, Instant::now())),
            "UP" => {
                if let Some((x0, y0, at)) = self.touch_down.take() {
                    let held = u64::try_from(at.elapsed().as_millis()).unwrap_or(u64::MAX);
                    self.swipe(x0, y0, x, y, held);
                }
            }
            "CANCEL" => self.touch_down = None,
            _ => {}
        }
    }

    /// `input keyevent`: navigation keys act; character keys type into the focus.
    pub(crate) fn key(&mut self, code: u32) {
        if code == keycodes::DEL && std::mem::take(&mut self.all_selected) {
            self.clear_text();
            return;
        }
        match code {
            keycodes::HOME => self.go_home(),
            keycodes::BACK => self.back(),
            // The IME's "next" action: on to the next field; on the last one, "done".
            keycodes::ENTER => {
                if !self.focus_next_field() && self.keyboard_shown {
                    self.keyboard_shown = false;
                    self.screen_changed();
                }
            }
            keycodes::TAB => {
                self.focus_next_field();
            }
            keycodes::PASTE => {
                let text = self.read(CLIPBOARD, &None).map(|v| v.to_string()).unwrap_or_default();
                self.type_text(&text);
            }
            keycodes::DEL => {
                if let Some(key) = self.focused_bind() {
                    let mut text = self.read(&key, &None).map(|v| v.to_string()).unwrap_or_default();
                    text.pop();
                    self.write(&key, super::template::Value::Str(text), &None);
                }
            }
            _ => {
                if let Some(c) = keycodes::char_of(code) {
                    self.type_text(&c.to_string());
                }
            }
        }
    }

    /// Moves the focus to the next text field of the screen; false when the focused
    /// field is the last one (or none has focus).
    fn focus_next_field(&mut self) -> bool {
        let Some(focus) = self.focus else { return false };
        let Some((_, screen, _)) = self.top() else { return false };
        let next = screen.items.iter().enumerate().skip(focus.item + 1).find(|(_, i)| i.kind == ItemKind::Field);
        let Some((item, _)) = next else { return false };
        self.focus = Some(Focus { item });
        self.screen_changed();
        true
    }

    /// The state key of the focused field, if a field has focus.
    ///
    /// (The clipboard is the state key [`CLIPBOARD`].)
    fn focused_bind(&self) -> Option<String> {
        let focus = self.focus?;
        let (_, screen, _) = self.top()?;
        let item = screen.items.get(focus.item)?;
        (item.kind == ItemKind::Field).then(|| item.bind.clone()).flatten()
    }

    /// Appends `text` to the focused field (digits only for number fields); returns
    /// false when nothing has focus.
    pub(crate) fn type_text(&mut self, text: &str) -> bool {
        let Some(focus) = self.focus else { return false };
        if std::mem::take(&mut self.all_selected) {
            self.clear_text();
        }
        let number = self.top().and_then(|(_, s, _)| s.items.get(focus.item)).is_some_and(|i| i.number);
        let Some(key) = self.focused_bind() else { return false };
        let mut value = self.read(&key, &None).map(|v| v.to_string()).unwrap_or_default();
        value.extend(text.chars().filter(|c| !number || c.is_ascii_digit()));
        self.write(&key, super::template::Value::Str(value), &None);
        true
    }

    /// Selects all of the focused field's text (Ctrl+A), when a field has focus.
    pub(crate) fn select_all(&mut self) {
        self.all_selected = self.focused_bind().is_some();
    }

    /// Empties the focused field (ADB_CLEAR_TEXT).
    pub(crate) fn clear_text(&mut self) -> bool {
        let Some(key) = self.focused_bind() else { return false };
        self.write(&key, super::template::Value::Str(String::new()), &None);
        true
    }
}
