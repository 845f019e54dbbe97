//! An app's window: its frame, the app bar with its actions, the scrolled list of rows, the
//! docked bar and the floating button. Not the rows themselves (`rows`) nor the windows the
//! system draws over it (`dialogs`, `system_windows`).

use super::super::model::World;
use super::super::names::LAUNCHER_PACKAGE;
use super::super::spec::{AppSpec, ItemKind, ItemSpec, ScreenSpec};
use super::nodes::{ACCENT, APP_BAR, TEXT, WHITE, clipped, full_id, label, node, shift};
use crate::screen::{Hook, Node, Rect, Role, Screen};

/// One app screen being laid out: the world, the screen's density, the app and its screen,
/// and the band (`top`..`bottom`, full `width`) its window fills.
pub(super) struct AppLayout<'a> {
    pub(super) world: &'a World,
    pub(super) screen: &'a Screen,
    pub(super) app: &'a AppSpec,
    pub(super) spec: &'a ScreenSpec,
    pub(super) width: i32,
    pub(super) top: i32,
    pub(super) bottom: i32,
}

impl AppLayout<'_> {
    pub(super) fn dp(&self, v: f32) -> i32 {
        self.screen.dp(v)
    }

    pub(super) fn pkg(&self) -> &str {
        &self.app.package
    }

    pub(super) fn window(&self, scroll: i32, offset: i32) -> Node {
        let pkg = self.pkg().to_string();
        let full = Rect::new(0, 0, self.width, self.screen.height as i32);
        let mut content = Node {
            resource_id: "android:id/content".into(),
            ..node("android.widget.FrameLayout", &pkg, Rect::new(0, self.top, self.width, self.bottom))
        };
        if pkg != LAUNCHER_PACKAGE && !self.spec.fullscreen {
            content.children.push(self.app_bar(self.top));
        }
        let docked: Vec<(usize, &ItemSpec)> =
            self.spec.items.iter().enumerate().filter(|(_, i)| i.is_docked()).collect();
        let viewport = self.viewport();
        // Content may have shrunk since the last scroll (a filter, a deletion).
        let scroll = scroll.clamp(0, (self.content_height() - viewport.height()).max(0));
        content.children.push(self.list(viewport, scroll, offset));
        if !docked.is_empty() {
            content.children.push(self.dock(&docked, Rect::new(0, viewport.bottom, self.width, self.bottom)));
        }
        for (index, item) in self.spec.items.iter().enumerate().filter(|(_, i)| i.kind == ItemKind::Fab) {
            content.children.push(self.fab(index, item, viewport.bottom));
        }
        let decor = Node { children: vec![content], ..node("android.widget.LinearLayout", &pkg, full) };
        Node {
            role: Role::Surface { color: WHITE },
            children: vec![decor],
            ..node("android.widget.FrameLayout", &pkg, full)
        }
    }

    /// Where the scrolled list shows: below the app bar, above the docked bar.
    pub(super) fn viewport(&self) -> Rect {
        let bare = self.pkg() == LAUNCHER_PACKAGE || self.spec.fullscreen;
        let top = if bare { self.top } else { self.top + self.dp(64.0) };
        let dock_h = if self.spec.items.iter().any(ItemSpec::is_docked) { self.dp(72.0) } else { 0 };
        Rect::new(0, top, self.width, (self.bottom - dock_h).max(top))
    }

    /// The height of everything in the scrolled list.
    pub(super) fn content_height(&self) -> i32 {
        let mut y = 0;
        for (index, item) in self.spec.items.iter().enumerate() {
            if !item.is_docked() && !matches!(item.kind, ItemKind::Fab | ItemKind::Action | ItemKind::Sprite) {
                self.item_rows(index, item, &mut y);
            }
        }
        y
    }

    fn app_bar(&self, y: i32) -> Node {
        let pkg = self.pkg();
        let bounds = Rect::new(0, y, self.width, y + self.dp(64.0));
        let mut bar = Node {
            resource_id: full_id(pkg, "toolbar"),
            role: Role::Surface { color: APP_BAR },
            ..node("android.view.ViewGroup", pkg, bounds)
        };
        let mut x = self.dp(16.0);
        if !self.spec.root {
            let up = Rect::new(self.dp(4.0), y + self.dp(4.0), self.dp(60.0), y + self.dp(60.0));
            bar.children.push(Node {
                content_desc: "Navigate up".into(),
                clickable: true,
                focusable: true,
                role: Role::ToolButton { glyph: "←".into() },
                hook: Some(Hook::NavUp),
                ..node("android.widget.ImageButton", pkg, up)
            });
            x = self.dp(72.0);
        }
        let actions: Vec<(usize, &ItemSpec)> =
            self.spec.items.iter().enumerate().filter(|(_, i)| i.kind == ItemKind::Action).collect();
        let actions_left = self.width - self.dp(56.0) * actions.len() as i32;
        let title = self.world.scope(None, None).render(&self.spec.title);
        bar.children.push(label(title, pkg, Rect::new(x, y, actions_left.max(x), bounds.bottom), 22.0, TEXT, false));
        for (n, (index, item)) in actions.into_iter().enumerate() {
            let left = actions_left + self.dp(56.0) * n as i32;
            bar.children.push(Node {
                content_desc: item.desc.clone(),
                text: item.text.clone(),
                resource_id: full_id(pkg, &item.id),
                clickable: true,
                focusable: true,
                role: Role::ToolButton { glyph: item.glyph.clone() },
                hook: Some(Hook::Item { item: index, record: None }),
                ..node(
                    "android.widget.Button",
                    pkg,
                    Rect::new(left, y + self.dp(4.0), left + self.dp(56.0), y + self.dp(60.0)),
                )
            });
        }
        bar
    }

    /// The scrolled content: every non-docked item as rows, clipped to `viewport`.
    fn list(&self, viewport: Rect, scroll: i32, offset: i32) -> Node {
        let pkg = self.pkg();
        let mut rows = Vec::new();
        let mut y = 0;
        for (index, item) in self.spec.items.iter().enumerate() {
            if item.is_docked() || matches!(item.kind, ItemKind::Fab | ItemKind::Action | ItemKind::Sprite) {
                continue;
            }
            for mut row in self.item_rows(index, item, &mut y) {
                shift(&mut row, viewport.top - scroll + offset);
                rows.push(row);
            }
        }
        let content_h = y;
        let scrollable = content_h > viewport.height();
        let launcher = pkg == LAUNCHER_PACKAGE;
        let class = if launcher { "android.view.ViewGroup" } else { "androidx.recyclerview.widget.RecyclerView" };
        let id =
            if launcher { "com.android.launcher3:id/workspace".to_string() } else { full_id(pkg, "recycler_view") };
        let mut list = Node { resource_id: id, scrollable, focusable: scrollable, ..node(class, pkg, viewport) };
        list.children = rows.into_iter().filter_map(|r| clipped(r, &viewport)).collect();
        list
    }

    /// Docked items share one bar: fields stretch, buttons are fixed width.
    fn dock(&self, items: &[(usize, &ItemSpec)], bounds: Rect) -> Node {
        let scope = self.world.scope(None, None);
        let pad = self.dp(8.0);
        let button_w = self.dp(88.0);
        let buttons = items.iter().filter(|(_, i)| i.kind != ItemKind::Field).count() as i32;
        let fields = items.iter().filter(|(_, i)| i.kind == ItemKind::Field).count().max(1) as i32;
        let field_w = (bounds.width() - pad - buttons * (button_w + pad)) / fields - pad;
        let mut x = pad;
        let mut dock = Node {
            resource_id: full_id(self.pkg(), "compose_bar"),
            role: Role::Surface { color: APP_BAR },
            ..node("android.widget.LinearLayout", self.pkg(), bounds)
        };
        for (index, item) in items {
            let enabled = item.enabled.as_deref().is_none_or(|c| scope.holds(c));
            let w = if item.kind == ItemKind::Field { field_w } else { button_w };
            let b = Rect::new(x, bounds.top + pad, x + w, bounds.bottom - pad);
            x += w + pad;
            dock.children.push(match item.kind {
                ItemKind::Field => self.field(*index, item, b, enabled),
                _ => self.button(*index, item, b, enabled),
            });
        }
        dock
    }

    fn fab(&self, index: usize, item: &ItemSpec, bottom: i32) -> Node {
        let size = self.dp(56.0);
        let right = self.width - self.dp(16.0);
        let b = Rect::new(right - size, bottom - self.dp(16.0) - size, right, bottom - self.dp(16.0));
        Node {
            content_desc: item.desc.clone(),
            resource_id: full_id(self.pkg(), &item.id),
            clickable: true,
            focusable: true,
            // Apps paint their floating button in their own colour, as their icon.
            role: Role::Fab {
                color: item
                    .color
                    .as_deref()
                    .or(Some(self.app.icon.color.as_str()))
                    .and_then(super::super::spec::parse_color)
                    .unwrap_or(ACCENT),
                glyph: item.glyph.clone(),
            },
            hook: Some(Hook::Item { item: index, record: None }),
            ..node("android.widget.ImageButton", self.pkg(), b)
        }
    }
}
