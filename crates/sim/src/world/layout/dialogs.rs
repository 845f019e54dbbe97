//! The dialog window over the top app: the scrim behind it, the card with its title, message
//! and buttons, for an app's own dialogs and for injected blockers (ANR, crash, permission,
//! rate, update). Not the app's window (`app_window`).

use super::super::model::{DialogInstance, FaultDialog, World};
use super::nodes::{ACCENT, SECONDARY, TEXT, WHITE, full_id, label, node};
use crate::screen::{Hook, Node, Rect, Role, Screen};

pub(super) fn scrim(w: i32, h: i32) -> Node {
    Node { role: Role::Scrim, ..node("", "", Rect::new(0, 0, w, h)) }
}

/// What an injected blocker shows: its window's package, title, message and buttons.
type DialogText = (String, String, String, Vec<(String, String)>);

fn fault_dialog(kind: FaultDialog, package: &str, label: &str) -> DialogText {
    let button = |text: &str, id: &str| (text.to_string(), id.to_string());
    match kind {
        FaultDialog::Anr => (
            "android".into(),
            format!("{label} isn't responding"),
            "Do you want to close it?".into(),
            vec![button("Wait", "android:id/aerr_wait"), button("Close app", "android:id/aerr_close")],
        ),
        FaultDialog::Crash => (
            "android".into(),
            format!("{label} keeps stopping"),
            String::new(),
            vec![button("Close app", "android:id/aerr_close"), button("Send feedback", "android:id/aerr_report")],
        ),
        FaultDialog::Permission => (
            "com.google.android.permissioncontroller".into(),
            format!("Allow {label} to send you notifications?"),
            String::new(),
            vec![
                button("Allow", "com.android.permissioncontroller:id/permission_allow_button"),
                button("Don\u{2019}t allow", "com.android.permissioncontroller:id/permission_deny_button"),
            ],
        ),
        FaultDialog::Rate => (
            package.into(),
            format!("Enjoying {label}?"),
            "Tap Rate now to leave a review on Google Play.".into(),
            vec![
                button("Not now", &format!("{package}:id/rate_later")),
                button("Rate now", &format!("{package}:id/rate_now")),
            ],
        ),
        FaultDialog::Update => (
            package.into(),
            "Update available".into(),
            format!("A new version of {label} is available."),
            vec![
                button("Later", &format!("{package}:id/update_later")),
                button("Update", &format!("{package}:id/update_now")),
            ],
        ),
    }
}

pub(super) fn dialog_window(world: &World, dialog: &DialogInstance, screen: &Screen) -> Node {
    let (package, title, message, buttons): DialogText = match dialog {
        DialogInstance::Fault { kind, package, label } => fault_dialog(*kind, package, label),
        DialogInstance::App { app, dialog, record } => {
            let Some(app_spec) = world.catalog.apps.get(*app) else { return Node::default() };
            let Some(d) = app_spec.dialogs.get(*dialog) else { return Node::default() };
            let rec = record.as_ref().and_then(|(c, i)| world.record(c, *i));
            let scope = world.scope(rec.as_ref(), record.as_ref().map(|(_, i)| *i));
            (
                d.package.clone().unwrap_or_else(|| app_spec.package.clone()),
                scope.render(&d.title),
                scope.render(&d.message),
                d.buttons.iter().map(|b| (scope.render(&b.text), full_id(&app_spec.package, &b.id))).collect(),
            )
        }
    };
    let w = screen.width as i32;
    let h = screen.height as i32;
    let margin = screen.dp(24.0);
    let pad = screen.dp(24.0);
    let title_h = screen.dp(64.0);
    let message_h = if message.is_empty() { 0 } else { screen.dp(56.0) };
    let button_h = screen.dp(56.0);
    let card_h = pad + title_h + message_h + buttons.len() as i32 * button_h + pad;
    let top = (h - card_h) / 2;
    let card = Rect::new(margin, top, w - margin, top + card_h);
    let inner = Rect::new(card.left + pad, card.top + pad, card.right - pad, card.bottom - pad);
    let mut y = inner.top;
    let mut column =
        Node { resource_id: "android:id/content".into(), ..node("android.widget.LinearLayout", &package, inner) };
    let mut t = label(title, &package, Rect::new(inner.left, y, inner.right, y + title_h), 20.0, TEXT, true);
    t.resource_id = full_id(&package, "alertTitle");
    column.children.push(t);
    y += title_h;
    if message_h > 0 {
        let mut m =
            label(message, &package, Rect::new(inner.left, y, inner.right, y + message_h), 14.0, SECONDARY, false);
        m.resource_id = "android:id/message".into();
        column.children.push(m);
        y += message_h;
    }
    for (i, (text, id)) in buttons.into_iter().enumerate() {
        column.children.push(Node {
            text,
            resource_id: id,
            clickable: true,
            focusable: true,
            role: Role::Button { color: ACCENT },
            hook: Some(Hook::DialogButton(i)),
            ..node(
                "android.widget.Button",
                &package,
                Rect::new(inner.left, y + screen.dp(4.0), inner.right, y + button_h - screen.dp(4.0)),
            )
        });
        y += button_h;
    }
    Node {
        role: Role::Surface { color: WHITE },
        children: vec![column],
        ..node("android.widget.FrameLayout", &package, card)
    }
}
