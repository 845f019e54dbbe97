//! The touch routes: `/wda/tap` (and `/wda/tap/0`), `/wda/doubleTap`, `/wda/touchAndHold`
//! and `/wda/dragfromtoforduration`, in points; a drag from the left edge goes back, as
//! iOS's edge swipe does. Not keys or buttons (`input`).

use serde_json::Value;

use super::door::{Door, Reply};
use super::number;

/// How close to the left edge (in points) a drag must start to go back.
const EDGE_POINTS: f64 = 8.0;

/// The longest gesture a request may ask for: it never holds the door longer.
const MAX_GESTURE_MS: f64 = 10_000.0;

impl Door {
    pub(super) fn tap(&self, body: &Value, times: usize) -> Reply {
        let (x, y) = self.pixel(number(body, "x")?, number(body, "y")?);
        for _ in 0..times {
            self.device.world().tap(x, y);
        }
        Ok(Value::Null)
    }

    pub(super) fn touch_and_hold(&self, body: &Value) -> Reply {
        let (x, y) = self.pixel(number(body, "x")?, number(body, "y")?);
        let ms = (number(body, "duration").unwrap_or(1.0) * 1000.0).clamp(0.0, MAX_GESTURE_MS) as u64;
        self.gesture((x, y), (x, y), ms);
        Ok(Value::Null)
    }

    pub(super) fn drag(&self, body: &Value) -> Reply {
        let from = self.pixel(number(body, "fromX")?, number(body, "fromY")?);
        let to = self.pixel(number(body, "toX")?, number(body, "toY")?);
        // WDA's `duration` is how long the finger rests before it moves; the move
        // itself takes about a quarter of a second.
        let hold = (number(body, "duration").unwrap_or(0.0) * 1000.0).clamp(0.0, MAX_GESTURE_MS) as u64;
        // A drag from the left edge to the right is iOS's way back (the interactive
        // pop gesture of a navigation controller).
        let width = self.device.world().screen().width as i32;
        if number(body, "fromX")? <= EDGE_POINTS && to.0 - from.0 > width / 4 {
            self.device.world().back();
            return Ok(Value::Null);
        }
        self.gesture(from, to, hold + 250);
        Ok(Value::Null)
    }

    /// A finger down at `from` (on what is there now), up at `to` after `ms`; the
    /// world is not held while the finger rests.
    fn gesture(&self, from: (i32, i32), to: (i32, i32), ms: u64) {
        let down = self.device.world().touch_down_at(from.0, from.1);
        std::thread::sleep(std::time::Duration::from_millis(ms));
        self.device.world().swipe_from(down, from, to, ms);
    }
}
