//! The one interface through which the runtime acts on a phone: the blocking
//! [`Device`] trait, what an observation holds, and the typed errors every operation
//! returns. `adb/` implements it for Android over ADB (on our client in
//! `adb/transport/`), `wda/` for iOS over WebDriverAgent's HTTP API, `hdc/` for
//! HarmonyOS over an hdc server; `connect.rs` chooses and opens a device from
//! `--device`; with the `sim` feature, `sim.rs` starts the virtual phone in-process
//! and reaches it through the door of the platform asked for (ADB; WDA for
//! `sim:ios`; hdc for `sim:harmony`). Another platform is another folder beside them.
//!
//! This module knows nothing of Rhai, prompts or the agent loop.

pub mod adb;
pub mod appium;
pub mod connect;
pub(crate) mod contract;
pub(crate) mod errors;
pub mod hdc;
pub(crate) mod observation;
pub(crate) mod platform;
pub(crate) mod said;
pub mod shell;
#[cfg(feature = "sim")]
mod sim;
pub(crate) mod spec;
pub mod w3c;
pub mod wda;

pub use adb::agents::{AgentError, ObserveWith};
pub use adb::{ADB_KEYBOARD, AdbDevice, AdbError};
pub use appium::AppiumDevice;
pub use connect::{DeviceSpec, open, open_observing};
pub use contract::Device;
pub use errors::{DeviceError, Platform};
pub use hdc::HarmonyDevice;
pub use observation::{Observation, ObservedVia, PhoneState};
pub use shell::{ShellOutput, quote};
pub use wda::IosDevice;
