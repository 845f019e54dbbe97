//! Lays out a game's surface: a `canvas` item is one plain view filling its bounds,
//! and the screen's `sprite` items become drawn-only children of it — painted and
//! touchable, but in no page source, as when an app draws its controls itself.
//! Positions come from templates (dp from the canvas' top-left; negative ones from
//! its right or bottom edge), so a game's state can move them. Pure: reads the world, changes nothing.

use super::model::World;
use super::spec::{ItemKind, ItemSpec, ScreenSpec, parse_color};
use crate::emblem::Emblem;
use crate::screen::{Hook, Node, Rect, Role};

/// A sprite's side when its item gives none, in dp.
const DEFAULT_SPRITE_DP: f32 = 64.0;

/// What the canvas node is built from.
pub(super) struct CanvasParts<'a> {
    pub(super) world: &'a World,
    pub(super) screen: &'a ScreenSpec,
    pub(super) package: &'a str,
    /// The canvas item's index on its screen and its spec.
    pub(super) index: usize,
    pub(super) item: &'a ItemSpec,
    /// The canvas' full resource id (`PACKAGE:id/NAME`).
    pub(super) resource_id: String,
    pub(super) bounds: Rect,
}

/// The canvas view with its visible sprites as drawn-only children.
pub(super) fn canvas_node(p: &CanvasParts) -> Node {
    let scope = p.world.scope(None, None);
    let backdrop = p.item.color.as_deref().and_then(parse_color).unwrap_or(0x000000);
    let sprites = p
        .screen
        .items
        .iter()
        .enumerate()
        .filter(|(_, i)| i.kind == ItemKind::Sprite)
        .filter(|(_, i)| i.visible.as_deref().is_none_or(|c| scope.holds(c)))
        .filter_map(|(index, item)| sprite(p, index, item, backdrop))
        .collect();
    Node {
        class: "android.view.SurfaceView".into(),
        package: p.package.into(),
        resource_id: p.resource_id.clone(),
        content_desc: scope.render(&p.item.desc),
        enabled: true,
        bounds: p.bounds,
        role: Role::Surface { color: backdrop },
        children: sprites,
        hook: Some(Hook::Item { item: p.index, record: None }),
        ..Default::default()
    }
}

fn sprite(p: &CanvasParts, index: usize, item: &ItemSpec, backdrop: u32) -> Option<Node> {
    let scope = p.world.scope(None, None);
    let emblem = item.emblem.as_deref().and_then(Emblem::parse)?;
    // A template that does not read as a number puts the sprite at the canvas' edge.
    let dp_of = |template: &Option<String>| {
        template.as_deref().map(|t| scope.render(t)).and_then(|v| v.trim().parse::<f32>().ok()).unwrap_or(0.0)
    };
    let g = p.world.geometry;
    let side = g.dp(item.size.unwrap_or(DEFAULT_SPRITE_DP).clamp(1.0, 4096.0));
    // A negative place counts from the far edge (a pause button at the top right on
    // every screen width).
    let along = |v: f32, start: i32, end: i32| {
        let v = v.clamp(-4096.0, 4096.0);
        if v < 0.0 { end + g.dp(v) - side } else { start + g.dp(v) }
    };
    let left = along(dp_of(&item.x), p.bounds.left, p.bounds.right);
    let top = along(dp_of(&item.y), p.bounds.top, p.bounds.bottom);
    Some(Node {
        class: "android.view.View".into(),
        package: p.package.into(),
        content_desc: scope.render(&item.desc),
        enabled: true,
        clickable: item.on_tap.is_some(),
        bounds: Rect::new(left, top, left + side, top + side),
        role: Role::Sprite { emblem, color: item.color.as_deref().and_then(parse_color).unwrap_or(0xFFFFFF), backdrop },
        hook: Some(Hook::Item { item: index, record: None }),
        drawn_only: true,
        ..Default::default()
    })
}
