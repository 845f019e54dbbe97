//! The rows an app's items contribute to its scrolled list: headers, texts, rows with a
//! switch, fields, buttons, sliders, a game's canvas, images, a source's records and the
//! launcher's grid of apps. Not where the list sits in the window (`app_window`).

use super::super::canvas::{CanvasParts, canvas_node};
use super::super::names::LAUNCHER_PACKAGE;
use super::super::spec::{ItemKind, ItemSpec};
use super::super::template::Record;
use super::app_window::AppLayout;
use super::nodes::{ACCENT, GRID_CELL, GRID_COLUMNS, HEADER, ROW_ONE_LINE, ROW_TWO_LINE, SECONDARY, TEXT, WHITE};
use super::nodes::{full_id, label, node};
use crate::emblem::Emblem;
use crate::screen::{Hook, IconShape, Node, Rect, Role};

impl AppLayout<'_> {
    /// The rows one item contributes, advancing `y` (content coordinates) past them.
    pub(super) fn item_rows(&self, index: usize, item: &ItemSpec, y: &mut i32) -> Vec<Node> {
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
                    super::super::template::Value::Int(i) => i,
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
                let color = item.color.as_deref().and_then(super::super::spec::parse_color).unwrap_or(ACCENT);
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
        let apps = self.world.catalog.home_apps();
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
                        color: super::super::spec::parse_color(&app.icon.color).unwrap_or(ACCENT),
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

    pub(super) fn field(&self, index: usize, item: &ItemSpec, bounds: Rect, enabled: bool) -> Node {
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

    pub(super) fn button(&self, index: usize, item: &ItemSpec, bounds: Rect, enabled: bool) -> Node {
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
