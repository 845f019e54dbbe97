//! HarmonyOS over hdc (`--device hdc`, `--device hdc:CONNECT_KEY`, and `--device
//! sim:harmony`, the virtual phone's HarmonyOS door): the [`Device`] trait on the
//! phone's own tools, each reached as `hdc shell …` through the hdc server
//! (`client.rs`):
//!
//! - observe: `uitest dumpLayout` (its JSON, read by `ui::parse_uitest`) and the
//!   foreground ability from `aa dump -l`, in one round trip;
//! - act: `uitest uiInput click|longClick|swipe|drag|keyEvent|text` (any Unicode text,
//!   no input method needed), Ctrl+A then Delete to clear a field;
//! - screenshot: `snapshot_display -f FILE -t png`, read back over the same channel;
//! - apps: `aa start -b BUNDLE -a ABILITY` (the main ability from `bm dump -n`), `aa
//!   force-stop`, `bm clean -n BUNDLE -d`, `bm dump -a`, links with `aa start -U`.
//!
//! Android's words mapped: a package is a bundle, an activity an ability (a leading
//! `.` dropped: `.DisplaySettings` → `DisplaySettings`); Android key names map to
//! HarmonyOS key codes, and a key HarmonyOS has not is a typed
//! [`DeviceError::NotOnPlatform`]. These tools exit 0 when they fail, so their words
//! are read: `error:` or anything but `No Error` is a [`DeviceError::Command`].

pub mod client;

use std::time::{Duration, Instant};

use super::shell::quote;
use crate::device::contract::Device;
use crate::device::errors::DeviceError;
use crate::device::observation::{Observation, PhoneState};
use crate::device::shell::ShellOutput;
use client::{HdcClient, HdcError};

const PLATFORM: &str = crate::device::platform::Platform::Harmony.name();

/// HarmonyOS's list of what is installed.
const LIST_BUNDLES: &str = "bm dump -a";
/// Where the layout and the screenshot are written on the phone (the one folder
/// `snapshot_display` writes to).
const LAYOUT_FILE: &str = "/data/local/tmp/codeact_layout.json";
const SNAPSHOT_FILE: &str = "/data/local/tmp/codeact_snapshot.png";
/// Between the layout and the mission list in one reply.
const SECTION: &str = "__codeact_section__";
/// The keyboard window's bundle names an input method.
fn is_input_method(bundle: &str) -> bool {
    bundle.contains("inputmethod")
}

/// A HarmonyOS phone (or the virtual one) behind an hdc server.
pub struct HarmonyDevice {
    client: HdcClient,
    name: String,
    /// The screen in pixels, as the last layout spanned it.
    screen: (u32, u32),
}

impl HarmonyDevice {
    /// Connects through the hdc server (`OHOS_HDC_SERVER_PORT`, else 8710) to the
    /// target `key` names, or the only one when `key` is `None`.
    pub fn connect(key: Option<&str>, timeout: Duration) -> Result<Self, DeviceError> {
        let server = client::server_address().map_err(|source| hdc_error("hdc", "find the hdc server", source))?;
        Self::connect_at(&server, key, timeout)
    }

    /// As [`connect`](Self::connect), to the server at `server` (`HOST:PORT`).
    pub fn connect_at(server: &str, key: Option<&str>, timeout: Duration) -> Result<Self, DeviceError> {
        let targets = list_targets_at(server, timeout)?;
        let targets: Vec<&str> = targets.iter().map(String::as_str).collect();
        let seen = if targets.is_empty() {
            "`hdc list targets` lists none".to_string()
        } else {
            format!("the hdc server sees {}", targets.join(", "))
        };
        let key = match (key, targets.as_slice()) {
            (Some(k), _) if targets.contains(&k) => k.to_string(),
            (Some(k), _) => return Err(DeviceError::NoSuchDevice { serial: k.to_string(), seen }),
            (None, [one]) => one.to_string(),
            (None, []) => return Err(DeviceError::NoDevice { seen }),
            (None, _) => return Err(DeviceError::SeveralDevices { seen }),
        };
        let client = HdcClient::new(server, &key, timeout).map_err(|e| hdc_error(server, "connect", e))?;
        let mut device = Self { client, name: format!("hdc:{key}"), screen: (0, 0) };
        device.observe()?;
        Ok(device)
    }

    /// The same device under another name in messages (`sim:harmony (…)`).
    pub fn named(mut self, name: String) -> Self {
        self.name = name;
        self
    }

    fn not_here(&self, what: &str, instead: &str) -> DeviceError {
        DeviceError::NotOnPlatform {
            device: self.name.clone(),
            what: what.to_string(),
            platform: PLATFORM,
            instead: instead.to_string(),
        }
    }

    /// One shell command line; its output as text.
    fn run(&mut self, command: &str, op: &str) -> Result<String, DeviceError> {
        let reply = self.client.shell(command).map_err(|e| hdc_error(&self.name, op, e))?;
        Ok(String::from_utf8_lossy(&reply.output).into_owned())
    }

    /// A `uitest uiInput` action, which prints `No Error` when it worked.
    fn input(&mut self, args: &str, op: &str) -> Result<(), DeviceError> {
        let out = self.run(&format!("uitest uiInput {args}"), op)?;
        if out.contains("No Error") {
            return Ok(());
        }
        Err(DeviceError::Command { device: self.name.clone(), op: op.into(), output: out.trim().to_string() })
    }

    /// An `aa`/`bm` command, which prints `error:` when it failed (and exits 0).
    fn checked(&mut self, command: &str, op: &str) -> Result<String, DeviceError> {
        let out = self.run(command, op)?;
        if out.contains("error:") || out.contains("Error Code:") {
            return Err(DeviceError::Command {
                device: self.name.clone(),
                op: op.into(),
                output: out.trim().to_string(),
            });
        }
        Ok(out)
    }

    /// The main ability of `bundle`, from `bm dump -n`.
    fn main_ability(&mut self, bundle: &str) -> Result<String, DeviceError> {
        let out = self.run(&format!("bm dump -n {}", quote(bundle)), "find the main ability")?;
        let Some(json) = out.find('{').map(|i| &out[i..]) else {
            return Err(DeviceError::NotInstalled {
                device: self.name.clone(),
                package: bundle.to_string(),
                check: LIST_BUNDLES,
            });
        };
        let info: serde_json::Value = serde_json::from_str(json.trim()).map_err(|e| DeviceError::Unexpected {
            device: self.name.clone(),
            op: "bm dump -n".into(),
            output: format!("not JSON: {e}"),
        })?;
        let text =
            |v: Option<&serde_json::Value>| v.and_then(|v| v.as_str()).filter(|s| !s.is_empty()).map(str::to_string);
        let modules = info.get("hapModuleInfos").and_then(|m| m.as_array()).cloned().unwrap_or_default();
        text(info.get("mainElementName"))
            .or_else(|| {
                modules.iter().find_map(|m| text(m.get("mainElementName")).or_else(|| text(m.get("mainAbility"))))
            })
            .ok_or_else(|| DeviceError::NoLauncherActivity { device: self.name.clone(), package: bundle.to_string() })
    }
}

/// The targets the hdc server (`OHOS_HDC_SERVER_PORT`, else 8710) sees, by connect key.
pub fn list_targets(timeout: Duration) -> Result<Vec<String>, DeviceError> {
    let server = client::server_address().map_err(|source| hdc_error("hdc", "find the hdc server", source))?;
    list_targets_at(&server, timeout)
}

/// `hdc list targets` at `server`: one key per line, `[Empty]` for none.
fn list_targets_at(server: &str, timeout: Duration) -> Result<Vec<String>, DeviceError> {
    let listing = HdcClient::new(server, "", timeout).map_err(|e| hdc_error(server, "list targets", e))?;
    let reply = listing.exchange("list targets", &|_| false).map_err(|e| hdc_error(server, "list targets", e))?;
    let text = String::from_utf8_lossy(&reply);
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('['))
        .map(|l| l.split_whitespace().next().unwrap_or(l).to_string())
        .collect())
}

fn hdc_error(device: &str, op: &str, source: HdcError) -> DeviceError {
    DeviceError::Hdc { device: device.to_string(), op: op.to_string(), source }
}

/// uitest takes positive coordinates only.
fn at(v: i32) -> i32 {
    v.max(1)
}

/// The bundle and ability in front, from `aa dump -l`: the mission whose state is
/// `#FOREGROUND` (none on the home screen).
fn foreground(missions: &str) -> Option<(String, String)> {
    let bracket = |line: &str, key: &str| {
        line.trim().strip_prefix(key).map(|r| r.trim().trim_start_matches('[').trim_end_matches(']').to_string())
    };
    for block in missions.split("Mission ID #").skip(1) {
        if !block.lines().any(|l| l.trim().starts_with("state #FOREGROUND")) {
            continue;
        }
        let bundle = block.lines().find_map(|l| bracket(l, "bundle name"));
        let ability = block.lines().find_map(|l| bracket(l, "main name"));
        if let Some(bundle) = bundle {
            return Some((bundle, ability.unwrap_or_default()));
        }
    }
    None
}

/// A HarmonyOS key code (or `Home`/`Back`/`Power`) for an Android key name or code.
fn harmony_key(key: &str) -> Option<String> {
    let code = adb_wire::keycodes::from_friendly_name(key.trim())?;
    Some(match code {
        3 => "Home".into(),
        4 => "Back".into(),
        26 => "Power".into(),
        24 => "16".into(),
        25 => "17".into(),
        7..=16 => (2000 + code - 7).to_string(),
        29..=54 => (2017 + code - 29).to_string(),
        19..=22 => (2012 + code - 19).to_string(),
        61 => "2049".into(),
        62 => "2050".into(),
        66 => "2054".into(),
        67 => "2055".into(),
        111 => "2070".into(),
        112 => "2071".into(),
        122 => "2081".into(),
        123 => "2082".into(),
        // Paste is Ctrl+V.
        279 => "2072 2038".into(),
        _ => return None,
    })
}

impl Device for HarmonyDevice {
    fn name(&self) -> &str {
        &self.name
    }

    fn platform(&self) -> crate::device::platform::Platform {
        crate::device::platform::Platform::Harmony
    }

    fn observe(&mut self) -> Result<Observation, DeviceError> {
        let (began, started) = (std::time::SystemTime::now(), std::time::Instant::now());
        let command = format!(
            "uitest dumpLayout -p {LAYOUT_FILE} && cat {LAYOUT_FILE}; echo; echo {SECTION}; aa dump -l; rm -f {LAYOUT_FILE}"
        );
        let out = self.run(&command, "dump the layout")?;
        let (layout, missions) = out.split_once(SECTION).unwrap_or((&out, ""));
        if !layout.contains('{') {
            return Err(DeviceError::Command {
                device: self.name.clone(),
                op: "dump the layout".into(),
                output: layout.trim().to_string(),
            });
        }
        let mut ui = crate::ui::parse_uitest(layout.as_bytes(), self.screen)
            .map_err(|source| DeviceError::Ui { device: self.name.clone(), source })?;
        // The screen is what the windows span.
        let roots: Vec<(crate::ui::Bounds, String)> =
            ui.roots.iter().filter_map(|r| ui.get(*r)).map(|e| (e.bounds, e.package.clone())).collect();
        let right = roots.iter().map(|(b, _)| b.right).max().unwrap_or(0).clamp(0, 100_000) as u32;
        let bottom = roots.iter().map(|(b, _)| b.bottom).max().unwrap_or(0).clamp(0, 100_000) as u32;
        if right > 0 && bottom > 0 {
            self.screen = (right, bottom);
            ui.screen = self.screen;
        }
        let keyboard_shown = roots.iter().any(|(_, p)| is_input_method(p));
        // On the home screen no mission is in front: the largest app window is.
        let (package, activity) = foreground(missions).unwrap_or_else(|| {
            let front = roots.iter().filter(|(_, p)| !is_input_method(p) && !p.is_empty()).max_by_key(|(b, _)| {
                (i64::from(b.right) - i64::from(b.left)) * (i64::from(b.bottom) - i64::from(b.top))
            });
            (front.map(|(_, p)| p.clone()).unwrap_or_default(), String::new())
        });
        let focused =
            if keyboard_shown { ui.elements.iter().find(|e| e.focused && e.is_editable()).map(|e| e.id) } else { None };
        let phone = PhoneState {
            package,
            activity,
            keyboard_shown,
            focused,
            platform: crate::device::platform::Platform::Harmony,
            title: String::new(),
        };
        let dump = layout.find('{').map(|i| layout[i..].trim().to_string()).unwrap_or_default();
        let via = crate::device::observation::ObservedVia::Uitest;
        Ok(Observation { ui, phone, screen: self.screen, dump, via, ..Default::default() }.stamped(began, started))
    }

    fn screenshot(&mut self) -> Result<Vec<u8>, DeviceError> {
        let command = format!(
            "snapshot_display -f {SNAPSHOT_FILE} -t png; echo {SECTION}; cat {SNAPSHOT_FILE}; rm -f {SNAPSHOT_FILE}"
        );
        let reply = self.client.shell(&command).map_err(|e| hdc_error(&self.name, "screenshot", e))?;
        let out = reply.output;
        let marker = format!("{SECTION}\n");
        let split = out.windows(marker.len()).position(|w| w == marker.as_bytes());
        let (said, png) = match split {
            Some(i) => (&out[..i], &out[i + marker.len()..]),
            None => (&out[..], &[][..]),
        };
        let said = String::from_utf8_lossy(said);
        if !said.contains("success: snapshot display") {
            return Err(DeviceError::Command {
                device: self.name.clone(),
                op: "screenshot".into(),
                output: said.trim().to_string(),
            });
        }
        if !png.starts_with(b"\x89PNG\r\n\x1a\n") {
            return Err(DeviceError::Unexpected {
                device: self.name.clone(),
                op: "screenshot".into(),
                output: format!("not a PNG ({} bytes)", png.len()),
            });
        }
        Ok(png.to_vec())
    }

    fn tap(&mut self, x: i32, y: i32) -> Result<(), DeviceError> {
        self.input(&format!("click {} {}", at(x), at(y)), "tap")
    }

    fn long_press(&mut self, x: i32, y: i32, _ms: u32) -> Result<(), DeviceError> {
        // uitest holds a long click for its own time.
        self.input(&format!("longClick {} {}", at(x), at(y)), "long press")
    }

    fn swipe(&mut self, x1: i32, y1: i32, x2: i32, y2: i32, ms: u32) -> Result<(), DeviceError> {
        let v = velocity(x1, y1, x2, y2, ms);
        self.input(&format!("swipe {} {} {} {} {v}", at(x1), at(y1), at(x2), at(y2)), "swipe")
    }

    fn drag(&mut self, x1: i32, y1: i32, x2: i32, y2: i32, ms: u32) -> Result<(), DeviceError> {
        let v = velocity(x1, y1, x2, y2, ms);
        self.input(&format!("drag {} {} {} {} {v}", at(x1), at(y1), at(x2), at(y2)), "drag")
    }

    fn input_text(&mut self, text: &str) -> Result<(), DeviceError> {
        if text.is_empty() {
            return Ok(());
        }
        self.input(&format!("text {}", quote(text)), "type")
    }

    fn clear_text(&mut self) -> Result<(), DeviceError> {
        // Select all, then delete: one round trip whatever the text's length.
        let out = self.run("uitest uiInput keyEvent 2072 2017 && uitest uiInput keyEvent 2055", "clear text")?;
        if out.matches("No Error").count() == 2 {
            return Ok(());
        }
        Err(DeviceError::Command { device: self.name.clone(), op: "clear text".into(), output: out.trim().to_string() })
    }

    fn press_key(&mut self, key: &str) -> Result<(), DeviceError> {
        let Some(code) = harmony_key(key) else {
            if adb_wire::keycodes::from_friendly_name(key.trim()).is_none() {
                return Err(DeviceError::UnknownKey(key.into()));
            }
            return Err(self.not_here(
                &format!("the key {key:?}"),
                "use back, home, enter, delete, tab, space, paste, power, volume_up, volume_down, the arrows, a letter or a digit",
            ));
        };
        self.input(&format!("keyEvent {code}"), "press a key")
    }

    fn go_home(&mut self) -> Result<(), DeviceError> {
        self.input("keyEvent Home", "go home")
    }

    fn start_app(&mut self, package: &str, activity: Option<&str>) -> Result<(), DeviceError> {
        let ability = match activity {
            Some(a) => a.trim_start_matches('.').to_string(),
            None => self.main_ability(package)?,
        };
        let command = format!("aa start -b {} -a {}", quote(package), quote(&ability));
        self.checked(&command, "start an app").map(drop)
    }

    fn stop_app(&mut self, package: &str) -> Result<(), DeviceError> {
        let out = self.run(&format!("aa force-stop {}", quote(package)), "stop an app")?;
        if out.contains("get bundle info failed") {
            return Err(DeviceError::NotInstalled {
                device: self.name.clone(),
                package: package.into(),
                check: LIST_BUNDLES,
            });
        }
        if out.contains("error:") {
            return Err(DeviceError::Command {
                device: self.name.clone(),
                op: "stop an app".into(),
                output: out.trim().into(),
            });
        }
        Ok(())
    }

    fn clear_app_data(&mut self, package: &str) -> Result<(), DeviceError> {
        self.checked(&format!("bm clean -n {} -d", quote(package)), "clear an app's data").map(drop)
    }

    fn open_url(&mut self, uri: &str) -> Result<(), DeviceError> {
        self.checked(&format!("aa start -U {}", quote(uri)), "open a link").map(drop)
    }

    fn list_packages(&mut self, _system: bool) -> Result<Vec<String>, DeviceError> {
        // `bm dump -a` does not tell system bundles apart: every bundle is listed.
        let out = self.run("bm dump -a", "list bundles")?;
        Ok(out
            .lines()
            .filter(|l| !l.starts_with("ID:"))
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.contains(char::is_whitespace))
            .map(str::to_string)
            .collect())
    }

    fn shell(&mut self, command: &str) -> Result<ShellOutput, DeviceError> {
        let reply = self.client.shell(command).map_err(|e| hdc_error(&self.name, "shell", e))?;
        Ok(ShellOutput { stdout: reply.output, stderr: Vec::new(), code: reply.status })
    }

    fn timeout(&self) -> Duration {
        self.client.timeout
    }

    fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.client.deadline = deadline;
    }
}

/// uitest's swipe speed in px/s for a gesture of `ms`, within what it accepts.
fn velocity(x1: i32, y1: i32, x2: i32, y2: i32, ms: u32) -> u32 {
    let (dx, dy) = (f64::from(x2) - f64::from(x1), f64::from(y2) - f64::from(y1));
    let v = (dx * dx + dy * dy).sqrt() / f64::from(ms.max(1)) * 1000.0;
    v.clamp(200.0, 40_000.0).round() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ability_in_front_is_the_foreground_mission() {
        let missions = "User ID #100\n  current mission lists:{\n    Mission ID #139  mission name #[#a.b:entry:Main]\n        main name [Main]\n        bundle name [a.b]\n        state #BACKGROUND  start time [1]\n    Mission ID #140  mission name #[#c.d:entry:Edit]\n        main name [Edit]\n        bundle name [c.d]\n        state #FOREGROUND  start time [2]\n }\n";
        assert_eq!(foreground(missions), Some(("c.d".into(), "Edit".into())));
        assert_eq!(foreground("User ID #100\n  current mission lists:{\n }\n"), None);
    }

    #[test]
    fn android_keys_become_harmony_codes() {
        assert_eq!(harmony_key("back").as_deref(), Some("Back"));
        assert_eq!(harmony_key("KEYCODE_ENTER").as_deref(), Some("2054"));
        assert_eq!(harmony_key("KEYCODE_A").as_deref(), Some("2017"));
        assert_eq!(harmony_key("KEYCODE_9").as_deref(), Some("2009"));
        assert_eq!(harmony_key("KEYCODE_PASTE").as_deref(), Some("2072 2038"));
        assert_eq!(harmony_key("KEYCODE_CAMERA"), None);
        assert_eq!(velocity(0, 0, 0, 600, 1000), 600);
        assert_eq!(velocity(0, 0, 0, 0, 10), 200);
    }
}
