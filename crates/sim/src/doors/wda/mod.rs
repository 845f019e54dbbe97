//! The virtual phone's iOS front door: the same world served as a WebDriverAgent
//! (WDA) HTTP server on loopback, as `appium/WebDriverAgent` 16 answers: every reply
//! `{"value": …, "sessionId": <the active session or null>}`, errors as
//! `{"value": {"error", "message", "traceback"}}` with WDA's status codes (404
//! `unknown command`, 404 `invalid session id`, 400 `invalid argument`), one active
//! session at a time, routes under `/session/:id/…` and (where WDA has them) without,
//! a trailing `/` ignored (the `facebook-wda` client sends one). Every path starts
//! with the phone's token (`SimConfig::wda_token`): its URL is
//! `http://127.0.0.1:PORT/TOKEN`, which WDA clients take as their base URL; a request
//! without it gets 401. Coordinates are
//! points (pixels ÷ [`source::scale`]); the screenshot is pixels.
//!
//! Routes: `/status`, `/session` (POST, GET, DELETE), `/source`, `/window/size`,
//! `/wda/screen`, `/screenshot`, `/wda/tap` (and the older `/wda/tap/0`),
//! `/wda/doubleTap`, `/wda/touchAndHold`, `/wda/dragfromtoforduration`, `/wda/keys`,
//! `/wda/homescreen`, `/wda/pressButton`, `/wda/apps/launch|activate|terminate|state`,
//! `/wda/activeAppInfo`, `/url`, `/wda/keyboard/dismiss`, `/wda/getPasteboard`,
//! `/wda/setPasteboard`, `/wda/locked`,
//! `/wda/unlock`, `/wda/healthcheck`, `/orientation`, `/wda/device/info`,
//! `/element/active` and its `/element/:id/rect` (what has focus), `/alert/text`; a
//! drag from the left edge goes back, as iOS's edge swipe does; and the virtual
//! phone's own test hooks at `POST /codeact/simctl` (`{"args": "state"}`). Learned from WDA's public source (`Commands/*.m`, `Routing/*.m`);
//! no code copied. Not here: the XML (`page_source/xcui.rs`).

mod serve;
use crate::page_source::xcui as source;
pub(crate) use serve::accept_forever;

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::device::SimDevice;
use adb_wire::keycodes;

/// The door's state: the phone, and the active session.
#[derive(Clone)]
pub(crate) struct Door {
    device: Arc<SimDevice>,
    session: Arc<Mutex<Option<String>>>,
    /// The first path segment every request must carry: the door is a server on
    /// the machine, and only who was given its URL may drive the phone.
    token: Arc<str>,
}

/// How close to the left edge (in points) a drag must start to go back.
const EDGE_POINTS: f64 = 8.0;

/// The longest gesture a request may ask for: it never holds the door longer.
const MAX_GESTURE_MS: f64 = 10_000.0;

/// A WDA error: its W3C code (which sets the status) and message.
struct WdaError {
    status: StatusCode,
    code: &'static str,
    message: String,
}

fn error(status: StatusCode, code: &'static str, message: impl Into<String>) -> WdaError {
    WdaError { status, code, message: message.into() }
}

fn invalid(message: impl Into<String>) -> WdaError {
    error(StatusCode::BAD_REQUEST, "invalid argument", message)
}

type Reply = Result<Value, WdaError>;

/// The router: every request goes through [`handle`].
pub(crate) fn router(device: Arc<SimDevice>) -> axum::Router {
    let token = Arc::from(device.config().wda_token.as_str());
    let door = Door { device, session: Arc::new(Mutex::new(None)), token };
    axum::Router::new().fallback(handle).with_state(door)
}

async fn handle(State(door): State<Door>, method: Method, uri: Uri, body: Bytes) -> Response {
    let path = uri.path().trim_end_matches('/');
    // `/TOKEN/status`: the token is the base URL's path, as WDA clients join paths.
    let path = match path.strip_prefix('/').and_then(|p| p.strip_prefix(&*door.token)) {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => rest.to_string(),
        _ => {
            let body = json!({"value": {"error": "unauthorized", "message": "this WebDriverAgent's URL ends with its token: use the URL `codeact sim --platform ios` printed", "traceback": ""}, "sessionId": null});
            let text = serde_json::to_string_pretty(&body).unwrap_or_default();
            return (StatusCode::UNAUTHORIZED, [(header::CONTENT_TYPE, "application/json;charset=UTF-8")], text)
                .into_response();
        }
    };
    let query = uri.query().unwrap_or("").to_string();
    let door2 = door.clone();
    // World calls are quick, but gestures sleep for their duration.
    let reply = tokio::task::spawn_blocking(move || door2.route(&method, &path, &query, &body)).await;
    let reply = reply.unwrap_or_else(|e| Err(error(StatusCode::INTERNAL_SERVER_ERROR, "unknown error", e.to_string())));
    let session = door.active();
    let (status, value) = match reply {
        Ok(value) => (StatusCode::OK, value),
        Err(e) => (e.status, json!({"error": e.code, "message": e.message, "traceback": ""})),
    };
    let body = json!({"value": value, "sessionId": session});
    let text = serde_json::to_string_pretty(&body).unwrap_or_default();
    (status, [(header::CONTENT_TYPE, "application/json;charset=UTF-8")], text).into_response()
}

/// A number field of a JSON body.
fn number(body: &Value, key: &str) -> Result<f64, WdaError> {
    body.get(key)
        .and_then(Value::as_f64)
        .filter(|v| v.is_finite())
        .ok_or_else(|| invalid(format!("'{key}' is required")))
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Door {
    fn active(&self) -> Option<String> {
        lock(&self.session).clone()
    }

    fn scale(&self) -> f64 {
        f64::from(source::scale(&self.device.world().screen()))
    }

    /// A point in points as a pixel of the screen (clamped: no overflow).
    fn pixel(&self, x: f64, y: f64) -> (i32, i32) {
        let s = self.scale();
        ((x * s).round().clamp(-1e6, 1e6) as i32, (y * s).round().clamp(-1e6, 1e6) as i32)
    }

    fn route(&self, method: &Method, path: &str, query: &str, body: &[u8]) -> Reply {
        let body: Value = serde_json::from_slice(body).unwrap_or(Value::Object(Default::default()));
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        // `/session/:id/rest` is the session-scoped form of `/rest`.
        let (scoped, rest): (bool, Vec<&str>) = match parts.as_slice() {
            ["session", id, rest @ ..] if !rest.is_empty() => {
                if self.active().as_deref() != Some(*id) {
                    return Err(error(StatusCode::NOT_FOUND, "invalid session id", "Session does not exist"));
                }
                (true, rest.to_vec())
            }
            _ => (false, parts.clone()),
        };
        let unknown = || {
            error(
                StatusCode::NOT_FOUND,
                "unknown command",
                format!("Unhandled endpoint: {path} with parameters {body}"),
            )
        };
        match (method.as_str(), rest.as_slice()) {
            ("GET", ["status"]) if !scoped => Ok(self.status()),
            ("POST", ["session"]) if !scoped => self.new_session(&body),
            ("GET", ["session", id]) => self.session_info(id),
            ("DELETE", ["session", id]) => self.end_session(id),
            ("GET", ["source"]) => self.source(query),
            ("GET", ["window", "size"]) => Ok(self.window_size()),
            ("GET", ["wda", "screen"]) => Ok(self.screen_info()),
            ("GET", ["screenshot"]) => self.screenshot(),
            ("POST", ["wda", "tap"]) | ("POST", ["wda", "tap", _]) => self.tap(&body, 1),
            ("POST", ["wda", "doubleTap"]) => self.tap(&body, 2),
            ("POST", ["wda", "touchAndHold"]) => self.touch_and_hold(&body),
            ("POST", ["wda", "dragfromtoforduration"]) => self.drag(&body),
            ("POST", ["wda", "keys"]) => self.keys(&body),
            ("POST", ["wda", "homescreen"]) if !scoped => self.home(),
            ("POST", ["wda", "pressButton"]) => self.press_button(&body),
            ("POST", ["wda", "apps", "launch" | "activate"]) => self.launch(&body),
            ("POST", ["wda", "apps", "terminate"]) => self.terminate(&body),
            ("POST", ["wda", "apps", "state"]) => self.app_state(&body),
            ("GET", ["wda", "activeAppInfo"]) => Ok(self.active_app()),
            ("POST", ["url"]) => self.open_url(&body),
            ("POST", ["wda", "keyboard", "dismiss"]) => self.dismiss_keyboard(),
            ("POST", ["wda", "getPasteboard"]) => self.pasteboard(&body),
            ("POST", ["wda", "setPasteboard"]) => self.set_pasteboard(&body),
            ("GET", ["wda", "locked"]) => Ok(Value::Bool(false)),
            ("POST", ["wda", "unlock" | "lock"]) | ("GET", ["wda", "healthcheck"]) => Ok(Value::Null),
            ("GET", ["orientation"]) => Ok(json!("PORTRAIT")),
            ("GET", ["wda", "device", "info"]) => Ok(self.device_info()),
            ("GET", ["element", "active"]) => self.active_element(),
            ("GET", ["element", id, "rect"]) => element_rect(id),
            ("POST", ["codeact", "simctl"]) if !scoped => self.simctl(&body),
            ("GET", ["alert", "text"]) => Err(error(
                StatusCode::NOT_FOUND,
                "no such alert",
                "An attempt was made to operate on a modal dialog when one was not open",
            )),
            _ => Err(unknown()),
        }
    }

    fn status(&self) -> Value {
        json!({
            "ready": true,
            "message": "WebDriverAgent is ready to accept commands",
            "state": "success",
            "os": {"name": "iOS", "version": "17.4", "sdkVersion": "17.4", "testmanagerdVersion": 65535},
            "ios": {"ip": null},
            "build": {"time": "Nov 26 2026 00:00:00", "productBundleIdentifier": "com.facebook.WebDriverAgentRunner", "version": "16.7.0"},
            "device": "iphone",
        })
    }

    fn new_session(&self, body: &Value) -> Reply {
        let caps = body.get("capabilities").ok_or_else(|| {
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "session not created",
                "'capabilities' is mandatory to create a new session",
            )
        })?;
        let bundle = caps.pointer("/alwaysMatch/bundleId").and_then(Value::as_str);
        if let Some(bundle) = bundle {
            self.launch(&json!({"bundleId": bundle}))
                .map_err(|e| error(StatusCode::INTERNAL_SERVER_ERROR, "session not created", e.message))?;
        }
        let id = session_id();
        *lock(&self.session) = Some(id.clone());
        Ok(json!({"sessionId": id, "capabilities": {"device": "iphone", "sdkVersion": "17.4"}}))
    }

    fn session_info(&self, id: &str) -> Reply {
        match self.active() {
            Some(active) if active == id => {
                Ok(json!({"sessionId": id, "capabilities": {"device": "iphone", "sdkVersion": "17.4"}}))
            }
            _ => Err(error(StatusCode::NOT_FOUND, "invalid session id", "Session does not exist")),
        }
    }

    fn end_session(&self, id: &str) -> Reply {
        let mut session = lock(&self.session);
        if session.as_deref() != Some(id) {
            return Err(error(StatusCode::NOT_FOUND, "invalid session id", "Session does not exist"));
        }
        *session = None;
        Ok(Value::Null)
    }

    fn source(&self, query: &str) -> Reply {
        if query.split('&').any(|p| p.starts_with("format=") && p != "format=xml") {
            return Err(invalid("only format=xml is served by the virtual phone"));
        }
        Ok(Value::String(source::of_world(&self.device.world())))
    }

    fn window_size(&self) -> Value {
        let screen = self.device.world().screen();
        let s = source::scale(&screen);
        json!({"width": screen.width / s, "height": screen.height / s})
    }

    fn screen_info(&self) -> Value {
        let screen = self.device.world().screen();
        let s = source::scale(&screen);
        json!({
            "screenSize": {"width": screen.width / s, "height": screen.height / s},
            "statusBarSize": {"width": screen.width / s, "height": screen.dp(24.0).max(0) as u32 / s},
            "scale": s,
        })
    }

    fn screenshot(&self) -> Reply {
        let png = crate::render::encode_png(&self.device.frame())
            .map_err(|e| error(StatusCode::INTERNAL_SERVER_ERROR, "unable to capture screen", e.to_string()))?;
        Ok(Value::String(base64::Engine::encode(&base64::engine::general_purpose::STANDARD, png)))
    }

    fn tap(&self, body: &Value, times: usize) -> Reply {
        let (x, y) = self.pixel(number(body, "x")?, number(body, "y")?);
        for _ in 0..times {
            self.device.world().tap(x, y);
        }
        Ok(Value::Null)
    }

    fn touch_and_hold(&self, body: &Value) -> Reply {
        let (x, y) = self.pixel(number(body, "x")?, number(body, "y")?);
        let ms = (number(body, "duration").unwrap_or(1.0) * 1000.0).clamp(0.0, MAX_GESTURE_MS) as u64;
        self.gesture((x, y), (x, y), ms);
        Ok(Value::Null)
    }

    fn drag(&self, body: &Value) -> Reply {
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

    fn keys(&self, body: &Value) -> Reply {
        let text: String = match body.get("value") {
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
            Some(Value::String(s)) => s.clone(),
            _ => return Err(invalid("'value' is required")),
        };
        let mut world = self.device.world();
        if world.focus.is_none() {
            return Err(error(
                StatusCode::BAD_REQUEST,
                "invalid element state",
                "The on-screen keyboard must be present to send keys",
            ));
        }
        // A newline is the return key; a backspace deletes.
        let mut run = String::new();
        for c in text.chars() {
            let key = match c {
                '\n' | '\r' => Some(keycodes::ENTER),
                '\u{8}' | '\u{7f}' => Some(keycodes::DEL),
                _ => None,
            };
            match key {
                Some(code) => {
                    world.type_text(&std::mem::take(&mut run));
                    world.key(code);
                }
                None => run.push(c),
            }
        }
        world.type_text(&run);
        Ok(Value::Null)
    }

    fn home(&self) -> Reply {
        self.device.world().go_home();
        Ok(Value::Null)
    }

    fn press_button(&self, body: &Value) -> Reply {
        match body.get("name").and_then(Value::as_str) {
            Some("home") => self.home(),
            Some("volumeUp" | "volumeDown" | "action") => Ok(Value::Null),
            Some(other) => Err(invalid(format!(
                "The button '{other}' is unknown. Only the following button names are supported: home, volumeUp, volumeDown"
            ))),
            None => Err(invalid("'name' is required")),
        }
    }

    fn bundle(body: &Value) -> Result<&str, WdaError> {
        body.get("bundleId").and_then(Value::as_str).ok_or_else(|| invalid("'bundleId' is required"))
    }

    fn launch(&self, body: &Value) -> Reply {
        let bundle = Self::bundle(body)?;
        let mut world = self.device.world();
        let app = world.catalog.app_index(bundle).ok_or_else(|| {
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "unknown error",
                format!("Application '{bundle}' is not installed on the device"),
            )
        })?;
        if !world.launch(app) {
            return Err(error(StatusCode::INTERNAL_SERVER_ERROR, "unknown error", format!("Cannot launch '{bundle}'")));
        }
        Ok(Value::Null)
    }

    fn terminate(&self, body: &Value) -> Reply {
        let bundle = Self::bundle(body)?;
        let mut world = self.device.world();
        let Some(app) = world.catalog.app_index(bundle) else { return Ok(Value::Bool(false)) };
        let running = world.tasks.iter().any(|t| t.app == app);
        world.force_stop(app);
        Ok(Value::Bool(running))
    }

    fn app_state(&self, body: &Value) -> Reply {
        let bundle = Self::bundle(body)?;
        let world = self.device.world();
        // XCUIApplicationStateUnknown: what WDA says of an app that is not installed.
        let Some(app) = world.catalog.app_index(bundle) else { return Ok(json!(0)) };
        let state = match (world.top_app() == Some(app), world.tasks.iter().any(|t| t.app == app)) {
            (true, _) => 4,
            (false, true) => 2,
            (false, false) => 1,
        };
        Ok(json!(state))
    }

    fn active_app(&self) -> Value {
        let world = self.device.world();
        let package = world.foreground_package();
        let name = world.top().map(|(app, _, _)| app.label.clone()).unwrap_or_default();
        json!({"pid": 400 + package.len(), "bundleId": package, "name": name, "processArguments": {"args": [], "env": {}}})
    }

    fn open_url(&self, body: &Value) -> Reply {
        let url = body.get("url").and_then(Value::as_str).ok_or_else(|| invalid("URL is required"))?;
        let mut world = self.device.world();
        let (app, activity, param) = world
            .catalog
            .link_for(url)
            .ok_or_else(|| error(StatusCode::INTERNAL_SERVER_ERROR, "unknown error", format!("No app opens {url}")))?;
        world.start_activity(app, &activity, param);
        Ok(Value::Null)
    }

    /// `POST /wda/getPasteboard`: the clipboard's text, base64 (plain text only).
    fn pasteboard(&self, body: &Value) -> Reply {
        plain_text_only(body)?;
        let world = self.device.world();
        let text = world.read(crate::world::CLIPBOARD, &None).map(|v| v.to_string()).unwrap_or_default();
        Ok(Value::String(base64::Engine::encode(&base64::engine::general_purpose::STANDARD, text)))
    }

    /// `POST /wda/setPasteboard`: `content` (base64) onto the clipboard.
    fn set_pasteboard(&self, body: &Value) -> Reply {
        plain_text_only(body)?;
        let content = body.get("content").and_then(Value::as_str).ok_or_else(|| invalid("'content' is required"))?;
        let bytes = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, content.trim())
            .map_err(|e| invalid(format!("'content' is not base64: {e}")))?;
        let text = String::from_utf8(bytes).map_err(|_| invalid("the pasteboard takes UTF-8 text"))?;
        self.device.world().write(crate::world::CLIPBOARD, crate::world::Value::Str(text), &None);
        Ok(Value::Null)
    }

    fn dismiss_keyboard(&self) -> Reply {
        let mut world = self.device.world();
        if !world.keyboard_shown {
            return Err(error(StatusCode::BAD_REQUEST, "invalid element state", "The keyboard is not present"));
        }
        world.key(keycodes::BACK);
        Ok(Value::Null)
    }

    /// The focused element (W3C `GET /element/active`), as WDA answers: an element
    /// reference. Its id is its frame in points, so the door keeps no element table.
    fn active_element(&self) -> Reply {
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

    /// The virtual phone's own test hooks (`simctl`, as `adb shell simctl` runs them
    /// on the Android door): one `simctl` command line, nothing else.
    fn simctl(&self, body: &Value) -> Reply {
        let args = body.get("args").and_then(Value::as_str).ok_or_else(|| invalid("'args' is required"))?;
        if args.contains([';', '|', '&', '`', '$', '\n', '<', '>']) {
            return Err(invalid("one simctl command line, without shell operators"));
        }
        match self.device.run_line(&format!("simctl {args}"), None) {
            crate::device::LineOutcome::Done(out) => Ok(json!({
                "stdout": String::from_utf8_lossy(&out.stdout),
                "stderr": String::from_utf8_lossy(&out.stderr),
                "code": out.code,
            })),
            _ => Err(error(StatusCode::INTERNAL_SERVER_ERROR, "unknown error", "simctl did not answer")),
        }
    }

    fn device_info(&self) -> Value {
        json!({
            "currentLocale": "en_US", "timeZone": "UTC", "name": self.device.config().model,
            "model": "iPhone", "uuid": self.device.config().serial, "userInterfaceIdiom": 0,
            "userInterfaceStyle": "light", "isSimulator": true, "thermalState": 0,
        })
    }
}

/// The virtual phone's clipboard holds text: `contentType` must be `plaintext`
/// (WDA's default).
fn plain_text_only(body: &Value) -> Result<(), WdaError> {
    match body.get("contentType").and_then(Value::as_str) {
        None | Some("plaintext") => Ok(()),
        Some(other) => Err(invalid(format!("the virtual phone's pasteboard holds plaintext only, not {other}"))),
    }
}

/// `GET /element/:id/rect` of an element [`Door::active_element`] named.
fn element_rect(id: &str) -> Reply {
    let nums: Vec<i64> = id.strip_prefix("rect-").unwrap_or("").split('-').filter_map(|n| n.parse().ok()).collect();
    match nums.as_slice() {
        [x, y, width, height] => Ok(json!({"x": x, "y": y, "width": width, "height": height})),
        _ => Err(error(StatusCode::NOT_FOUND, "stale element reference", format!("The element '{id}' does not exist"))),
    }
}

/// A new session id, upper-case like WDA's UUIDs.
fn session_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    format!(
        "{:08X}-{:04X}-4{:03X}-A{:03X}-{:012X}",
        (t >> 32) as u32,
        (t >> 16) as u16,
        n & 0xfff,
        (t & 0xfff) as u16,
        n
    )
}
