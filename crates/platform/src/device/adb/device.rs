//! [`Device`] for Android over ADB: each operation is one shell command line, sent
//! over a [`transport`](super::transport) connection with the device's timeout.
//! Text goes through `input text` when a shell can carry it, otherwise through the
//! ADBKeyboard broadcast (any Unicode), with a clear error when that IME is not the
//! current one. Observing is `observe.rs`'s.

use std::time::Duration;

use base64::Engine as _;
use serde_json::json;

use super::agent_state::{AgentState, ObserveWith};
use super::agents::KeyboardAct;
use super::line::{chunks, valid_name};
use super::transport::{Deadline, DirectConnection, HeldStream, ServerConnection, ShellOutput, TransportError};
use crate::device::contract::Device;
use crate::device::errors::DeviceError;
use crate::device::errors::adb::ADB_KEYBOARD;
use crate::device::errors::adb::AdbError;
use crate::device::observation::Observation;
use crate::device::shell::quote;

/// Android's way to see whether a phone is still there, for errors.
const CHECK: &str = "check `adb devices`";
/// Android's way back to a phone that went away.
const RECONNECT: &str = "reconnect the device (`adb devices`)";
/// Android's list of what is installed.
const LIST_PACKAGES: &str = "pm list packages";
/// How commands reach the device.
enum Link {
    /// Straight to the device's adbd; reconnects after a failure.
    Direct { addr: String, conn: Option<DirectConnection> },
    /// Through the adb server (a new socket per command, as adb itself does).
    Server(ServerConnection),
}

/// The live connection an exchange runs on.
enum Connection<'a> {
    Direct(&'a mut DirectConnection),
    Server(&'a mut ServerConnection),
}

/// A pull may take longer than one command: an APK can be tens of megabytes.
const PULL_TIMEOUT: Duration = Duration::from_secs(120);

pub struct AdbDevice {
    pub(super) name: String,
    link: Link,
    pub(super) timeout: Duration,
    /// Screen size from the last `wm size`.
    pub(super) screen: Option<(u32, u32)>,
    /// No operation may run past this (a script's deadline), whatever its timeout.
    cap: Option<std::time::Instant>,
    /// How the phone is observed (and, through an agent, tapped).
    pub(super) observe_with: ObserveWith,
    /// The on-device agent, once looked for.
    pub(super) agent: AgentState,
}

impl AdbDevice {
    /// A device reached directly over TCP (`HOST:PORT`).
    pub fn direct(addr: &str, timeout: Duration) -> Result<Self, DeviceError> {
        let conn = DirectConnection::connect(addr, Deadline::after(timeout))
            .map_err(|source| AdbError::Unreachable { addr: addr.to_string(), source })?;
        Ok(Self {
            name: addr.to_string(),
            link: Link::Direct { addr: addr.to_string(), conn: Some(conn) },
            timeout,
            screen: None,
            cap: None,
            observe_with: ObserveWith::Auto,
            agent: AgentState::Unprobed,
        })
    }

    /// A device the adb server at `server` knows as `serial`.
    pub fn through_server(server: &str, serial: &str, timeout: Duration) -> Self {
        Self {
            name: serial.to_string(),
            link: Link::Server(ServerConnection::new(server, serial)),
            timeout,
            screen: None,
            cap: None,
            observe_with: ObserveWith::Auto,
            agent: AgentState::Unprobed,
        }
    }

    /// The same device, observed (and, through an agent, tapped) as `with` says.
    pub fn observing_with(mut self, with: ObserveWith) -> Self {
        self.observe_with = with;
        self.agent = AgentState::Unprobed;
        self
    }

    /// The same device under another name in messages.
    pub fn named(mut self, name: String) -> Self {
        self.name = name;
        self
    }

    fn error(&self, op: &str, e: TransportError) -> DeviceError {
        let (device, op) = (self.name.clone(), op.to_string());
        match e {
            TransportError::Timeout(d) => DeviceError::Timeout { device, op, secs: d.as_secs_f64(), check: CHECK },
            TransportError::Disconnected => DeviceError::Disconnected { device, op, check: RECONNECT },
            source => AdbError::Transport { device, op, source }.into(),
        }
    }

    /// Runs one command line for `op`; connecting again and running share `timeout`.
    pub(super) fn exec_line(&mut self, op: &str, command: &str, timeout: Duration) -> Result<ShellOutput, DeviceError> {
        self.over_link(op, timeout, |link, deadline| match link {
            Connection::Direct(c) => c.shell(command, deadline),
            Connection::Server(s) => s.shell(command, deadline),
        })
    }

    /// Runs `exchange` on the device's connection for `op`, within `timeout` (and the
    /// script's deadline); a direct connection is made again if the last one broke.
    fn over_link<T>(
        &mut self,
        op: &str,
        timeout: Duration,
        exchange: impl FnOnce(Connection<'_>, Deadline) -> Result<T, TransportError>,
    ) -> Result<T, DeviceError> {
        self.over_link_raw(timeout, exchange).map_err(|e| self.error(op, e))
    }

    /// Exchanges `request` with what listens on device port `port`, handing the
    /// reply to `take` until it is whole (`Ok(true)`) or the device closes the
    /// stream (`Ok(false)`), within `timeout` and the script's deadline.
    pub(super) fn port_exchange(
        &mut self,
        port: u16,
        request: &[u8],
        timeout: Duration,
        take: impl FnMut(&[u8]) -> Result<bool, TransportError>,
    ) -> Result<bool, TransportError> {
        self.over_link_raw(timeout, |link, deadline| match link {
            Connection::Direct(c) => c.tcp(port, request, deadline, take),
            Connection::Server(s) => s.tcp(port, request, deadline, take),
        })
    }

    /// Runs `command` on a stream of its own that stays open until the handle
    /// drops (a server that lives as long as its shell).
    pub(super) fn hold_command(&mut self, command: &str) -> Result<HeldStream, TransportError> {
        let deadline = Deadline::after(self.timeout);
        let service = format!("exec:{command}");
        match &self.link {
            Link::Direct { addr, .. } => DirectConnection::connect(addr, deadline)?.hold(&service, deadline),
            Link::Server(server) => server.hold(&service, deadline),
        }
    }

    fn over_link_raw<T>(
        &mut self,
        timeout: Duration,
        exchange: impl FnOnce(Connection<'_>, Deadline) -> Result<T, TransportError>,
    ) -> Result<T, TransportError> {
        let timeout = match self.cap {
            Some(cap) => timeout.min(cap.saturating_duration_since(std::time::Instant::now())),
            None => timeout,
        };
        let deadline = Deadline::after(timeout);
        match &mut self.link {
            Link::Direct { addr, conn } => {
                let connected = match conn.take() {
                    Some(c) => Ok(c),
                    None => DirectConnection::connect(addr, deadline),
                };
                match connected {
                    Ok(mut c) => {
                        let r = exchange(Connection::Direct(&mut c), deadline);
                        // After a failure the stream is in an unknown state: reconnect next
                        // time (a refused service leaves it as it was).
                        if r.is_ok() || matches!(r, Err(TransportError::Refused(_))) {
                            *conn = Some(c);
                        }
                        r
                    }
                    Err(TransportError::Connect { .. }) => Err(TransportError::Disconnected),
                    Err(e) => Err(e),
                }
            }
            Link::Server(server) => exchange(Connection::Server(server), deadline),
        }
    }

    /// Runs a command that must succeed: exit code 0 and no `Error`/`Exception`.
    pub(super) fn checked(&mut self, op: &str, command: &str, extra: Duration) -> Result<ShellOutput, DeviceError> {
        let out = self.exec_line(op, command, self.timeout + extra)?;
        let text = format!("{}{}", out.stdout_text(), out.stderr_text());
        let failed = out.code.is_some_and(|c| c != 0) || text.contains("Error:") || text.contains("Exception");
        if failed {
            let lines: Vec<&str> =
                text.lines().map(str::trim).filter(|l| l.contains("Error") || l.contains("Exception")).collect();
            let output = if lines.is_empty() { text.trim().to_string() } else { lines.join("; ") };
            return Err(DeviceError::Command { device: self.name.clone(), op: op.into(), output });
        }
        Ok(out)
    }

    /// `COMMAND PACKAGE` for a package name that is one (checked first).
    fn package_command(&mut self, op: &str, command: &str, package: &str) -> Result<ShellOutput, DeviceError> {
        if !valid_name(package) || package.contains('/') {
            return Err(DeviceError::InvalidName { device: self.name.clone(), name: package.into(), what: "package" });
        }
        self.checked(op, &format!("{command} {}", quote(package)), Duration::ZERO)
    }

    fn current_ime(&mut self) -> Result<String, DeviceError> {
        let out = self.checked("read the input method", "settings get secure default_input_method", Duration::ZERO)?;
        Ok(out.stdout_text().trim().to_string())
    }

    /// A whole PNG of this screen's size (either way round), or why it is not.
    pub(super) fn checked_png(&self, png: &[u8], expected: (u32, u32)) -> Result<(), DeviceError> {
        let device = || self.name.clone();
        let header = png::Decoder::new(std::io::Cursor::new(png))
            .read_info()
            .map_err(|source| DeviceError::NotAPng { device: device(), bytes: png.len(), source })?;
        let size = (header.info().width, header.info().height);
        // A PNG ends with its IEND chunk; anything shorter was cut off.
        if png.len() < 12 || &png[png.len() - 8..png.len() - 4] != b"IEND" {
            return Err(DeviceError::CutPng { device: device(), bytes: png.len() });
        }
        // A rotated screen reports the same size with the sides swapped.
        if size != expected && size != (expected.1, expected.0) {
            return Err(DeviceError::WrongSize { device: device(), image: size, screen: expected });
        }
        Ok(())
    }
}

impl Device for AdbDevice {
    fn name(&self) -> &str {
        &self.name
    }

    fn timeout(&self) -> Duration {
        self.timeout
    }

    fn pull_file(&mut self, path: &str, into: &mut dyn std::io::Write, limit: u64) -> Result<u64, DeviceError> {
        let op = format!("pull {}", codeact_base::clip::clip(path, 120));
        self.over_link(&op, self.timeout.max(PULL_TIMEOUT), |link, deadline| match link {
            Connection::Direct(c) => c.pull(path, into, limit, deadline),
            Connection::Server(s) => s.pull(path, into, limit, deadline),
        })
    }

    fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        self.cap = deadline;
    }

    fn shell(&mut self, command: &str) -> Result<ShellOutput, DeviceError> {
        let timeout = self.timeout;
        self.exec_line("shell", command, timeout)
    }

    fn observe(&mut self) -> Result<Observation, DeviceError> {
        let (began, started) = (std::time::SystemTime::now(), std::time::Instant::now());
        Ok(self.observe_chosen()?.stamped(began, started))
    }

    fn screenshot(&mut self) -> Result<Vec<u8>, DeviceError> {
        let expected = self.screen_size()?;
        if let Some(png) = self.screenshot_through_agent(expected) {
            return Ok(png);
        }
        let timeout = self.timeout * 2;
        let out = self.exec_line("screenshot", "screencap -p", timeout)?;
        // Binary output: judge by exit code and stderr, never by searching the PNG.
        if out.code.is_some_and(|c| c != 0) || !out.stderr.is_empty() {
            let output = out.stderr_text().trim().to_string();
            return Err(DeviceError::Command { device: self.name.clone(), op: "screenshot".into(), output });
        }
        let png = out.stdout;
        self.checked_png(&png, expected)?;
        Ok(png)
    }

    fn tap(&mut self, x: i32, y: i32) -> Result<(), DeviceError> {
        if let Some(done) = self.gesture_through_agent("tap", "click", json!([x, y]), Duration::ZERO) {
            return done;
        }
        self.checked("tap", &format!("input tap {x} {y}"), Duration::ZERO).map(drop)
    }

    fn long_press(&mut self, x: i32, y: i32, ms: u32) -> Result<(), DeviceError> {
        let extra = Duration::from_millis(u64::from(ms));
        if let Some(done) = self.gesture_through_agent("long press", "click", json!([x, y, ms]), extra) {
            return done;
        }
        self.checked("long press", &format!("input swipe {x} {y} {x} {y} {ms}"), extra).map(drop)
    }

    fn swipe(&mut self, x1: i32, y1: i32, x2: i32, y2: i32, ms: u32) -> Result<(), DeviceError> {
        let extra = Duration::from_millis(u64::from(ms));
        // uiautomator's swipes and drags move one step per 5 ms.
        let steps = (ms / 5).max(2);
        if let Some(done) = self.gesture_through_agent("swipe", "swipe", json!([x1, y1, x2, y2, steps]), extra) {
            return done;
        }
        self.checked("swipe", &format!("input swipe {x1} {y1} {x2} {y2} {ms}"), extra).map(drop)
    }

    fn drag(&mut self, x1: i32, y1: i32, x2: i32, y2: i32, ms: u32) -> Result<(), DeviceError> {
        let extra = Duration::from_millis(u64::from(ms));
        let steps = (ms / 5).max(2);
        if let Some(done) = self.gesture_through_agent("drag", "drag", json!([x1, y1, x2, y2, steps]), extra) {
            return done;
        }
        self.checked("drag", &format!("input draganddrop {x1} {y1} {x2} {y2} {ms}"), extra).map(drop)
    }

    fn input_text(&mut self, text: &str) -> Result<(), DeviceError> {
        if text.is_empty() {
            return Ok(());
        }
        // An agent types any text without a JVM (and without ADBKeyboard).
        if let Some(done) = self.keyboard_through_agent("type text", KeyboardAct::Type(text)) {
            return done;
        }
        // `input text` carries printable ASCII; only a literal `%s` cannot be sent, as
        // `input` reads it as a space.
        if text.chars().all(|c| (' '..='~').contains(&c)) && !text.contains("%s") {
            // Pieces keep each command line far below adb's service-name limit.
            for piece in chunks(text, 500) {
                let arg = quote(&piece.replace(' ', "%s"));
                self.checked("type text", &format!("input text {arg}"), Duration::ZERO)?;
            }
            return Ok(());
        }
        let ime = self.current_ime()?;
        if ime != ADB_KEYBOARD {
            let installed = self
                .exec_line("type text", "pm path com.android.adbkeyboard", self.timeout)
                .is_ok_and(|o| o.stdout_text().starts_with("package:"));
            return Err(DeviceError::from(AdbError::NeedsAdbKeyboard {
                device: self.name.clone(),
                text: text.into(),
                installed,
                current: ime,
            }));
        }
        for piece in chunks(text, 600) {
            let b64 = base64::engine::general_purpose::STANDARD.encode(piece);
            self.checked("type text", &format!("am broadcast -a ADB_INPUT_B64 --es msg {b64}"), Duration::ZERO)?;
        }
        Ok(())
    }

    fn clear_text(&mut self) -> Result<(), DeviceError> {
        if let Some(done) = self.keyboard_through_agent("clear text", KeyboardAct::Clear) {
            return done;
        }
        if self.current_ime()? == ADB_KEYBOARD {
            return self.checked("clear text", "am broadcast -a ADB_CLEAR_TEXT", Duration::ZERO).map(drop);
        }
        // Without ADBKeyboard: to the end of the field, then delete backwards.
        let deletes = vec!["67"; 200].join(" ");
        self.checked("clear text", &format!("input keyevent 123 {deletes}"), Duration::ZERO).map(drop)
    }

    fn press_key(&mut self, key: &str) -> Result<(), DeviceError> {
        let arg = match adb_wire::keycodes::from_friendly_name(key) {
            Some(code) => code.to_string(),
            // Any other KEYCODE_ name goes to the device as is (a shell-safe charset).
            None if key.strip_prefix("KEYCODE_").is_some_and(|n| {
                !n.is_empty() && n.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            }) =>
            {
                key.to_string()
            }
            None => return Err(DeviceError::UnknownKey(key.into())),
        };
        if let Ok(code) = arg.parse::<u32>()
            && let Some(done) = self.gesture_through_agent("press key", "pressKeyCode", json!([code]), Duration::ZERO)
        {
            return done;
        }
        self.checked("press key", &format!("input keyevent {arg}"), Duration::ZERO).map(drop)
    }

    fn start_app(&mut self, package: &str, activity: Option<&str>) -> Result<(), DeviceError> {
        let invalid =
            |name: &str, what| DeviceError::InvalidName { device: self.name.clone(), name: name.into(), what };
        if !valid_name(package) || package.contains('/') {
            return Err(invalid(package, "package"));
        }
        let result = match activity {
            Some(a) if !valid_name(a) => return Err(invalid(a, "activity")),
            Some(a) => {
                self.checked("start app", &format!("am start -n {}", quote(&format!("{package}/{a}"))), Duration::ZERO)
            }
            None => {
                let cmd = format!("monkey -p {} -c android.intent.category.LAUNCHER 1", quote(package));
                let out = self.exec_line("start app", &cmd, self.timeout)?;
                let text = format!("{}{}", out.stdout_text(), out.stderr_text());
                if text.contains("No activities found") || text.contains("monkey aborted") {
                    Err(DeviceError::NoLauncherActivity { device: self.name.clone(), package: package.into() })
                } else {
                    Ok(out)
                }
            }
        };
        match result {
            Ok(_) => Ok(()),
            Err(e) => {
                // Tell "not installed" apart from other failures.
                let installed = self
                    .exec_line("start app", &format!("pm path {}", quote(package)), self.timeout)
                    .map(|o| o.stdout_text().starts_with("package:"))
                    .unwrap_or(true);
                if installed {
                    Err(e)
                } else {
                    Err(DeviceError::NotInstalled {
                        device: self.name.clone(),
                        package: package.into(),
                        check: LIST_PACKAGES,
                    })
                }
            }
        }
    }

    fn stop_app(&mut self, package: &str) -> Result<(), DeviceError> {
        self.package_command("stop app", "am force-stop", package).map(drop)
    }

    fn clear_app_data(&mut self, package: &str) -> Result<(), DeviceError> {
        let out = self.package_command("clear app data", "pm clear", package)?;
        if out.stdout_text().trim() == "Success" {
            Ok(())
        } else {
            let output = format!("{}{}", out.stdout_text(), out.stderr_text()).trim().to_string();
            Err(DeviceError::Command { device: self.name.clone(), op: "clear app data".into(), output })
        }
    }

    fn open_url(&mut self, uri: &str) -> Result<(), DeviceError> {
        if uri.is_empty() || uri.chars().any(char::is_control) {
            return Err(DeviceError::InvalidName { device: self.name.clone(), name: uri.into(), what: "URI" });
        }
        let command = format!("am start -a android.intent.action.VIEW -d {}", quote(uri));
        self.checked("open URL", &command, Duration::ZERO).map(drop)
    }

    fn list_packages(&mut self, system: bool) -> Result<Vec<String>, DeviceError> {
        let cmd = if system { "pm list packages" } else { "pm list packages -3" };
        let out = self.checked("list packages", cmd, Duration::ZERO)?;
        let mut packages: Vec<String> =
            out.stdout_text().lines().filter_map(|l| l.trim().strip_prefix("package:")).map(str::to_string).collect();
        packages.sort();
        Ok(packages)
    }
}
