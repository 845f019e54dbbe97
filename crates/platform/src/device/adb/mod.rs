//! Android over ADB: [`AdbDevice`] implements [`Device`](crate::device::Device) with
//! one shell command line per operation (`device.rs`), observes in one round trip
//! (`observe.rs`), and cuts text for the shell line (`line.rs`), on our own ADB
//! client (`transport/`: straight to a device's adbd, or through the adb server).
//! What every platform shares (the trait, errors, observations, `--device`) is in
//! `device/` itself.

pub(crate) mod agent_state;
pub mod agents;
mod connect;
pub(crate) mod device;
mod line;
mod observe;
pub mod transport;

pub use crate::device::errors::adb::{ADB_KEYBOARD, AdbError};
pub use connect::{list_devices, open_adb, server_address};
pub use device::AdbDevice;
pub use observe::{parse_focus, parse_wm_size};
