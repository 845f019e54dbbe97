//! Lays the world out as a [`Screen`]: windows, app bar, scrolled rows, docked
//! fields, floating buttons, dialogs, the keyboard and the system bars.
//!
//! Sizes are in dp and scaled by the density, as Android does, so every screen size
//! gets sensible pixel bounds. Layout is pure: it reads the world and changes nothing.

use super::canvas::{CanvasParts, canvas_node};
use super::spec::{AppSpec, ItemKind, ItemSpec, KeyboardMode, ScreenSpec};
use super::template::Record;
use super::{DialogInstance, FaultDialog, LATIN_IME, LAUNCHER_PACKAGE, World};
use crate::emblem::Emblem;
use crate::screen::{Hook, IconShape, Node, Rect, Role, Screen};

const TEXT: u32 = 0x202124;
const SECONDARY: u32 = 0x5F6368;
const ACCENT: u32 = 0x1A73E8;
const WHITE: u32 = 0xFFFFFF;
const APP_BAR: u32 = 0xF8F9FA;

/// Row heights in dp.
const ROW_TWO_LINE: f32 = 72.0;
const ROW_ONE_LINE: f32 = 56.0;
const HEADER: f32 = 48.0;
const GRID_CELL: f32 = 112.0;
const GRID_COLUMNS: i32 = 4;

/// The horizontal bands of the screen: status bar, app area, keyboard, nav bar.
struct Bands {
    status: i32,
    nav_top: i32,
    keyboard_top: i32,
}

fn bands(world: &World, screen: &Screen) -> Bands {
    let h = screen.height as i32;
    let nav_top = h - screen.dp(48.0);
    let keyboard_h = match (world.keyboard_shown, world.ime == LATIN_IME) {
        (false, _) => 0,
        (true, true) => screen.dp(260.0),
        (true, false) => screen.dp(56.0),
    };
    Bands { status: screen.dp(24.0), nav_top, keyboard_top: nav_top - keyboard_h }
}

fn empty_screen(world: &World) -> Screen {
    let g = world.geometry;
    Screen { width: g.width, height: g.height, density: g.density, windows: Vec::new(), active: 0, look: g.look }
}

pub(crate) fn build(world: &World) -> Screen {
    let mut screen = empty_screen(world);
    let w = screen.width as i32;
    let h = screen.height as i32;
    let Bands { status, nav_top, keyboard_top } = bands(world, &screen);

    if let Some((app, spec, inst)) = world.top() {
        // An overlaid keyboard covers the bottom of a screen laid out to the nav bar.
        let bottom = if spec.keyboard == KeyboardMode::Overlays { nav_top } else { keyboard_top };
        let lay = AppLayout { world, screen: &screen, app, spec, width: w, top: status, bottom };
        let offset = animation_offset(world, &screen);
        let window = lay.window(inst.scroll, offset);
        screen.windows.push(window);
    }
    if let Some(dialog) = world.dialogs.last() {
        screen.windows.push(scrim(w, h));
        screen.active = screen.windows.len();
        screen.windows.push(dialog_window(world, dialog, &screen));
    }
    if world.keyboard_shown {
        screen.windows.push(keyboard_window(world, Rect::new(0, keyboard_top, w, nav_top)));
    }
    screen.windows.push(status_bar(Rect::new(0, 0, w, status), world));
    screen.windows.push(nav_bar(Rect::new(0, nav_top, w, h)));
    screen
}

/// While slow-ui animates a change, content slides up into place in four steps.
fn animation_offset(world: &World, screen: &Screen) -> i32 {
    let (Some(at), false) = (world.changed_at, world.slow_ui.is_zero()) else { return 0 };
    let progress = at.elapsed().as_secs_f32() / world.slow_ui.as_secs_f32();
    if progress >= 1.0 {
        return 0;
    }
    let remaining = 1.0 - (progress * 4.0).floor() / 4.0;
    (remaining * screen.dp(96.0) as f32) as i32
}

fn node(class: &str, package: &str, bounds: Rect) -> Node {
    Node { class: class.into(), package: package.into(), bounds, enabled: true, ..Default::default() }
}

fn label(text: String, package: &str, bounds: Rect, size_dp: f32, color: u32, bold: bool) -> Node {
    Node { text, role: Role::Label { size_dp, color, bold }, ..node("android.widget.TextView", package, bounds) }
}

/// `name` → `PACKAGE:id/name`; ids that already name a package stay as they are.
fn full_id(package: &str, id: &str) -> String {
    if id.is_empty() || id.contains(":id/") { id.to_string() } else { format!("{package}:id/{id}") }
}

/// Keeps a node only if it is at least partly inside `clip`, with clipped bounds.
fn clipped(mut n: Node, clip: &Rect) -> Option<Node> {
    let visible = n.bounds.intersect(clip);
    if visible.is_empty() {
        return None;
    }
    n.bounds = visible;
    n.children = std::mem::take(&mut n.children).into_iter().filter_map(|c| clipped(c, clip)).collect();
    Some(n)
}

struct AppLayout<'a> {
    world: &'a World,
    screen: &'a Screen,
    app: &'a AppSpec,
    spec: &'a ScreenSpec,
    width: i32,
    top: i32,
    bottom: i32,
}

impl AppLayout<'_> {
    fn dp(&self, v: f32) -> i32 {
        self.screen.dp(v)
    }

    fn pkg(&self) -> &str {
        &self.app.package
    }

    fn window(&self, scroll: i32, offset: i32) -> Node {
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
    fn viewport(&self) -> Rect {
        let bare = self.pkg() == LAUNCHER_PACKAGE || self.spec.fullscreen;
        let top = if bare { self.top } else { self.top + self.dp(64.0) };
        let dock_h = if self.spec.items.iter().any(ItemSpec::is_docked) { self.dp(72.0) } else { 0 };
        Rect::new(0, top, self.width, (self.bottom - dock_h).max(top))
    }

    /// The height of everything in the scrolled list.
    fn content_height(&self) -> i32 {
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

    /// The rows one item contributes, advancing `y` (content coordinates) past them.
    fn item_rows(&self, index: usize, item: &ItemSpec, y: &mut i32) -> Vec<Node> {
        let scope = self.world.scope(None, None);
        let pkg = self.pkg();
        let enabled = item.enabled.as_deref().is_none_or(|c| scope.holds(c));
        let hook = Some(Hook::Item { item: index, record: None });
        let mut take = |h: f32| {
            let top = *y;
            *y += self.dp(h);
            Rect::new(0, top, self.width, *y)
        };
        let mut rows = Vec::new();
        match item.kind {
            ItemKind::Header => {
                let b = take(HEADER);
                rows.push(label(scope.render(&item.text), pkg, b.inset_h(self.dp(16.0)), 14.0, ACCENT, true));
            }
            ItemKind::Text => {
                let b = take(ROW_ONE_LINE);
                let mut n = label(scope.render(&item.text), pkg, b.inset_h(self.dp(16.0)), 16.0, TEXT, false);
                n.resource_id = full_id(pkg, &item.id);
                n.content_desc = scope.render(&item.desc);
                rows.push(n);
            }
            ItemKind::Row | ItemKind::Switch => {
                let summary = scope.render(&item.summary);
                let b = take(if summary.is_empty() { ROW_ONE_LINE } else { ROW_TWO_LINE });
                let checked = item.bind.as_deref().map(|k| scope.get(k).is_some_and(|v| v.truthy()));
                let row = self.row(RowParts {
                    bounds: b,
                    title: scope.render(&item.text),
                    summary,
                    desc: scope.render(&item.desc),
                    id: if item.kind == ItemKind::Row { full_id(pkg, &item.id) } else { String::new() },
                    switch: if item.kind == ItemKind::Switch {
                        checked.map(|c| (c, full_id(pkg, &item.id)))
                    } else {
                        None
                    },
                    clickable: item.on_tap.is_some() || item.kind == ItemKind::Switch,
                    long_clickable: item.on_long_press.is_some(),
                    enabled,
                    hook,
                });
                rows.push(row);
            }
            ItemKind::Field => {
                let b = take(64.0);
                rows.push(self.field(index, item, b.inset(self.dp(16.0), self.dp(6.0)), enabled));
            }
            ItemKind::Button => {
                let b = take(64.0);
                rows.push(self.button(index, item, b.inset(self.dp(16.0), self.dp(8.0)), enabled));
            }
            ItemKind::Slider => {
                let b = take(ROW_ONE_LINE);
                let value = item.bind.as_deref().and_then(|k| scope.get(k)).map(|v| match v {
                    super::template::Value::Int(i) => i,
                    other => other.to_string().parse().unwrap_or(0),
                });
                rows.push(Node {
                    content_desc: scope.render(&item.desc),
                    resource_id: full_id(pkg, &item.id),
                    clickable: true,
                    focusable: true,
                    enabled,
                    role: Role::Slider { value: value.unwrap_or(0), max: item.max.unwrap_or(100) },
                    hook,
                    ..node("android.widget.SeekBar", pkg, b.inset_h(self.dp(16.0)))
                });
            }
            ItemKind::List => rows.extend(self.list_rows(index, item, y)),
            ItemKind::Grid => rows.extend(self.grid(y)),
            ItemKind::Canvas => {
                // The whole viewport: a game's surface does not scroll.
                let bounds = take(0.0);
                let bounds = Rect::new(0, bounds.top, self.width, bounds.top + self.viewport().height());
                *y = bounds.bottom;
                let resource_id = full_id(pkg, &item.id);
                let parts = CanvasParts {
                    world: self.world,
                    screen: self.spec,
                    package: pkg,
                    index,
                    item,
                    resource_id,
                    bounds,
                };
                rows.push(canvas_node(&parts));
            }
            ItemKind::Image => {
                let side = item.size.unwrap_or(96.0).clamp(8.0, 512.0);
                let b = take(side + 16.0);
                let (px, left) = (self.dp(side), (self.width - self.dp(side)) / 2);
                let emblem = item.emblem.as_deref().and_then(Emblem::parse).unwrap_or(Emblem::Star);
                let color = item.color.as_deref().and_then(super::spec::parse_color).unwrap_or(ACCENT);
                rows.push(Node {
                    content_desc: scope.render(&item.desc),
                    resource_id: full_id(pkg, &item.id),
                    clickable: item.on_tap.is_some(),
                    role: Role::Sprite { emblem, color, backdrop: WHITE },
                    hook,
                    ..node(
                        "android.widget.ImageView",
                        pkg,
                        Rect::new(left, b.top + self.dp(8.0), left + px, b.top + self.dp(8.0) + px),
                    )
                });
            }
            ItemKind::Fab | ItemKind::Action | ItemKind::Sprite => {}
        }
        rows
    }

    fn list_rows(&self, index: usize, item: &ItemSpec, y: &mut i32) -> Vec<Node> {
        let pkg = self.pkg();
        let Some(source) = item.source.as_deref() else { return Vec::new() };
        let records = self.world.records(source);
        let mut shown: Vec<(usize, &Record)> = records
            .iter()
            .enumerate()
            .filter(|(i, r)| item.filter.as_deref().is_none_or(|c| self.world.scope(Some(r), Some(*i)).holds(c)))
            .collect();
        if let Some(field) = item.distinct.as_deref() {
            let mut seen = std::collections::HashSet::new();
            shown = shown.into_iter().rev().filter(|(_, r)| seen.insert(r.get(field).map(|v| v.to_string()))).collect();
        }
        if shown.is_empty() && !item.empty.is_empty() {
            let b = Rect::new(0, *y, self.width, *y + self.dp(ROW_ONE_LINE));
            *y = b.bottom;
            return vec![label(item.empty.clone(), pkg, b.inset_h(self.dp(16.0)), 16.0, SECONDARY, false)];
        }
        let scope_enabled = item.enabled.as_deref().is_none_or(|c| self.world.scope(None, None).holds(c));
        shown
            .into_iter()
            .map(|(i, record)| {
                let scope = self.world.scope(Some(record), Some(i));
                let summary = scope.render(&item.summary);
                let h = self.dp(if summary.is_empty() { ROW_ONE_LINE } else { ROW_TWO_LINE });
                let b = Rect::new(0, *y, self.width, *y + h);
                *y += h;
                let switch = item
                    .switch
                    .as_deref()
                    .map(|f| (record.get(f).is_some_and(|v| v.truthy()), full_id(pkg, &format!("{}_switch", item.id))));
                self.row(RowParts {
                    bounds: b,
                    title: scope.render(&item.text),
                    summary,
                    desc: scope.render(&item.desc),
                    id: full_id(pkg, &item.id),
                    clickable: item.on_tap.is_some() || switch.is_some(),
                    switch,
                    long_clickable: item.on_long_press.is_some(),
                    enabled: scope_enabled,
                    hook: Some(Hook::Item { item: index, record: Some(i) }),
                })
            })
            .collect()
    }

    fn grid(&self, y: &mut i32) -> Vec<Node> {
        let cell_w = self.width / GRID_COLUMNS;
        let cell_h = self.dp(GRID_CELL);
        let top = *y + self.dp(24.0);
        let apps: Vec<(usize, &AppSpec)> =
            self.world.catalog.apps.iter().enumerate().filter(|(_, a)| a.on_home && a.launcher.is_some()).collect();
        let rows = (apps.len() as i32 + GRID_COLUMNS - 1) / GRID_COLUMNS;
        *y = top + rows * cell_h;
        apps.into_iter()
            .enumerate()
            .map(|(n, (index, app))| {
                let (col, row) = (n as i32 % GRID_COLUMNS, n as i32 / GRID_COLUMNS);
                let b = Rect::new(col * cell_w, top + row * cell_h, (col + 1) * cell_w, top + (row + 1) * cell_h);
                Node {
                    text: app.label.clone(),
                    content_desc: app.label.clone(),
                    resource_id: "com.android.launcher3:id/icon".into(),
                    clickable: true,
                    focusable: true,
                    long_clickable: true,
                    role: Role::Icon {
                        shape: IconShape::parse(&app.icon.shape).unwrap_or_default(),
                        color: super::spec::parse_color(&app.icon.color).unwrap_or(ACCENT),
                        emblem: app.icon.emblem.as_deref().and_then(Emblem::parse),
                    },
                    hook: Some(Hook::AppIcon(index)),
                    ..node("android.widget.TextView", LAUNCHER_PACKAGE, b)
                }
            })
            .collect()
    }

    fn row(&self, p: RowParts) -> Node {
        let pkg = self.pkg();
        let pad = self.dp(16.0);
        let switch_w = if p.switch.is_some() { self.dp(72.0) } else { 0 };
        let text_area = Rect::new(pad, p.bounds.top, p.bounds.right - pad - switch_w, p.bounds.bottom);
        let color = if p.enabled { TEXT } else { 0x9E9E9E };
        let mut texts = Node { ..node("android.widget.RelativeLayout", pkg, text_area) };
        texts.enabled = p.enabled;
        if p.summary.is_empty() {
            let mut t = label(p.title, pkg, text_area, 16.0, color, false);
            t.resource_id = "android:id/title".into();
            t.enabled = p.enabled;
            texts.children.push(t);
        } else {
            let mid = (text_area.top + text_area.bottom) / 2;
            let mut t = label(
                p.title,
                pkg,
                Rect::new(text_area.left, text_area.top + self.dp(8.0), text_area.right, mid),
                16.0,
                color,
                false,
            );
            t.resource_id = "android:id/title".into();
            t.enabled = p.enabled;
            let mut s = label(
                p.summary,
                pkg,
                Rect::new(text_area.left, mid, text_area.right, text_area.bottom - self.dp(8.0)),
                14.0,
                SECONDARY,
                false,
            );
            s.resource_id = "android:id/summary".into();
            s.enabled = p.enabled;
            texts.children.push(t);
            texts.children.push(s);
        }
        let mut row = Node {
            resource_id: p.id,
            content_desc: p.desc,
            clickable: p.clickable,
            focusable: p.clickable,
            long_clickable: p.long_clickable,
            enabled: p.enabled,
            hook: p.hook,
            children: vec![texts],
            ..node("android.widget.LinearLayout", pkg, p.bounds)
        };
        if let Some((checked, id)) = p.switch {
            let frame_b =
                Rect::new(p.bounds.right - pad - switch_w, p.bounds.top, p.bounds.right - pad, p.bounds.bottom);
            let switch = Node {
                resource_id: if id.is_empty() { "android:id/switch_widget".into() } else { id },
                checkable: true,
                checked,
                focusable: true,
                enabled: p.enabled,
                role: Role::Switch,
                ..node("android.widget.Switch", pkg, frame_b)
            };
            row.children.push(Node {
                resource_id: "android:id/widget_frame".into(),
                enabled: p.enabled,
                children: vec![switch],
                ..node("android.widget.LinearLayout", pkg, frame_b)
            });
        }
        row
    }

    fn field(&self, index: usize, item: &ItemSpec, bounds: Rect, enabled: bool) -> Node {
        let scope = self.world.scope(None, None);
        let value = item.bind.as_deref().and_then(|k| scope.get(k)).map(|v| v.to_string()).unwrap_or_default();
        let focused = self.world.focus.is_some_and(|f| f.item == index);
        Node {
            text: value,
            hint: scope.render(&item.hint),
            resource_id: full_id(self.pkg(), &item.id),
            content_desc: scope.render(&item.desc),
            clickable: true,
            focusable: true,
            focused,
            long_clickable: true,
            enabled,
            role: Role::Field,
            hook: Some(Hook::Item { item: index, record: None }),
            ..node("android.widget.EditText", self.pkg(), bounds)
        }
    }

    fn button(&self, index: usize, item: &ItemSpec, bounds: Rect, enabled: bool) -> Node {
        let scope = self.world.scope(None, None);
        Node {
            text: scope.render(&item.text),
            content_desc: scope.render(&item.desc),
            resource_id: full_id(self.pkg(), &item.id),
            clickable: true,
            focusable: true,
            enabled,
            role: Role::Button { color: ACCENT },
            hook: Some(Hook::Item { item: index, record: None }),
            ..node("android.widget.Button", self.pkg(), bounds)
        }
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
                    .and_then(super::spec::parse_color)
                    .unwrap_or(ACCENT),
                glyph: item.glyph.clone(),
            },
            hook: Some(Hook::Item { item: index, record: None }),
            ..node("android.widget.ImageButton", self.pkg(), b)
        }
    }
}

struct RowParts {
    bounds: Rect,
    title: String,
    summary: String,
    desc: String,
    id: String,
    switch: Option<(bool, String)>,
    clickable: bool,
    long_clickable: bool,
    enabled: bool,
    hook: Option<Hook>,
}

fn shift(n: &mut Node, dy: i32) {
    n.bounds = n.bounds.offset(0, dy);
    for c in &mut n.children {
        shift(c, dy);
    }
}

impl Rect {
    fn inset(&self, dx: i32, dy: i32) -> Rect {
        Rect::new(
            self.left + dx,
            self.top + dy,
            (self.right - dx).max(self.left + dx),
            (self.bottom - dy).max(self.top + dy),
        )
    }
    fn inset_h(&self, dx: i32) -> Rect {
        self.inset(dx, 0)
    }
}

fn scrim(w: i32, h: i32) -> Node {
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

fn dialog_window(world: &World, dialog: &DialogInstance, screen: &Screen) -> Node {
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

fn keyboard_window(world: &World, bounds: Rect) -> Node {
    if world.ime == LATIN_IME {
        let pkg = "com.google.android.inputmethod.latin";
        return Node {
            role: Role::Keyboard,
            hook: Some(Hook::Keyboard),
            ..node("android.widget.FrameLayout", pkg, bounds)
        };
    }
    let (pkg, name) = if world.ime == super::PORTAL_IME {
        ("com.droidrun.portal", "Droidrun Keyboard")
    } else {
        ("com.android.adbkeyboard", "ADB Keyboard {ON}")
    };
    let text = label(name.into(), pkg, bounds, 16.0, TEXT, false);
    Node {
        role: Role::Surface { color: 0xE8EAED },
        children: vec![text],
        ..node("android.widget.FrameLayout", pkg, bounds)
    }
}

fn status_bar(bounds: Rect, world: &World) -> Node {
    let pkg = "com.android.systemui";
    let clock_w = bounds.height() * 3;
    let now = world.now_secs();
    let mut clock = label(
        super::template::clock_text(now, "%H:%M"),
        pkg,
        Rect::new(bounds.height() / 2, bounds.top, clock_w, bounds.bottom),
        14.0,
        TEXT,
        false,
    );
    clock.resource_id = "com.android.systemui:id/clock".into();
    clock.content_desc = super::template::clock_text(now, "%-I:%M %p");
    let percent = world.state.get("settings.battery_percentage").is_some_and(|v| v.truthy());
    clock.role = Role::Container;
    let battery = Node {
        resource_id: "com.android.systemui:id/battery".into(),
        content_desc: "Battery 100 percent.".into(),
        text: if percent { "100%".into() } else { String::new() },
        ..node(
            "android.widget.LinearLayout",
            pkg,
            Rect::new(bounds.right - clock_w, bounds.top, bounds.right, bounds.bottom),
        )
    };
    Node {
        resource_id: "com.android.systemui:id/status_bar".into(),
        role: Role::StatusBar,
        children: vec![clock, battery],
        ..node("android.widget.FrameLayout", pkg, bounds)
    }
}

fn nav_bar(bounds: Rect) -> Node {
    let pkg = "com.android.systemui";
    let w = bounds.width() / 3;
    let buttons = [
        ("back", "Back", "◀", Hook::NavBack),
        ("home", "Home", "●", Hook::NavHome),
        ("recent_apps", "Overview", "■", Hook::NavRecents),
    ];
    let children = buttons
        .into_iter()
        .enumerate()
        .map(|(i, (id, desc, glyph, hook))| {
            let left = bounds.left + w * i as i32;
            Node {
                resource_id: format!("com.android.systemui:id/{id}"),
                content_desc: desc.into(),
                clickable: true,
                focusable: true,
                long_clickable: true,
                role: Role::ToolButton { glyph: glyph.into() },
                hook: Some(hook),
                ..node("android.widget.ImageView", pkg, Rect::new(left, bounds.top, left + w, bounds.bottom))
            }
        })
        .collect();
    Node {
        resource_id: "com.android.systemui:id/navigation_bar_frame".into(),
        role: Role::Surface { color: 0xF2F2F2 },
        children,
        ..node("android.widget.FrameLayout", pkg, bounds)
    }
}

/// The largest scroll offset of the top screen (content height minus viewport).
pub(crate) fn max_scroll(world: &World) -> i32 {
    let Some((app, spec, _)) = world.top() else { return 0 };
    let screen = empty_screen(world);
    let b = bands(world, &screen);
    let lay = AppLayout {
        world,
        screen: &screen,
        app,
        spec,
        width: screen.width as i32,
        top: b.status,
        bottom: b.keyboard_top,
    };
    (lay.content_height() - lay.viewport().height()).max(0)
}
