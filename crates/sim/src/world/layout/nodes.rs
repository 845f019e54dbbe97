//! What every part of the layout shares: the palette, the row sizes in dp, and the node
//! helpers (a plain node, a label, full resource ids, clipping and shifting a subtree,
//! insetting a rect). Not any window or band of the screen (`mod.rs` and its siblings).

use crate::screen::{Node, Rect, Role};

pub(super) const TEXT: u32 = 0x202124;
pub(super) const SECONDARY: u32 = 0x5F6368;
pub(super) const ACCENT: u32 = 0x1A73E8;
pub(super) const WHITE: u32 = 0xFFFFFF;
pub(super) const APP_BAR: u32 = 0xF8F9FA;

/// Row heights in dp.
pub(super) const ROW_TWO_LINE: f32 = 72.0;
pub(super) const ROW_ONE_LINE: f32 = 56.0;
pub(super) const HEADER: f32 = 48.0;
pub(super) const GRID_CELL: f32 = 112.0;
pub(super) const GRID_COLUMNS: i32 = 4;

pub(super) fn node(class: &str, package: &str, bounds: Rect) -> Node {
    Node { class: class.into(), package: package.into(), bounds, enabled: true, ..Default::default() }
}

pub(super) fn label(text: String, package: &str, bounds: Rect, size_dp: f32, color: u32, bold: bool) -> Node {
    Node { text, role: Role::Label { size_dp, color, bold }, ..node("android.widget.TextView", package, bounds) }
}

/// `name` → `PACKAGE:id/name`; ids that already name a package stay as they are.
pub(super) fn full_id(package: &str, id: &str) -> String {
    if id.is_empty() || id.contains(":id/") { id.to_string() } else { format!("{package}:id/{id}") }
}

/// Keeps a node only if it is at least partly inside `clip`, with clipped bounds.
pub(super) fn clipped(mut n: Node, clip: &Rect) -> Option<Node> {
    let visible = n.bounds.intersect(clip);
    if visible.is_empty() {
        return None;
    }
    n.bounds = visible;
    n.children = std::mem::take(&mut n.children).into_iter().filter_map(|c| clipped(c, clip)).collect();
    Some(n)
}

pub(super) fn shift(n: &mut Node, dy: i32) {
    n.bounds = n.bounds.offset(0, dy);
    for c in &mut n.children {
        shift(c, dy);
    }
}

impl Rect {
    pub(super) fn inset(&self, dx: i32, dy: i32) -> Rect {
        Rect::new(
            self.left + dx,
            self.top + dy,
            (self.right - dx).max(self.left + dx),
            (self.bottom - dy).max(self.top + dy),
        )
    }
    pub(super) fn inset_h(&self, dx: i32) -> Rect {
        self.inset(dx, 0)
    }
}
