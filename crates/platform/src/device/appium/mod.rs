//! Any phone behind a W3C WebDriver / Appium server (`--device appium:URL`): a local
//! Appium, a Selenium Grid, a device farm's hub. The [`Device`] trait on the W3C
//! protocol and Appium's extensions: the page source read by the session's platform
//! (UiAutomator2's or XCUITest's), the screenshot, taps, presses, swipes and drags as
//! W3C Actions, typing into the focused element, keys and apps through Appium's
//! `mobile:` commands, and a shell only where the server allows it (`mobile:
//! shell`, which Appium keeps behind `--allow-insecure`), said otherwise. A session
//! is created with the capabilities of `target.rs` and deleted when the device
//! goes, or attached to (`#session=ID`) and left to its owner. Not the HTTP
//! (`w3c/`).

mod target;

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

pub use target::{AppiumTarget, AppiumTargetError, capabilities};

use super::w3c::{Scope, Server, W3cClient, W3cError};
use crate::device::contract::Device;
use crate::device::errors::DeviceError;
use crate::device::observation::{Observation, ObservedVia, PhoneState};
use crate::device::platform::Platform;
use crate::device::shell::ShellOutput;

/// An Appium server, as its errors name it.
const APPIUM: Server = Server {
    name: "the Appium server",
    check: "check that the server answers at its URL's /status",
    unreachable: "is it running at that URL (appium --port 4723), and is the base path right (some servers want /wd/hub)?",
};

/// A phone behind an Appium server.
pub struct AppiumDevice {
    client: W3cClient,
    platform: Platform,
    /// The screen in pixels.
    screen: (u32, u32),
    /// Pixels per point (iOS); 1 on Android, whose sources count pixels.
    scale: f64,
}

impl AppiumDevice {
    /// Reaches the server `target` names, then creates a session with `caps` (or
    /// attaches to the target's), and reads the screen's size.
    pub fn connect(target: &AppiumTarget, caps: Value, timeout: Duration) -> Result<Self, DeviceError> {
        let mut client = W3cClient::new(&target.base, timeout, APPIUM, target.credentials.clone())?;
        client.name = format!("appium:{}", target.base);
        let capabilities = match &target.session {
            Some(id) => {
                client.attach(id);
                client.session_capabilities()
            }
            // The reply to the creation says them: no second request.
            None => client.create_session(caps)?,
        };
        let platform = match capabilities.get("platformName").and_then(Value::as_str).map(str::to_ascii_lowercase) {
            Some(p) if p == "ios" || p == "tvos" => Platform::Ios,
            _ => Platform::Android,
        };
        let mut device = Self { client, platform, screen: (0, 0), scale: 1.0 };
        let rect = device.get("/window/rect", "read the window size")?;
        let dim = |k: &str| rect.get(k).and_then(Value::as_f64).unwrap_or(0.0).clamp(0.0, 100_000.0);
        let (w, h) = (dim("width"), dim("height"));
        if platform == Platform::Ios && w > 0.0 {
            // XCUITest counts points: the screenshot says how many pixels one is.
            let png = device.screenshot()?;
            let size = png_size(&png).unwrap_or((w as u32, h as u32));
            device.scale = (f64::from(size.0) / w).clamp(1.0, 16.0);
        }
        device.screen = ((w * device.scale).round() as u32, (h * device.scale).round() as u32);
        Ok(device)
    }

    fn get(&mut self, path: &str, op: &str) -> Result<Value, DeviceError> {
        self.client.request(Method::GET, path, None, Scope::Session, op)
    }

    fn post(&mut self, path: &str, body: Value, op: &str) -> Result<Value, DeviceError> {
        self.client.request(Method::POST, path, Some(body), Scope::Session, op)
    }

    /// An Appium `mobile:` command with its one argument map.
    fn mobile(&mut self, command: &str, args: Value, op: &str) -> Result<Value, DeviceError> {
        self.post("/execute/sync", json!({"script": format!("mobile: {command}"), "args": [args]}), op)
    }

    fn points(&self, v: i32) -> f64 {
        (f64::from(v) / self.scale).round()
    }

    /// One finger's W3C action sequence: to `from`, down, `hold` ms, along to `to`
    /// over `ms`, up.
    fn finger(&mut self, from: (i32, i32), hold: u32, to: (i32, i32), ms: u32, op: &str) -> Result<(), DeviceError> {
        let (fx, fy, tx, ty) = (self.points(from.0), self.points(from.1), self.points(to.0), self.points(to.1));
        let mut steps = vec![
            json!({"type": "pointerMove", "duration": 0, "x": fx, "y": fy, "origin": "viewport"}),
            json!({"type": "pointerDown", "button": 0}),
        ];
        if hold > 0 {
            steps.push(json!({"type": "pause", "duration": hold}));
        }
        if from != to {
            steps.push(json!({"type": "pointerMove", "duration": ms, "x": tx, "y": ty, "origin": "viewport"}));
        }
        steps.push(json!({"type": "pointerUp", "button": 0}));
        let actions = json!({"actions": [{"type": "pointer", "id": "finger1", "parameters": {"pointerType": "touch"}, "actions": steps}]});
        self.post("/actions", actions, op)?;
        Ok(())
    }

    /// The element with input focus (W3C's active element), by its id.
    fn active_element(&mut self) -> Option<String> {
        let active = self.get("/element/active", "read the focus").ok()?;
        active
            .get("element-6066-11e4-a52e-4f735466cecf")
            .or_else(|| active.get("ELEMENT"))
            .and_then(Value::as_str)
            .map(str::to_string)
    }

    fn not_offered(&self, what: &str, instead: &str) -> DeviceError {
        DeviceError::NotOnPlatform {
            device: self.client.name.clone(),
            what: what.to_string(),
            platform: "an Appium session",
            instead: instead.to_string(),
        }
    }

    /// What a `mobile: shell` refusal means: Appium keeps the shell behind a flag.
    fn shell_refused(&self, e: DeviceError) -> DeviceError {
        let refused = |w: &W3cError| matches!(w, W3cError::Says { message, .. } if message.contains("insecure") || message.contains("adb_shell"));
        match &e {
            DeviceError::W3c(w) if refused(w) => self.not_offered(
                "a shell (the server keeps `mobile: shell` behind a flag)",
                "start the Appium server with --allow-insecure=uiautomator2:adb_shell, or do it with a tool",
            ),
            _ => e,
        }
    }
}

impl Drop for AppiumDevice {
    fn drop(&mut self) {
        // A session created here ends here; an attached one is its owner's.
        self.client.deadline = None;
        self.client.close();
    }
}

/// A URI as Appium's `mobile: deepLink` can pass it: the driver hands it to the
/// phone's shell unquoted (escaping only `&`), so a space would split it and other
/// shell characters act; those are percent-encoded, as a URI may be (apps read
/// them decoded). Letters beyond ASCII pass as they are.
fn shell_safe_uri(uri: &str) -> String {
    let mut out = String::with_capacity(uri.len());
    for c in uri.chars() {
        if c.is_ascii() && (c.is_ascii_whitespace() || c.is_ascii_control() || "\"'`$;|<>(){}[]*!\\^".contains(c)) {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// A PNG's size, from its header.
fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    let ihdr = png.get(16..24)?;
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    Some((be(&ihdr[..4]), be(&ihdr[4..])))
}

impl Device for AppiumDevice {
    fn name(&self) -> &str {
        &self.client.name
    }

    fn platform(&self) -> Platform {
        self.platform
    }

    fn is_installed(&mut self, package: &str) -> Result<bool, DeviceError> {
        let key = if self.platform == Platform::Ios { "bundleId" } else { "appId" };
        Ok(self.mobile("isAppInstalled", json!({ key: package }), "ask whether an app is installed")?.as_bool()
            == Some(true))
    }

    fn observe(&mut self) -> Result<Observation, DeviceError> {
        let (began, started) = (std::time::SystemTime::now(), Instant::now());
        let source = self.get("/source", "read the page source")?;
        let xml = source.as_str().unwrap_or_default().to_string();
        let name = self.client.name.clone();
        let ui = match self.platform {
            Platform::Ios => crate::ui::parse_xcui(xml.as_bytes(), self.scale, self.screen),
            _ => crate::ui::parse(xml.as_bytes(), self.screen),
        }
        .map_err(|source| DeviceError::Ui { device: name, source })?;
        let mut phone = PhoneState { platform: self.platform, ..PhoneState::default() };
        match self.platform {
            Platform::Ios => {
                phone.package =
                    ui.roots.first().and_then(|r| ui.get(*r)).map(|e| e.package.clone()).unwrap_or_default();
                phone.keyboard_shown = ui.elements.iter().any(|e| e.native_class == "XCUIElementTypeKeyboard");
            }
            _ => {
                let text = |v: Result<Value, DeviceError>| v.ok().and_then(|v| v.as_str().map(str::to_string));
                // The source is the active window: its package is the app in front
                // (one request fewer per look; the driver reads it with adb).
                let in_front = ui.roots.first().and_then(|r| ui.get(*r)).map(|e| e.package.clone());
                phone.package = match in_front.filter(|p| !p.is_empty()) {
                    Some(package) => package,
                    None => {
                        text(self.get("/appium/device/current_package", "read the app in front")).unwrap_or_default()
                    }
                };
                phone.activity =
                    text(self.get("/appium/device/current_activity", "read the activity")).unwrap_or_default();
                phone.keyboard_shown = self
                    .get("/appium/device/is_keyboard_shown", "read the keyboard")
                    .ok()
                    .and_then(|v| v.as_bool())
                    .unwrap_or(false);
            }
        }
        phone.focused = ui.elements.iter().find(|e| e.focused && e.is_editable()).map(|e| e.id);
        let via = ObservedVia::Appium;
        Ok(Observation { ui, phone, screen: self.screen, dump: xml, via, ..Default::default() }.stamped(began, started))
    }

    fn screenshot(&mut self) -> Result<Vec<u8>, DeviceError> {
        self.client.screenshot(Scope::Session)
    }

    fn tap(&mut self, x: i32, y: i32) -> Result<(), DeviceError> {
        match self.platform {
            // One request, and no hold: the driver's own tap (a W3C sequence costs a
            // 50 ms pause so that every server reads it as a touch).
            Platform::Android => self.mobile("clickGesture", json!({"x": x, "y": y}), "tap").map(|_| ()),
            _ => self.finger((x, y), 50, (x, y), 0, "tap"),
        }
    }

    fn long_press(&mut self, x: i32, y: i32, ms: u32) -> Result<(), DeviceError> {
        self.finger((x, y), ms.clamp(300, 60_000), (x, y), 0, "long press")
    }

    fn swipe(&mut self, x1: i32, y1: i32, x2: i32, y2: i32, ms: u32) -> Result<(), DeviceError> {
        self.finger((x1, y1), 0, (x2, y2), ms.clamp(50, 60_000), "swipe")
    }

    fn drag(&mut self, x1: i32, y1: i32, x2: i32, y2: i32, ms: u32) -> Result<(), DeviceError> {
        self.finger((x1, y1), 600, (x2, y2), ms.clamp(200, 60_000), "drag")
    }

    fn input_text(&mut self, text: &str) -> Result<(), DeviceError> {
        match self.active_element() {
            Some(id) => {
                let chars: Vec<String> = text.chars().map(String::from).collect();
                self.post(&format!("/element/{id}/value"), json!({"text": text, "value": chars}), "type").map(|_| ())
            }
            None => {
                let mut keys = Vec::new();
                for c in text.chars() {
                    keys.push(json!({"type": "keyDown", "value": c.to_string()}));
                    keys.push(json!({"type": "keyUp", "value": c.to_string()}));
                }
                let actions = json!({"actions": [{"type": "key", "id": "keyboard", "actions": keys}]});
                self.post("/actions", actions, "type").map(|_| ())
            }
        }
    }

    fn clear_text(&mut self) -> Result<(), DeviceError> {
        match self.active_element() {
            Some(id) => self.post(&format!("/element/{id}/clear"), json!({}), "clear a field").map(|_| ()),
            None => Ok(()),
        }
    }

    fn press_key(&mut self, key: &str) -> Result<(), DeviceError> {
        let key = key.trim().to_ascii_lowercase();
        if matches!(key.as_str(), "back" | "keycode_back" | "4") {
            return self.post("/back", json!({}), "go back").map(|_| ());
        }
        if self.platform == Platform::Ios {
            return match key.as_str() {
                "home" | "3" => self.mobile("pressButton", json!({"name": "home"}), "go home").map(|_| ()),
                "enter" => self.input_text("\n"),
                _ => Err(self.not_offered(&format!("the key {key:?}"), "use back, home or enter")),
            };
        }
        let code = key.parse::<u32>().ok().or_else(|| adb_wire::keycodes::from_friendly_name(&key));
        match code {
            Some(keycode) => self.mobile("pressKey", json!({"keycode": keycode}), "press a key").map(|_| ()),
            None => {
                Err(self
                    .not_offered(&format!("the key {key:?}"), "name an Android key (back, home, enter, KEYCODE_...)"))
            }
        }
    }

    fn go_home(&mut self) -> Result<(), DeviceError> {
        self.press_key("home")
    }

    fn start_app(&mut self, package: &str, activity: Option<&str>) -> Result<(), DeviceError> {
        match (self.platform, activity) {
            (Platform::Ios, _) => self.mobile("activateApp", json!({"bundleId": package}), "start an app").map(|_| ()),
            (_, Some(activity)) => {
                let intent = format!("{package}/{activity}");
                self.mobile("startActivity", json!({"intent": intent}), "start an activity").map(|_| ())
            }
            (_, None) => self.mobile("activateApp", json!({"appId": package}), "start an app").map(|_| ()),
        }
    }

    fn stop_app(&mut self, package: &str) -> Result<(), DeviceError> {
        let key = if self.platform == Platform::Ios { "bundleId" } else { "appId" };
        self.mobile("terminateApp", json!({ key: package }), "stop an app").map(|_| ())
    }

    fn clear_app_data(&mut self, package: &str) -> Result<(), DeviceError> {
        let key = if self.platform == Platform::Ios { "bundleId" } else { "appId" };
        self.mobile("clearApp", json!({ key: package }), "clear an app's data").map(|_| ())
    }

    fn open_url(&mut self, uri: &str) -> Result<(), DeviceError> {
        match self.platform {
            Platform::Ios => self.post("/url", json!({"url": uri}), "open a link").map(|_| ()),
            _ => self.mobile("deepLink", json!({"url": shell_safe_uri(uri)}), "open a link").map(|_| ()),
        }
    }

    fn list_packages(&mut self, system: bool) -> Result<Vec<String>, DeviceError> {
        let line = if system { "pm list packages" } else { "pm list packages -3" };
        let out = self.shell(line).map_err(|e| match e {
            DeviceError::NotOnPlatform { .. } => self.not_offered(
                "listing installed apps",
                "start an app by its package name (start_app(\"com.android.settings\"))",
            ),
            other => other,
        })?;
        Ok(out.stdout_text().lines().filter_map(|l| l.trim().strip_prefix("package:")).map(str::to_string).collect())
    }

    fn shell(&mut self, command: &str) -> Result<ShellOutput, DeviceError> {
        if self.platform == Platform::Ios {
            return Err(self.not_offered("a shell", "XCUITest runs no shell commands"));
        }
        let ran = self.mobile("shell", json!({"command": command, "includeStderr": true}), "run a shell command");
        let value = ran.map_err(|e| self.shell_refused(e))?;
        let text = |k: &str| value.get(k).and_then(Value::as_str).unwrap_or("").as_bytes().to_vec();
        Ok(match value.as_str() {
            Some(out) => ShellOutput { stdout: out.as_bytes().to_vec(), stderr: Vec::new(), code: None },
            None => ShellOutput { stdout: text("stdout"), stderr: text("stderr"), code: None },
        })
    }

    fn timeout(&self) -> Duration {
        self.client.timeout
    }

    fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.client.deadline = deadline;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn links_survive_the_shell_appium_hands_them_to() {
        assert_eq!(super::shell_safe_uri("sms:Grace Lee"), "sms:Grace%20Lee");
        assert_eq!(super::shell_safe_uri("sms:张三"), "sms:张三");
        assert_eq!(super::shell_safe_uri("https://x.test/a?b=1&c=$(id)"), "https://x.test/a?b=1&c=%24%28id%29");
        assert_eq!(super::shell_safe_uri("a'b\"c;d|e`f"), "a%27b%22c%3Bd%7Ce%60f");
    }
}
