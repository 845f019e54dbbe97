//! What a virtual phone is: its serial, screen and identity, and where its world
//! comes from. Plain data, given to [`VirtualDevice`](crate::VirtualDevice) or
//! [`serve`](crate::serve).

use std::path::PathBuf;

/// What the virtual device is and how it looks.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// `getprop ro.serialno`.
    pub serial: String,
    /// Screen size in pixels.
    pub width: u32,
    pub height: u32,
    /// Screen density in dpi (`wm density`).
    pub density: u32,
    /// The dark theme (`cmd uimode night`): light text on dark surfaces.
    pub dark: bool,
    /// The text size multiplier (`settings get system font_scale`), 0.5 to 2.0.
    pub font_scale: f32,
    /// `ro.product.name` and the interactive shell prompt.
    pub product: String,
    pub model: String,
    /// Load the world (`world.toml` + `apps/*.toml`) from this folder instead of the
    /// bundled one.
    pub world: Option<PathBuf>,
    /// The apps' layout variant (0: as written; 1 reorders items, 2 also renames
    /// ids, 3 also adds a one-time dialog): what an app update changes.
    pub variant: u32,
    /// Which platform's front door it opens: Android's adbd (the default), iOS's
    /// WebDriverAgent HTTP server, or HarmonyOS's hdc server.
    pub platform: SimPlatform,
    /// The token the WebDriverAgent door requires as the first segment of every path
    /// (its URL is `http://ADDR/TOKEN`); random unless given.
    pub wda_token: String,
}

/// 128 random bits as hex, from the standard library's randomly keyed hasher.
pub fn random_token() -> String {
    use std::hash::{BuildHasher, Hasher};
    let half = || {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0),
        );
        h.finish()
    };
    format!("{:016x}{:016x}", half(), half())
}

/// The platform a virtual phone is reached as: the same world behind each door.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SimPlatform {
    /// An adbd: the stock `adb`, adb_client and codeact's ADB client drive it.
    #[default]
    Android,
    /// A WebDriverAgent HTTP server: WDA clients (`facebook-wda`, Appium's XCUITest
    /// driver, codeact's `--device ios:URL`) drive it.
    Ios,
    /// An hdc host server with this phone as its one target, whose shell runs
    /// HarmonyOS's tools (`uitest`, `snapshot_display`, `aa`, `bm`, `param`) instead
    /// of Android's: hdc clients (the `hdc` command, the `hdc-rs` crate, codeact's
    /// `--device hdc`) drive it.
    Harmony,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            serial: "codeact-sim".into(),
            width: 1080,
            height: 2400,
            density: 420,
            dark: false,
            font_scale: 1.0,
            product: "codeact_sim".into(),
            model: "CodeAct_Virtual_Phone".into(),
            world: None,
            variant: 0,
            platform: SimPlatform::Android,
            wda_token: random_token(),
        }
    }
}
