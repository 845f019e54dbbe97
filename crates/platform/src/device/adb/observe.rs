//! Observing an Android phone over ADB: screen size, focus, keyboard and the
//! uiautomator hierarchy in one command line and one round trip, each part read
//! from its tool's real output (`wm size`, `dumpsys window`, `dumpsys
//! input_method`, `uiautomator dump`). Not the parsing of the dump (`ui::parse`).

use std::time::Duration;

use super::device::AdbDevice;
use crate::device::errors::DeviceError;
use crate::device::observation::{Observation, PhoneState};
use crate::ui;

const SPLIT: &str = "__codeact_split__";
const DUMP_FILE: &str = "/sdcard/codeact_window_dump.xml";

impl AdbDevice {
    /// The screen size (`wm size`), read once and kept.
    pub(super) fn screen_size(&mut self) -> Result<(u32, u32), DeviceError> {
        if let Some(s) = self.screen {
            return Ok(s);
        }
        let out = self.checked("wm size", "wm size", Duration::ZERO)?;
        let size = parse_wm_size(&out.stdout_text()).ok_or_else(|| DeviceError::Unexpected {
            device: self.name.clone(),
            op: "wm size".into(),
            output: out.stdout_text().trim().to_string(),
        })?;
        self.screen = Some(size);
        Ok(size)
    }

    /// Screen size, focus, keyboard and the hierarchy in a single round trip.
    pub(super) fn observe_screen(&mut self) -> Result<Observation, DeviceError> {
        // One command line, one round trip. The dump goes through a fresh file: some
        // devices cannot write to /dev/tty from a non-interactive shell.
        // `timeout` on the device stops a stuck uiautomator that would otherwise
        // outlive our deadline and block the next dump.
        let secs = self.timeout.as_secs().max(1);
        let dump =
            format!("rm -f {DUMP_FILE}; timeout {secs} uiautomator dump {DUMP_FILE} >/dev/null; cat {DUMP_FILE}");
        let (parts, stderr) = self.phone_state_and(&dump)?;
        let [size, focus, ime, dump] = parts;
        // uiautomator dumps once the accessibility events have been quiet for a
        // second (or gives up: "could not get idle state").
        let seen = self.observation(&size, &focus, &ime, dump, &stderr)?;
        Ok(Observation { idle: true, ..seen })
    }

    /// Runs the phone-state commands and then `rest` in one command line; their
    /// outputs apart (size, focus, keyboard, what `rest` printed) and stderr.
    pub(super) fn phone_state_and(&mut self, rest: &str) -> Result<([String; 4], String), DeviceError> {
        // The marker is per call, so screen text cannot fake it.
        let marker = format!(
            "{SPLIT}{:x}",
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
        );
        let command = format!(
            "wm size; echo {marker}; dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'; echo {marker}; \
             dumpsys input_method | grep -E 'mInputShown'; echo {marker}; {rest}"
        );
        let timeout = self.timeout;
        let out = self.exec_line("observe", &command, timeout)?;
        let text = out.stdout_text();
        let parts: Vec<&str> = text.splitn(4, &format!("{marker}\n")).collect();
        let [size, focus, ime, rest] = parts[..] else {
            return Err(DeviceError::Unexpected {
                device: self.name.clone(),
                op: "observe".into(),
                output: out.stderr_text().trim().to_string(),
            });
        };
        Ok(([size, focus, ime, rest].map(str::to_string), out.stderr_text()))
    }

    /// The observation those outputs make; `stderr` explains a dump that failed.
    pub(super) fn observation(
        &mut self,
        size: &str,
        focus: &str,
        ime: &str,
        dump: String,
        stderr: &str,
    ) -> Result<Observation, DeviceError> {
        let screen = parse_wm_size(size).or(self.screen).ok_or_else(|| DeviceError::Unexpected {
            device: self.name.clone(),
            op: "observe (wm size)".into(),
            output: size.trim().to_string(),
        })?;
        self.screen = Some(screen);
        let tree = ui::parse(dump.as_bytes(), screen).map_err(|source| {
            // uiautomator explains itself on stderr (e.g. "could not get idle state").
            match stderr.trim() {
                "" => DeviceError::Ui { device: self.name.clone(), source },
                why => DeviceError::Command { device: self.name.clone(), op: "observe".into(), output: why.into() },
            }
        })?;
        let (package, activity) = parse_focus(focus);
        let focused = focused_element(&tree, &package);
        let keyboard_shown = ime.contains("mInputShown=true");
        let phone = PhoneState {
            package,
            activity,
            keyboard_shown,
            focused,
            platform: Default::default(),
            title: String::new(),
        };
        Ok(Observation { ui: tree, phone, screen, dump, ..Observation::default() })
    }
}

/// `Physical size: 1080x2400` (and `Override size:`, which wins).
pub fn parse_wm_size(text: &str) -> Option<(u32, u32)> {
    let size = |prefix: &str| {
        text.lines().find_map(|l| l.trim().strip_prefix(prefix)).and_then(|s| {
            let (w, h) = s.trim().split_once('x')?;
            Some((w.trim().parse().ok()?, h.trim().parse().ok()?))
        })
    };
    size("Override size:").or_else(|| size("Physical size:"))
}

/// Package and activity from `mFocusedApp=ActivityRecord{… u0 pkg/.Act t12}` or
/// `mCurrentFocus=Window{… u0 pkg/pkg.Act}`.
pub fn parse_focus(text: &str) -> (String, String) {
    let component = |key: &str| {
        let line = text.lines().find(|l| l.contains(key))?;
        let word = line.split_whitespace().find(|w| w.contains('/'))?;
        let word = word.trim_end_matches('}');
        let (pkg, act) = word.split_once('/')?;
        let act = if act.starts_with('.') { format!("{pkg}{act}") } else { act.to_string() };
        Some((pkg.to_string(), act))
    };
    component("mFocusedApp=").or_else(|| component("mCurrentFocus=")).unwrap_or_default()
}

/// The element with input focus: an editable one in the foreground app's window
/// first, the last in document order (the topmost window) among equals.
pub(super) fn focused_element(tree: &ui::UiTree, package: &str) -> Option<usize> {
    let focused = || tree.elements.iter().filter(|e| e.focused);
    focused()
        .rfind(|e| e.is_editable() && (package.is_empty() || e.package == package))
        .or_else(|| focused().rfind(|e| e.is_editable()))
        .or_else(|| focused().next_back())
        .map(|e| e.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_device_output() {
        assert_eq!(parse_wm_size("Physical size: 1080x2400\n"), Some((1080, 2400)));
        assert_eq!(parse_wm_size("Physical size: 1080x2400\nOverride size: 720x1600\n"), Some((720, 1600)));
        assert_eq!(parse_wm_size("garbage"), None);
        let focus = "  mCurrentFocus=Window{72459d u0 com.android.settings/com.android.settings.Settings}\n  mFocusedApp=ActivityRecord{a3436a u0 com.android.settings/.Settings t10}\n";
        assert_eq!(parse_focus(focus), ("com.android.settings".into(), "com.android.settings.Settings".into()));
        assert_eq!(parse_focus("  mCurrentFocus=null\n"), (String::new(), String::new()));
    }
}
