//! Android over ADB: [`AdbDevice`] implements [`Device`](crate::device::Device) with
//! one shell command line per operation (`device.rs`), observes in one round trip
//! (`observe.rs`), and quotes for the device's shell (`quote.rs`), on our own ADB
//! client (`transport/`: straight to a device's adbd, or through the adb server).
//! What every platform shares (the trait, errors, observations, `--device`) is in
//! `device/` itself.

pub mod agents;
mod device;
mod observe;
mod quote;
pub mod transport;

pub use device::AdbDevice;
pub use observe::{parse_focus, parse_wm_size};
pub use quote::quote;
