//! What an action visibly did: the observation before it compared with the one it
//! settled on (the foreground activity, the keyboard, focus, the target element's
//! own state, what appeared or went), said in one short line for the action's
//! record and the model ("Switch (id wifi_switch) checked → unchecked", "opened
//! .SubSettings", "no visible change"). Pure: it reads two observations it is
//! given and never asks the device for a third.

use codeact_platform::device::Observation;
use codeact_platform::ui::{Element, UiTree, stable_hash};

use crate::naming::described;
use crate::select::unique_selector::toggle_selector_for;
use codeact_engine::sandbox::Toggled;

/// What one action changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionEffect {
    /// Anything on screen differs (elements, their bounds, the activity, the keyboard).
    pub visible: bool,
    /// The change in words.
    pub text: String,
    /// The toggles whose checked state flipped (the target first), as elements of
    /// the screen after the action (their ids there) and their new state.
    pub flipped: Vec<(usize, bool)>,
}

/// How many appeared or vanished texts a line names.
const NAMED: usize = 3;

/// The activity as short as its package allows (`com.android.settings.SubSettings`
/// in `com.android.settings` → `.SubSettings`).
fn short_activity<'a>(package: &str, activity: &'a str) -> &'a str {
    match activity.strip_prefix(package) {
        Some(rest) if rest.starts_with('.') => rest,
        _ => activity,
    }
}

/// The element in `ui` that is `target` (same signature, nearest to where it was).
fn same_element<'t>(ui: &'t UiTree, target: &Element) -> Option<&'t Element> {
    ui.elements.iter().filter(|e| e.signature == target.signature).min_by_key(|e| {
        let (dx, dy) = (e.center.0 - target.center.0, e.center.1 - target.center.1);
        i64::from(dx).pow(2) + i64::from(dy).pow(2)
    })
}

/// The element that has focus, if one does.
fn focused(o: &Observation) -> Option<&Element> {
    o.phone.focused.and_then(|f| o.ui.get(f))
}

/// The visible texts of `ui`, each once.
fn texts(ui: &UiTree) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for e in ui.elements.iter().filter(|e| e.visible) {
        for t in [&e.text, &e.content_desc] {
            if !t.is_empty() && !out.contains(&t.as_str()) {
                out.push(t);
            }
        }
    }
    out
}

fn quoted(items: &[&str]) -> String {
    let mut shown: Vec<String> = items.iter().take(NAMED).map(|t| format!("{:?}", cut(t))).collect();
    if items.len() > NAMED {
        shown.push(format!("{} more", items.len() - NAMED));
    }
    shown.join(", ")
}

fn cut(text: &str) -> String {
    let mut out: String = text.chars().take(40).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

/// A print of what is on screen including each element's state (checked,
/// selected, enabled, focused, a field's text): a fingerprint leaves state out on
/// purpose, an effect must not. One pass of integer mixing (it runs after every
/// action): signatures already cover every text but a field's.
pub fn state_print(ui: &UiTree) -> u64 {
    let mut acc: u64 = 0xcbf2_9ce4_8422_2325;
    for e in &ui.elements {
        let b = e.bounds;
        let geometry = (b.left as u64) ^ ((b.top as u64) << 16) ^ ((b.right as u64) << 32) ^ ((b.bottom as u64) << 48);
        let flags = u64::from(e.checked)
            | (u64::from(e.selected) << 1)
            | (u64::from(e.enabled) << 2)
            | (u64::from(e.focused) << 3);
        let text = if e.actions.set_text { stable_hash(e.text.as_bytes()) } else { 0 };
        acc =
            (acc ^ e.signature ^ geometry.rotate_left(7) ^ flags ^ text.rotate_left(29)).wrapping_mul(0x100_0000_01b3);
    }
    acc
}

/// The toggles (other than the target) whose checked state flipped.
fn flipped<'t>(before: &UiTree, after: &'t UiTree, target: Option<&Element>) -> Vec<(&'t Element, bool)> {
    let mut out = Vec::new();
    for now in after.elements.iter().filter(|e| e.checkable) {
        if target.is_some_and(|t| t.signature == now.signature) {
            continue;
        }
        if let Some(was) = same_element(before, now)
            && was.checked != now.checked
        {
            out.push((now, was.checked));
        }
    }
    out
}

/// What changed from `before` to `after`; `target` is the element the action
/// aimed at, as `before` showed it.
#[cfg(test)]
pub fn describe(before: &Observation, after: &Observation, target: Option<&Element>) -> ActionEffect {
    describe_printed(before, after, target, state_print(&before.ui) != state_print(&after.ui))
}

/// [`describe`], told whether the screens' [`state_print`]s differ (a caller
/// that keeps prints computes each screen's once).
pub fn describe_printed(
    before: &Observation,
    after: &Observation,
    target: Option<&Element>,
    moved: bool,
) -> ActionEffect {
    let mut parts: Vec<String> = Vec::new();
    let state = |c: bool| if c { "checked" } else { "unchecked" };
    let (b, a) = (&before.phone, &after.phone);
    if (&b.package, &b.activity) != (&a.package, &a.activity) && a.activity.is_empty() && !a.package.is_empty() {
        // A platform without activities (iOS): another app in front.
        parts.push(format!("opened {}", a.package));
    } else if (&b.package, &b.activity) != (&a.package, &a.activity) && !a.activity.is_empty() {
        if b.package == a.package {
            parts.push(format!("opened {}", short_activity(&a.package, &a.activity)));
        } else {
            parts.push(format!("opened {}/{}", a.package, short_activity(&a.package, &a.activity)));
        }
    }
    let mut flipped_ids = Vec::new();
    if let Some(t) = target
        && moved
        && let Some(now) = same_element(&after.ui, t)
    {
        let name = described(t);
        if t.checkable && t.checked != now.checked {
            parts.push(format!("{name} {} → {}", state(t.checked), state(now.checked)));
            flipped_ids.push((now.id, now.checked));
        }
        if t.selected != now.selected && !now.selected {
            parts.push(format!("{name} deselected"));
        } else if t.selected != now.selected {
            parts.push(format!("{name} selected"));
        }
        if t.text != now.text {
            parts.push(format!("{name} text {:?} → {:?}", cut(&t.text), cut(&now.text)));
        }
    }
    // Toggles can only have flipped when something on screen changed.
    let flips = if moved { flipped(&before.ui, &after.ui, target) } else { Vec::new() };
    for (n, (e, was)) in flips.into_iter().enumerate() {
        if n < NAMED {
            parts.push(format!("{} {} → {}", described(e), state(was), state(e.checked)));
        }
        flipped_ids.push((e.id, e.checked));
    }
    if b.keyboard_shown != a.keyboard_shown {
        parts.push(if a.keyboard_shown { "keyboard shown" } else { "keyboard hidden" }.to_string());
    }
    if let Some(now) = focused(after)
        && focused(before).map(|e| e.signature) != Some(now.signature)
    {
        parts.push(format!("focus on {}", described(now)));
    }
    if parts.is_empty() && moved {
        let (old, new) = (texts(&before.ui), texts(&after.ui));
        let appeared: Vec<&str> = new.iter().filter(|t| !old.contains(t)).copied().collect();
        let gone: Vec<&str> = old.iter().filter(|t| !new.contains(t)).copied().collect();
        match (appeared.is_empty(), gone.is_empty()) {
            (false, _) => parts.push(format!("appeared {}", quoted(&appeared))),
            (true, false) => parts.push(format!("gone {}", quoted(&gone))),
            (true, true) => parts.push("the screen moved".to_string()),
        }
    }
    let visible = moved || !parts.is_empty();
    let text = if parts.is_empty() { "no visible change".to_string() } else { parts.join("; ") };
    ActionEffect { visible, text, flipped: flipped_ids }
}

/// The toggles `flipped` names (elements of `after` and their new state), each
/// with a selector that finds it whatever its state; one no selector finds first
/// is left out (nothing could check it later).
pub fn toggled(after: &UiTree, flipped: &[(usize, bool)]) -> Vec<Toggled> {
    flipped
        .iter()
        .filter_map(|&(id, checked)| {
            let element = after.get(id)?;
            let selector = toggle_selector_for(after, id)?;
            Some(Toggled { selector, name: described(element), label: toggle_label(after, element), checked })
        })
        .collect()
}

/// What a toggle's row calls it: its own content-desc, else the first text in the
/// nearest of its ancestors (up to a few) that holds one besides the toggle's own
/// text ("Wi-Fi" for the switch at the end of the Wi-Fi row); empty when none does.
fn toggle_label(ui: &UiTree, toggle: &Element) -> String {
    if !toggle.content_desc.is_empty() {
        return toggle.content_desc.clone();
    }
    let mut ancestor = toggle.parent.and_then(|p| ui.get(p));
    for _ in 0..ROW_DEPTH {
        let Some(row) = ancestor else { break };
        let label = ui.subtree(row.id).iter().filter(|e| e.id != toggle.id).find_map(|e| {
            [&e.text, &e.content_desc].into_iter().find(|t| !t.trim().is_empty()).map(|t| t.trim().to_string())
        });
        if let Some(label) = label {
            return label;
        }
        ancestor = row.parent.and_then(|p| ui.get(p));
    }
    String::new()
}

/// How many ancestors up a toggle's label is looked for: a settings row nests its
/// switch two or three deep; past that, texts belong to other rows.
const ROW_DEPTH: usize = 3;

/// Whether repeating a tap on `target` is harmless when the first one showed
/// nothing: never for a toggle, nor for anything inside the clickable row that
/// holds one (a tap on its label flips it), whose state may have flipped where no
/// one could see it yet.
pub fn safe_to_repeat(ui: &UiTree, target: &Element) -> bool {
    let mut receiver = target;
    while !receiver.clickable
        && let Some(parent) = receiver.parent.and_then(|p| ui.get(p))
    {
        receiver = parent;
    }
    let pressed = if receiver.clickable { receiver } else { target };
    !target.checkable && !ui.subtree(pressed.id).iter().any(|e| e.checkable)
}

#[cfg(test)]
mod tests {
    use super::*;
    use codeact_platform::device::PhoneState;

    fn obs(xml: &str, activity: &str, keyboard: bool) -> Observation {
        let ui = codeact_platform::ui::parse(xml.as_bytes(), (1080, 2400)).unwrap();
        let phone = PhoneState {
            package: "com.android.settings".into(),
            activity: activity.into(),
            keyboard_shown: keyboard,
            focused: None,
            ..Default::default()
        };
        Observation { ui, phone, screen: (1080, 2400), ..Default::default() }
    }

    const SWITCH_ON: &str = r#"<hierarchy rotation="0"><node index="0" text="" class="android.widget.Switch" resource-id="com.android.settings:id/wifi_switch" package="com.android.settings" checkable="true" checked="true" clickable="true" enabled="true" bounds="[900,300][1000,400]"/></hierarchy>"#;

    #[test]
    fn a_toggle_says_which_way_it_went_and_is_never_repeated() {
        let before = obs(SWITCH_ON, "com.android.settings.Settings", false);
        let after =
            obs(&SWITCH_ON.replace("checked=\"true\"", "checked=\"false\""), "com.android.settings.Settings", false);
        let target = &before.ui.elements[0];
        let e = describe(&before, &after, Some(target));
        assert_eq!(e.text, "Switch (id wifi_switch) checked → unchecked");
        assert_eq!(e.flipped, vec![(0, false)]);
        assert!(e.visible);
        assert!(!safe_to_repeat(&before.ui, target));
    }

    #[test]
    fn activities_keyboard_and_nothing_at_all() {
        let before = obs(SWITCH_ON, "com.android.settings.Settings", false);
        let after = obs(SWITCH_ON, "com.android.settings.SubSettings", true);
        assert_eq!(describe(&before, &after, None).text, "opened .SubSettings; keyboard shown");
        let same = describe(&before, &before, None);
        assert_eq!(same, ActionEffect { visible: false, text: "no visible change".into(), flipped: Vec::new() });
    }
}
