//! iOS over WebDriverAgent (`--device ios:http://127.0.0.1:8100`, and `--device
//! sim:ios`, the virtual phone's iOS door): the [`Device`] trait on WDA's HTTP API
//! (`client.rs`). The runtime counts in screenshot pixels, WDA in points: every
//! coordinate is divided by the screen's scale on the way out, and the page source is
//! read into pixels (`ui::parse_xcui`).
//!
//! Android's words mapped to iOS: `back` is the edge swipe from the left (iOS has no
//! Back key), `enter`/`delete`/`tab`/`space` are typed keys, `paste` types the
//! pasteboard's text (`/wda/getPasteboard`), `home` is the home screen; a package is a bundle id. What iOS cannot do over WDA — a raw shell,
//! clearing an app's data, listing installed apps, Android key codes — is a typed
//! [`DeviceError::NotOnPlatform`] that says what to do instead, never a silent no-op.

use std::time::{Duration, Instant};

use base64::Engine as _;
use reqwest::Method;
use serde_json::{Value, json};

use super::w3c::{Scope, Server, W3cClient, W3cError};
use crate::device::contract::Device;
use crate::device::errors::DeviceError;
use crate::device::observation::{Observation, PhoneState};
use crate::device::shell::ShellOutput;

/// WebDriverAgent, as its errors name it.
const WDA: Server = Server {
    name: "WebDriverAgent",
    check: "check that WebDriverAgent answers at its URL's /status",
    unreachable: "is it running and forwarded (iproxy 8100 8100), or try `codeact sim --platform ios`",
};

/// An iPhone (or the virtual one) behind a WebDriverAgent.
pub struct IosDevice {
    client: W3cClient,
    /// Pixels per point.
    scale: f64,
    /// The screen in pixels.
    screen: (u32, u32),
}

const PLATFORM: &str = crate::device::platform::Platform::Ios.name();

impl IosDevice {
    /// Connects to the WDA at `url` (`http://HOST:PORT`), opens a session and reads
    /// the screen's size and scale.
    pub fn connect(url: &str, timeout: Duration) -> Result<Self, DeviceError> {
        let mut client = W3cClient::new(url, timeout, WDA, None)?;
        // A restarted runner forgot its sessions: one is created again.
        client.recreate = true;
        let status = client.request(Method::GET, "/status", None, Scope::Plain, "status")?;
        if status.get("ready").and_then(Value::as_bool) == Some(false) {
            return Err(DeviceError::Command {
                device: client.name.clone(),
                op: "status".into(),
                output: format!("WebDriverAgent is not ready: {}", status.get("message").unwrap_or(&Value::Null)),
            });
        }
        client.create_session(json!({}))?;
        let screen = client.request(Method::GET, "/wda/screen", None, Scope::Plain, "read the screen's scale")?;
        let scale = screen.get("scale").and_then(Value::as_f64).filter(|s| *s > 0.0 && *s <= 16.0).unwrap_or(1.0);
        let size = client.request(Method::GET, "/window/size", None, Scope::Plain, "read the window size")?;
        let points = |key: &str| size.get(key).and_then(Value::as_f64).unwrap_or(0.0).clamp(0.0, 100_000.0);
        let screen = ((points("width") * scale).round() as u32, (points("height") * scale).round() as u32);
        Ok(Self { client, scale, screen })
    }

    /// The same device under another name in messages (`sim:ios (127.0.0.1:…)`).
    pub fn named(mut self, name: String) -> Self {
        self.client.name = name;
        self
    }

    fn not_here(&self, what: &str, instead: &str) -> DeviceError {
        DeviceError::NotOnPlatform {
            device: self.client.name.clone(),
            what: what.to_string(),
            platform: PLATFORM,
            instead: instead.to_string(),
        }
    }

    fn points(&self, v: i32) -> f64 {
        f64::from(v) / self.scale
    }

    fn post(&mut self, path: &str, body: Value, op: &str) -> Result<Value, DeviceError> {
        self.client.request(Method::POST, path, Some(body), Scope::Session, op)
    }

    fn keys(&mut self, text: &str) -> Result<(), DeviceError> {
        self.post("/wda/keys", json!({"value": [text]}), "type").map(|_| ())
    }

    /// The element with input focus: WDA's active element, matched by its frame.
    fn focused(&mut self, ui: &crate::ui::UiTree) -> Option<usize> {
        let active =
            self.client.request(Method::GET, "/element/active", None, Scope::Session, "read the focus").ok()?;
        let id = active
            .get("element-6066-11e4-a52e-4f735466cecf")
            .or_else(|| active.get("ELEMENT"))
            .and_then(Value::as_str)?
            .to_string();
        let path = format!("/element/{id}/rect");
        let rect = self.client.request(Method::GET, &path, None, Scope::Session, "read the focus").ok()?;
        let at = |k: &str| (rect.get(k).and_then(Value::as_f64).unwrap_or(0.0) * self.scale).round() as i32;
        let (x, y, w, h) = (at("x"), at("y"), at("width"), at("height"));
        let centre = (x + w / 2, y + h / 2);
        ui.elements
            .iter()
            .filter(|e| e.is_editable() && e.bounds.contains(centre.0, centre.1))
            .min_by_key(|e| (e.bounds.left - x).abs() + (e.bounds.top - y).abs())
            .map(|e| e.id)
    }
}

impl Device for IosDevice {
    fn name(&self) -> &str {
        &self.client.name
    }

    fn platform(&self) -> crate::device::platform::Platform {
        crate::device::platform::Platform::Ios
    }

    /// WDA lists no apps, but says of each whether it is there: state 0 is unknown
    /// (not installed), 1 not running, 2–4 running.
    fn is_installed(&mut self, package: &str) -> Result<bool, DeviceError> {
        let state = self.post("/wda/apps/state", json!({"bundleId": package}), "read an app's state")?;
        Ok(state.as_i64().unwrap_or(0) != 0)
    }

    fn observe(&mut self) -> Result<Observation, DeviceError> {
        let (began, started) = (std::time::SystemTime::now(), std::time::Instant::now());
        let source = self.client.request(Method::GET, "/source", None, Scope::Plain, "read the page source")?;
        let xml = source.as_str().unwrap_or_default().to_string();
        let ui = crate::ui::parse_xcui(xml.as_bytes(), self.scale, self.screen)
            .map_err(|source| DeviceError::Ui { device: self.client.name.clone(), source })?;
        let package = ui.roots.first().and_then(|r| ui.get(*r)).map(|e| e.package.clone()).unwrap_or_default();
        let keyboard_shown = ui.elements.iter().any(|e| e.native_class == "XCUIElementTypeKeyboard");
        let focused = if keyboard_shown { self.focused(&ui) } else { None };
        // iOS has no activities: the navigation bar names the screen.
        let title = ui
            .elements
            .iter()
            .find(|e| e.native_class == "XCUIElementTypeNavigationBar")
            .and_then(|bar| {
                [&bar.resource_id, &bar.text, &bar.content_desc].into_iter().find(|t| !t.is_empty()).cloned()
            })
            .unwrap_or_default();
        let phone = PhoneState {
            package,
            activity: String::new(),
            keyboard_shown,
            focused,
            platform: crate::device::platform::Platform::Ios,
            title,
        };
        let via = crate::device::observation::ObservedVia::Wda;
        Ok(Observation { ui, phone, screen: self.screen, dump: xml, via, ..Default::default() }.stamped(began, started))
    }

    fn screenshot(&mut self) -> Result<Vec<u8>, DeviceError> {
        self.client.screenshot(Scope::Plain)
    }

    fn tap(&mut self, x: i32, y: i32) -> Result<(), DeviceError> {
        let body = json!({"x": self.points(x), "y": self.points(y)});
        self.post("/wda/tap", body, "tap").map(|_| ())
    }

    fn long_press(&mut self, x: i32, y: i32, ms: u32) -> Result<(), DeviceError> {
        let body = json!({"x": self.points(x), "y": self.points(y), "duration": f64::from(ms) / 1000.0});
        self.post("/wda/touchAndHold", body, "long press").map(|_| ())
    }

    fn swipe(&mut self, x1: i32, y1: i32, x2: i32, y2: i32, _ms: u32) -> Result<(), DeviceError> {
        // WDA's duration is the press before the move: a swipe does not rest.
        let body = json!({"fromX": self.points(x1), "fromY": self.points(y1), "toX": self.points(x2), "toY": self.points(y2), "duration": 0.05});
        self.post("/wda/dragfromtoforduration", body, "swipe").map(|_| ())
    }

    fn drag(&mut self, x1: i32, y1: i32, x2: i32, y2: i32, ms: u32) -> Result<(), DeviceError> {
        let hold = f64::from(ms.max(500)) / 1000.0;
        let body = json!({"fromX": self.points(x1), "fromY": self.points(y1), "toX": self.points(x2), "toY": self.points(y2), "duration": hold});
        self.post("/wda/dragfromtoforduration", body, "drag").map(|_| ())
    }

    fn input_text(&mut self, text: &str) -> Result<(), DeviceError> {
        self.keys(text)
    }

    fn clear_text(&mut self) -> Result<(), DeviceError> {
        let seen = self.observe()?;
        let typed = seen.phone.focused.and_then(|f| seen.ui.get(f)).map(|e| e.text.chars().count()).unwrap_or(0);
        if typed == 0 {
            return Ok(());
        }
        self.keys(&"\u{8}".repeat(typed))
    }

    fn press_key(&mut self, key: &str) -> Result<(), DeviceError> {
        let key = key.trim().to_ascii_lowercase();
        let name = key.strip_prefix("keycode_").unwrap_or(&key);
        match name {
            "home" | "3" => self.go_home(),
            "back" | "4" => {
                // iOS goes back with a swipe from the left edge.
                let (w, h) = (self.screen.0 as i32, self.screen.1 as i32);
                let body = json!({"fromX": 1.0, "fromY": self.points(h / 2), "toX": self.points(w * 3 / 4), "toY": self.points(h / 2), "duration": 0.05});
                self.post("/wda/dragfromtoforduration", body, "go back").map(|_| ())
            }
            "enter" | "66" => self.keys("\n"),
            "delete" | "del" | "67" => self.keys("\u{8}"),
            "tab" | "61" => self.keys("\t"),
            "space" | "62" => self.keys(" "),
            // iOS has no paste key: what a paste does, the pasteboard's text typed.
            "paste" | "279" => {
                let value =
                    self.post("/wda/getPasteboard", json!({"contentType": "plaintext"}), "read the pasteboard")?;
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(value.as_str().unwrap_or_default().trim())
                    .map_err(|e| DeviceError::Unexpected {
                        device: self.client.name.clone(),
                        op: "read the pasteboard".into(),
                        output: format!("not base64: {e}"),
                    })?;
                let text = String::from_utf8_lossy(&bytes).into_owned();
                if text.is_empty() { Ok(()) } else { self.keys(&text) }
            }
            "volume_up" | "24" => self.post("/wda/pressButton", json!({"name": "volumeUp"}), "press a key").map(|_| ()),
            "volume_down" | "25" => {
                self.post("/wda/pressButton", json!({"name": "volumeDown"}), "press a key").map(|_| ())
            }
            _ => Err(self.not_here(
                &format!("the key {key:?}"),
                "use back, home, enter, delete, tab, space, paste, volume_up or volume_down",
            )),
        }
    }

    fn go_home(&mut self) -> Result<(), DeviceError> {
        // WDA serves the home screen without a session only.
        self.client.request(Method::POST, "/wda/homescreen", Some(json!({})), Scope::Plain, "go home").map(|_| ())
    }

    fn start_app(&mut self, package: &str, activity: Option<&str>) -> Result<(), DeviceError> {
        if activity.is_some() {
            return Err(self.not_here("starting an app at an activity", "start it by its bundle id alone"));
        }
        self.post("/wda/apps/launch", json!({"bundleId": package}), "start an app").map(|_| ())
    }

    fn stop_app(&mut self, package: &str) -> Result<(), DeviceError> {
        self.post("/wda/apps/terminate", json!({"bundleId": package}), "stop an app").map(|_| ())
    }

    fn clear_app_data(&mut self, _package: &str) -> Result<(), DeviceError> {
        Err(self.not_here("clearing an app's data", "reinstall the app, or reset the simulator"))
    }

    fn open_url(&mut self, uri: &str) -> Result<(), DeviceError> {
        self.post("/url", json!({"url": uri}), "open a link").map(|_| ())
    }

    fn list_packages(&mut self, _system: bool) -> Result<Vec<String>, DeviceError> {
        Err(self
            .not_here("listing installed apps", "start an app by its bundle id (start_app(\"com.apple.Preferences\"))"))
    }

    fn shell(&mut self, command: &str) -> Result<ShellOutput, DeviceError> {
        // The virtual phone's test hooks answer at a route of its own; a real WDA has none.
        let Some(args) = command.trim().strip_prefix("simctl ") else {
            return Err(self.not_here("a shell", "WebDriverAgent runs no shell commands"));
        };
        let body = json!({"args": args});
        let value = match self.client.request(Method::POST, "/codeact/simctl", Some(body), Scope::Plain, "simctl") {
            Err(DeviceError::W3c(e)) if matches!(&*e, W3cError::Says { error, .. } if error == "unknown command") => {
                return Err(DeviceError::NotVirtual { said: "WebDriverAgent has no simctl".into() });
            }
            other => other?,
        };
        let text = |k: &str| value.get(k).and_then(Value::as_str).unwrap_or("").as_bytes().to_vec();
        let code = value.get("code").and_then(Value::as_i64).map(|c| c.clamp(-255, 255) as i32);
        Ok(ShellOutput { stdout: text("stdout"), stderr: text("stderr"), code })
    }

    fn timeout(&self) -> Duration {
        self.client.timeout
    }

    fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.client.deadline = deadline;
    }
}
