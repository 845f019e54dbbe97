//! Turning script arguments into device arguments, with errors that say what to pass:
//! coordinates (pixels, fractions of the screen, or 0..N on a scale) and durations
//! (bounded, and short enough to end before the snippet's deadline).

use std::time::Duration;

use rhai::Dynamic;

use super::error::ToolError;

/// A coordinate on an axis `size` pixels long: an int is pixels (or 0..=N of the
/// screen when `scale` is N), a float in 0..1 is a fraction of the screen.
pub(crate) fn coord(v: &Dynamic, size: u32, scale: Option<u32>, axis: &'static str) -> Result<i32, ToolError> {
    let size_i = i64::from(size);
    if let Ok(i) = v.as_int() {
        return match scale {
            Some(n) if (0..=i64::from(n)).contains(&i) => Ok((i * size_i / i64::from(n.max(1))).min(size_i - 1) as i32),
            Some(scale) => Err(ToolError::OffScale { axis, value: i, scale }),
            None if (0..size_i).contains(&i) => Ok(i as i32),
            None => Err(ToolError::OffScreen { axis, value: i, last: size_i - 1 }),
        };
    }
    match v.as_float() {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok(((f * size as f64).round() as i32).min(size as i32 - 1).max(0)),
        Ok(value) => Err(ToolError::NotAFraction { axis, value }),
        Err(found) => Err(ToolError::NotANumber { axis, found: found.to_string() }),
    }
}

/// A gesture's duration: 0..60000 ms, and short enough to end before the snippet's
/// deadline (the device would otherwise hold the snippet past its limit).
pub(crate) fn gesture_ms(ms: i64, left: Duration) -> Result<u32, ToolError> {
    let ms = u32::try_from(ms).ok().filter(|m| *m <= 60_000).ok_or(ToolError::BadDuration(ms))?;
    if Duration::from_millis(u64::from(ms)) >= left {
        return Err(ToolError::GestureTooLong { ms, left_ms: left.as_millis() });
    }
    Ok(ms)
}

/// A wait in milliseconds: not negative.
pub(crate) fn wait_ms(ms: i64, name: &'static str) -> Result<u64, ToolError> {
    u64::try_from(ms).map_err(|_| ToolError::Negative(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_are_pixels_fractions_or_per_mille() {
        let at = |v: Dynamic, scale| coord(&v, 1080, scale, "x").map_err(|e| e.to_string());
        assert_eq!(at(Dynamic::from(540_i64), None), Ok(540));
        assert_eq!(at(Dynamic::from(0.5_f64), None), Ok(540));
        assert_eq!(at(Dynamic::from(500_i64), Some(1000)), Ok(540));
        assert!(at(Dynamic::from(1080_i64), None).unwrap_err().contains("off the screen (0..1079)"));
        assert!(at(Dynamic::from(1200_i64), Some(1000)).unwrap_err().contains("outside 0..1000"));
        assert!(at(Dynamic::from(1.5_f64), None).unwrap_err().contains("fractions"));
        assert!(matches!(gesture_ms(500, Duration::from_millis(100)), Err(ToolError::GestureTooLong { .. })));
        assert!(matches!(gesture_ms(-1, Duration::from_secs(9)), Err(ToolError::BadDuration(-1))));
    }
}
