//! What a tool does to the device, as data: every acting device call a tool makes
//! is one [`DeviceAct`], and [`ToolContext::act`](crate::ToolContext::act) is the
//! only way to make one. There the sensitive-action gate judges it (`gate.rs`)
//! before it reaches the device, so a tool cannot act without being judged, and a
//! new tool is judged without saying so. Tools read the device through
//! [`DeviceReads`], which cannot act.
//!
//! Not here: what is judged sensitive (`sensitive.rs`), how (`gate.rs`).

use crate::declaration::Gate;
use codeact_platform::device::Observation;
use codeact_platform::device::{Device, DeviceError, ShellOutput};

/// One acting device call.
#[derive(Debug, Clone, Copy)]
pub(crate) enum DeviceAct<'a> {
    Tap((i32, i32)),
    LongPress((i32, i32), u32),
    /// A swipe (or, `drag`, a drag and drop) from one point to another; `scroll`
    /// when it scrolls content (the runtime looking down a list, `scroll()`): then
    /// it is judged only as the press it is when it barely moves.
    Stroke {
        from: (i32, i32),
        to: (i32, i32),
        ms: u32,
        drag: bool,
        scroll: bool,
    },
    /// Text typed into the focused field; `shown` is how the gate and the records
    /// name it (`the secret PIN` for `type_secret`: never the value).
    Type {
        text: &'a str,
        shown: &'a str,
    },
    ClearText,
    Key(&'a str),
    /// A key pressed `times` times (erasing: the delete key).
    KeyTimes(&'a str, u32),
    Home,
    StartApp {
        package: &'a str,
        activity: Option<&'a str>,
    },
    StopApp(&'a str),
    ClearData(&'a str),
    OpenUrl(&'a str),
    /// A script's shell command (the `shell` tool).
    Shell(&'a str),
    /// The clipboard's text set (on the virtual phone).
    SetClipboard(&'a str),
}

impl DeviceAct<'_> {
    /// Makes the call; a shell command's output is returned.
    pub(crate) fn perform(&self, d: &mut dyn Device) -> Result<Option<ShellOutput>, DeviceError> {
        match *self {
            DeviceAct::Tap((x, y)) => d.tap(x, y)?,
            DeviceAct::LongPress((x, y), ms) => d.long_press(x, y, ms)?,
            DeviceAct::Stroke { from, to, ms, drag: true, .. } => d.drag(from.0, from.1, to.0, to.1, ms)?,
            DeviceAct::Stroke { from, to, ms, drag: false, .. } => d.swipe(from.0, from.1, to.0, to.1, ms)?,
            DeviceAct::Type { text, .. } => d.input_text(text)?,
            DeviceAct::ClearText => d.clear_text()?,
            DeviceAct::Key(key) => d.press_key(key)?,
            DeviceAct::KeyTimes(key, times) => (0..times).try_for_each(|_| d.press_key(key))?,
            DeviceAct::Home => d.go_home()?,
            DeviceAct::StartApp { package, activity } => d.start_app(package, activity)?,
            DeviceAct::StopApp(package) => d.stop_app(package)?,
            DeviceAct::ClearData(package) => d.clear_app_data(package)?,
            DeviceAct::OpenUrl(uri) => d.open_url(uri)?,
            DeviceAct::Shell(command) => return d.shell(command).map(Some),
            DeviceAct::SetClipboard(text) => {
                return d.shell(&format!("simctl clipboard set {}", codeact_platform::device::quote(text))).map(Some);
            }
        }
        Ok(None)
    }

    /// Whether the screen may change: then it settles after the call and its
    /// effect is measured (setting the clipboard shows nothing, and leaves
    /// `ui_state`'s indices as they were).
    pub(crate) fn changes_the_screen(&self) -> bool {
        !matches!(self, DeviceAct::SetClipboard(_))
    }

    /// Whether the watchers get their turn first (a blocker on screen would take
    /// the input). A shell command or the clipboard is not input on the screen.
    pub(crate) fn meets_the_screen(&self) -> bool {
        !matches!(self, DeviceAct::Shell(_) | DeviceAct::SetClipboard(_) | DeviceAct::StopApp(_))
    }
}

/// The device as a tool may read it: observing, screenshots, packages, the
/// clipboard. Acting goes through [`DeviceAct`].
pub(crate) struct DeviceReads<'a>(pub(crate) &'a mut dyn Device);

impl DeviceReads<'_> {
    pub(crate) fn observe(&mut self) -> Result<Observation, DeviceError> {
        self.0.observe()
    }

    pub(crate) fn list_packages(&mut self, system: bool) -> Result<Vec<String>, DeviceError> {
        self.0.list_packages(system)
    }

    pub(crate) fn platform(&self) -> codeact_platform::device::Platform {
        self.0.platform()
    }

    pub(crate) fn is_installed(&mut self, package: &str) -> Result<bool, DeviceError> {
        self.0.is_installed(package)
    }

    /// The clipboard's text (the virtual phone's `simctl`; `None` where the device
    /// does not give it).
    pub(crate) fn clipboard(&mut self) -> Result<Option<String>, DeviceError> {
        let out = self.0.shell("simctl clipboard")?;
        Ok((out.code.unwrap_or(0) == 0).then(|| out.stdout_text()))
    }
}

/// The paste key.
pub(crate) fn is_paste(key: &str) -> bool {
    adb_wire::keycodes::from_friendly_name(key) == Some(adb_wire::keycodes::PASTE)
}

/// Keys that press what has focus (a focused button, a form's submit).
pub(crate) fn activates(key: &str) -> bool {
    matches!(adb_wire::keycodes::from_friendly_name(key), Some(66 | 160 | 23 | 62 | 96 | 108 | 109 | 5 | 279))
}

/// The gate's checks an act needs its tool to have declared (any one of them), and
/// the act in words; `None` for an act the gate does not judge (leaving, stopping an
/// app, emptying a field, keys that press nothing, the clipboard).
pub(crate) fn checks_needed(act: &DeviceAct<'_>) -> Option<(&'static [Gate], &'static str)> {
    match *act {
        DeviceAct::Tap(_) => Some((&[Gate::Point, Gate::Element], "tap")),
        DeviceAct::LongPress(..) => Some((&[Gate::Point, Gate::Element], "long-press")),
        DeviceAct::Stroke { .. } => Some((&[Gate::Point, Gate::Element], "swipe")),
        DeviceAct::Type { .. } => Some((&[Gate::Text], "type")),
        DeviceAct::Key(k) | DeviceAct::KeyTimes(k, _) if is_paste(k) || activates(k) => {
            Some((&[Gate::Text], "press a key that submits or pastes"))
        }
        DeviceAct::StartApp { .. } => Some((&[Gate::App], "start an app")),
        DeviceAct::ClearData(_) => Some((&[Gate::App], "clear an app's data")),
        DeviceAct::OpenUrl(_) => Some((&[Gate::App], "open a link")),
        DeviceAct::Shell(_) => Some((&[Gate::Command], "run a shell command")),
        DeviceAct::Key(_)
        | DeviceAct::KeyTimes(..)
        | DeviceAct::Home
        | DeviceAct::StopApp(_)
        | DeviceAct::ClearText
        | DeviceAct::SetClipboard(_) => None,
    }
}
