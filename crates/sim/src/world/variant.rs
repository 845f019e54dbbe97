//! Layout variants: the bundled apps as an app update changes them, so a replay
//! that survives (or heals) can be measured. Variant 0 is the apps as written;
//! each higher variant keeps every change of the one below and adds one:
//!
//! 1. items reordered: each run of plain rows and switches on a screen is reversed
//!    (coordinates and `ui_state` indices move; texts and ids stay);
//! 2. ids renamed: every bare resource id is spelled another way (`wifi_switch` →
//!    `switch_wifi`, `title` → `title_view`), as refactors do;
//! 3. an extra dialog: each app's first screen shows a one-time "What's new" dialog
//!    ("Got it") before anything can be tapped.
//!
//! State, data and behaviour never change: only what a script sees and where.

use super::catalog::Catalog;
use super::spec::{DialogButton, DialogSpec, ItemKind};
use super::template::Value;

/// The highest variant there is.
pub const MAX_VARIANT: u32 = 3;

/// `id` as variant 2 spells it.
pub(crate) fn renamed(id: &str) -> String {
    if id.is_empty() || id.contains(':') || id.contains('/') {
        return id.to_string();
    }
    let parts: Vec<&str> = id.split('_').collect();
    if parts.len() > 1 { parts.into_iter().rev().collect::<Vec<_>>().join("_") } else { format!("{id}_view") }
}

/// The state key that remembers the "What's new" dialog of `package` was seen.
fn seen_key(package: &str) -> String {
    format!("variant.whats_new_{}", package.replace('.', "_"))
}

impl Catalog {
    /// This catalog as layout variant `n` (0: unchanged; above [`MAX_VARIANT`]: the
    /// highest).
    pub(crate) fn variant(&self, n: u32) -> Catalog {
        let mut apps = self.apps.clone();
        let mut initial_state = self.initial_state.clone();
        for app in &mut apps {
            // An update: the APK says a newer version.
            app.version_code = app.version_code.saturating_add(n.min(MAX_VARIANT));
            if n >= 1 {
                for screen in &mut app.screens {
                    let plain = |k: &ItemKind| matches!(k, ItemKind::Row | ItemKind::Switch);
                    let mut i = 0;
                    while i < screen.items.len() {
                        let start = i;
                        while i < screen.items.len() && plain(&screen.items[i].kind) && screen.items[i].dock.is_none() {
                            i += 1;
                        }
                        if i - start > 1 {
                            screen.items[start..i].reverse();
                        }
                        i = i.max(start + 1);
                    }
                }
            }
            if n >= 2 {
                for screen in &mut app.screens {
                    for item in &mut screen.items {
                        item.id = renamed(&item.id);
                    }
                    screen.autofocus = screen.autofocus.as_deref().map(renamed);
                }
                for dialog in &mut app.dialogs {
                    for button in &mut dialog.buttons {
                        button.id = renamed(&button.id);
                    }
                }
            }
            if n >= 3
                && let Some(launcher) = app.launcher.clone()
                && app.on_home
                && let Some(screen) = app.screens.iter_mut().find(|s| s.activity == launcher)
                && screen.dialog.is_none()
            {
                let key = seen_key(&app.package);
                initial_state.insert(key.clone(), Value::Bool(false));
                screen.dialog = Some("variant_whats_new".into());
                screen.dialog_when = Some(format!("!{key}"));
                app.dialogs.push(DialogSpec {
                    name: "variant_whats_new".into(),
                    package: None,
                    title: format!("What's new in {}", app.label),
                    message: "A fresh look: some things moved.".into(),
                    buttons: vec![DialogButton {
                        text: "Got it".into(),
                        id: "whats_new_ok".into(),
                        on_tap: format!("set {key} true"),
                    }],
                });
            }
        }
        Catalog { world: self.world.clone(), apps, initial_state }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_respelled_and_qualified_ones_kept() {
        assert_eq!(renamed("wifi_switch"), "switch_wifi");
        assert_eq!(renamed("title"), "title_view");
        assert_eq!(
            renamed("com.android.permissioncontroller:id/permission_allow_button"),
            "com.android.permissioncontroller:id/permission_allow_button"
        );
        let base = Catalog::bundled().unwrap();
        let v3 = base.variant(3);
        let settings = |c: &Catalog| c.apps.iter().find(|a| a.package == "com.android.settings").cloned().unwrap();
        let ids = |c: &Catalog| settings(c).screens[0].items.iter().map(|i| i.id.clone()).collect::<Vec<_>>();
        assert_ne!(ids(&base), ids(&v3));
        assert!(ids(&v3).iter().any(|i| i == "switch_wifi") || ids(&base).iter().all(|i| i != "wifi_switch"));
        assert!(settings(&v3).dialogs.iter().any(|d| d.name == "variant_whats_new"));
    }
}
