//! The screen as each platform's page source, byte for byte as a real device writes
//! it: `uiautomator.rs` (Android's `uiautomator dump` XML), `uitest.rs` (HarmonyOS's
//! `uitest dumpLayout` JSON), `uia2.rs` (Appium's UiAutomator2 server's `/source`) and `xcui.rs` (WebDriverAgent's `/source` XML for iOS),
//! the three parallel to the runtime's `ui/parse/`; `xml.rs` the attribute writing
//! the XML formats share. Only writes: the world builds the screen, the doors serve
//! what is written here.

pub(crate) mod uia2;
pub(crate) mod uiautomator;
pub(crate) mod uitest;
pub(crate) mod xcui;
pub(crate) mod xml;
