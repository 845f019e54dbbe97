//! The routes that read the screen: `/source` (the XCUI page, in points), `/window/size`,
//! `/wda/screen`, `/screenshot` (pixels), and the focused element (`/element/active`, its
//! `/rect`). Not writing the XML (`page_source/xcui.rs`) nor acting on the screen.

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::door::{Door, Reply, error, invalid};
use crate::page_source::xcui as source;

impl Door {
    pub(super) fn source(&self, query: &str) -> Reply {
        if query.split('&').any(|p| p.starts_with("format=") && p != "format=xml") {
            return Err(invalid("only format=xml is served by the virtual phone"));
        }
        Ok(Value::String(source::of_world(&self.device.world())))
    }

    pub(super) fn window_size(&self) -> Value {
        let screen = self.device.world().screen();
        let s = source::scale(&screen);
        json!({"width": screen.width / s, "height": screen.height / s})
    }

    pub(super) fn screen_info(&self) -> Value {
        let screen = self.device.world().screen();
        let s = source::scale(&screen);
        json!({
            "screenSize": {"width": screen.width / s, "height": screen.height / s},
            "statusBarSize": {"width": screen.width / s, "height": screen.dp(24.0).max(0) as u32 / s},
            "scale": s,
        })
    }

    pub(super) fn screenshot(&self) -> Reply {
        let png = crate::render::encode_png(&self.device.frame())
            .map_err(|e| error(StatusCode::INTERNAL_SERVER_ERROR, "unable to capture screen", e.to_string()))?;
        Ok(Value::String(base64::Engine::encode(&base64::engine::general_purpose::STANDARD, png)))
    }

    /// The focused element (W3C `GET /element/active`), as WDA answers: an element
    /// reference. Its id is its frame in points, so the door keeps no element table.
    pub(super) fn active_element(&self) -> Reply {
        let screen = self.device.world().screen();
        let scale = source::scale(&screen) as i32;
        fn find(node: &crate::screen::Node) -> Option<&crate::screen::Node> {
            if node.focused {
                return Some(node);
            }
            node.children.iter().find_map(find)
        }
        let node = screen
            .windows
            .iter()
            .find_map(find)
            .ok_or_else(|| error(StatusCode::NOT_FOUND, "no such element", "No element has focus"))?;
        let b = node.bounds;
        let id = format!("rect-{}-{}-{}-{}", b.left / scale, b.top / scale, b.width() / scale, b.height() / scale);
        Ok(json!({"ELEMENT": id, "element-6066-11e4-a52e-4f735466cecf": id}))
    }
}

/// `GET /element/:id/rect` of an element [`Door::active_element`] named.
pub(super) fn element_rect(id: &str) -> Reply {
    let nums: Vec<i64> = id.strip_prefix("rect-").unwrap_or("").split('-').filter_map(|n| n.parse().ok()).collect();
    match nums.as_slice() {
        [x, y, width, height] => Ok(json!({"x": x, "y": y, "width": width, "height": height})),
        _ => Err(error(StatusCode::NOT_FOUND, "stale element reference", format!("The element '{id}' does not exist"))),
    }
}
