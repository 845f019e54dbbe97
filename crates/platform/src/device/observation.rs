//! What one look at the phone gives: the UI tree, the phone's state, the screen size,
//! the raw dump, and (when asked for) a screenshot, or why there is none. One type
//! for the device, the model's prompt, `ui_state` and the trajectory: it flows from
//! the observer to its readers and is never parked to be read back.

use std::sync::Arc;

use serde::Serialize;

use crate::device::errors::DeviceError;
use crate::ui::UiTree;

/// Foreground app, keyboard and focus, as the device reports them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PhoneState {
    pub package: String,
    /// Fully qualified activity class (`com.android.settings.Settings`).
    pub activity: String,
    pub keyboard_shown: bool,
    /// The focused element's id in the tree, if any element has focus.
    pub focused: Option<usize>,
    /// What the phone runs.
    pub platform: crate::device::platform::Platform,
    /// The screen's name where the platform has no activities (iOS: the title of
    /// its navigation bar, as UIKit names a view controller).
    pub title: String,
}

impl PhoneState {
    /// The screen's short name, the same on every platform: the activity's (or
    /// HarmonyOS ability's) class name without its package (`Settings` for
    /// `com.android.settings.Settings` and for the ability `Settings`); on iOS the
    /// navigation bar's title; empty only where a screen shows no name at all.
    pub fn screen(&self) -> &str {
        match self.activity.rsplit(['.', '/']).next() {
            Some(short) if !short.is_empty() => short,
            _ => &self.title,
        }
    }
}

/// How an observation was taken.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ObservedVia {
    /// `uiautomator dump` (Android), or a platform's own dump.
    #[default]
    Dump,
    /// uiautomator2's on-device server.
    U2,
    /// The mobilerun Portal's accessibility service.
    Portal,
    /// WebDriverAgent's page source (iOS).
    Wda,
    /// `uitest dumpLayout` (HarmonyOS).
    Uitest,
    /// An Appium server's page source (any platform behind `appium:`).
    Appium,
}

impl ObservedVia {
    pub fn name(self) -> &'static str {
        match self {
            Self::Dump => "uiautomator dump",
            Self::U2 => "uiautomator2's server",
            Self::Portal => "the mobilerun Portal",
            Self::Wda => "WebDriverAgent",
            Self::Uitest => "uitest dumpLayout",
            Self::Appium => "the Appium server",
        }
    }
}

/// Everything one observation reads. [`Device::observe`](super::Device::observe)
/// fills the tree, the phone state, the size and the dump in one round trip; a
/// session adds the screenshot when a step asks for one.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Observation {
    pub ui: UiTree,
    pub phone: PhoneState,
    /// Screen size in pixels (`wm size`, override first).
    pub screen: (u32, u32),
    /// The hierarchy dump as the device printed it (kept for trajectories).
    #[serde(skip)]
    pub dump: String,
    /// A PNG of the screen, when one was asked for and could be taken.
    #[serde(skip)]
    pub screenshot: Option<Arc<[u8]>>,
    /// Why the screenshot that was asked for could not be taken (secure windows).
    #[serde(skip)]
    pub screenshot_error: Option<Arc<DeviceError>>,
    /// What the watchers cleared before this look (a dialog dismissed, a permission
    /// answered), one line each: whoever sees the screen is told how it got there.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cleared: Vec<String>,
    /// How the tree was read.
    pub via: ObservedVia,
    /// When the look began (milliseconds since the Unix epoch) and how long it took.
    pub taken_at_ms: u64,
    pub took_ms: f64,
    /// Why the tree is not from the observer asked for (a stale or empty tree from
    /// an agent, an agent that failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// The device read the tree only once its UI had gone idle (`uiautomator dump`
    /// waits for the accessibility events to stop first), so the read shows a
    /// settled screen by itself.
    pub idle: bool,
}

impl Observation {
    /// Notes when the look began (`began`, on the wall clock) and how long it took
    /// (since `started`).
    pub fn stamped(mut self, began: std::time::SystemTime, started: std::time::Instant) -> Self {
        self.taken_at_ms = began.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
        self.took_ms = started.elapsed().as_secs_f64() * 1000.0;
        self
    }

    /// The compact screen text the LLM reads (and `observe`, `:state` print):
    /// the phone line, then one indexed line per element `ui_state` lists.
    pub fn screen_text(&self) -> String {
        let p = &self.phone;
        crate::ui::screen_text::screen_text(&self.ui, &p.package, &p.activity, p.keyboard_shown)
    }

    /// `com.android.settings/.Settings`: the screen as errors name it.
    pub fn screen_name(&self) -> String {
        let p = &self.phone;
        match p.activity.strip_prefix(p.package.as_str()).unwrap_or(&p.activity) {
            // A platform without activities (iOS): the app names the screen.
            "" => p.package.clone(),
            short => format!("{}/{short}", p.package),
        }
    }
}
