//! The page Appium's UiAutomator2 server reads on each request: the active window,
//! or every window when a session asks for them. What the server keeps between
//! requests (its session, settings and elements) is `device/uia2_state.rs`'s.

use serde_json::Value;

use crate::screen::Screen;

/// The screen as the server sees it: the active window only (the app, or the
/// dialog over it), as UiAutomator2 reads `getRootInActiveWindow`, unless the
/// `enableMultiWindows` setting asks for every window (the status bar, the
/// keyboard).
pub(crate) fn page(device: &crate::device::SimDevice) -> Screen {
    let mut screen = device.world().screen();
    let multi = device.agents().uia2.settings().get("enableMultiWindows").and_then(Value::as_bool) == Some(true);
    if !multi {
        let active = screen.windows.get(screen.active).cloned();
        screen.windows = active.into_iter().collect();
        screen.active = 0;
    }
    screen
}
