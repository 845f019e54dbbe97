//! Which phones `codeact eval` runs its suite on: fresh virtual phones of
//! `--platform` (the default), or the virtual phones behind `--device` — an adb
//! serial of a `codeact sim`, or an Appium / Selenium Grid URL whose phones are
//! virtual phones. The suite sets each instance up and judges it through the
//! phone's `simctl`, so a real phone cannot take it. Not the suite (`eval.rs`).

use super::args::{DeviceArgs, DeviceHow};

/// `--device` and how it is reached.
#[derive(clap::Args, Debug)]
pub struct EvalDevice {
    /// Run on the virtual phones behind this device instead of fresh ones: an adb
    /// serial of `codeact sim`, or appium:URL (Appium or a Selenium Grid whose nodes
    /// drive virtual phones; Appium started with
    /// --allow-insecure=uiautomator2:adb_shell, since instances are set up and judged
    /// through the phone's shell). Each of the --parallel workers opens its own
    /// session, so --parallel N wants a URL that hands out N phones (a grid).
    #[arg(long = "device", short = 'd', value_name = "DEVICE")]
    device: Option<String>,
    #[command(flatten)]
    how: DeviceHow,
}

impl EvalDevice {
    /// The phone each worker opens: `--device`, or a fresh virtual phone of `platform`.
    pub fn device_args(&self, fresh: &'static str) -> DeviceArgs {
        DeviceArgs { device: Some(self.device.clone().unwrap_or_else(|| fresh.into())), how: self.how.clone() }
    }
}
