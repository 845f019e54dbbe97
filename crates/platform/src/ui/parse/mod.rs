//! From a platform's hierarchy dump to a [`UiTree`]: each format in its own file
//! (`uiautomator.rs`: Android's `uiautomator dump` XML; `uitest.rs`: HarmonyOS's
//! `uitest dumpLayout` JSON; `xcui.rs`: the page source WebDriverAgent serves for
//! iOS), then what every format shares ([`derive`]: centres, actions, visibility and
//! signatures, computed once). Every format becomes the same elements with Android's
//! classes, so a selector means the same on each. Nothing here talks to a device.

mod shared;
mod uiautomator;
mod uitest;
mod xcui;

pub use uiautomator::parse_uiautomator as parse;
pub use uitest::parse_uitest;
pub use xcui::parse_xcui;

pub use shared::ParseError;
