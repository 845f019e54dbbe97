//! Which phones `codeact exec` runs a suite on: `--device` once per phone, N
//! fresh virtual phones (`--device sim --parallel N`), or N sessions of one
//! Appium or Selenium Grid URL (`--device appium:URL --parallel N`: each worker
//! creates its own session, and the grid gives each a phone of its own), one
//! worker each. Not here: how the scripts are shared out (`script::run_suite`).

use codeact::config::{Flags, Settings};
use codeact::device::DeviceSpec;

use super::args::{DEVICE_HELP, DeviceArgs, DeviceHow, SessionArgs};

/// The phones of a suite run.
#[derive(clap::Args, Debug)]
pub struct SuiteDevices {
    /// Give it once per phone to run on several at once (see --parallel).
    #[arg(long = "device", short = 'd', value_name = "DEVICE", long_help = DEVICE_HELP)]
    devices: Vec<String>,
    #[command(flatten)]
    pub how: DeviceHow,
    /// Run N scripts at once, each on a phone of its own: the phones given with
    /// --device (once each; N defaults to how many), N fresh virtual phones with
    /// --device sim (or sim:ios, sim:harmony), or N sessions of one --device
    /// appium:URL (a Selenium Grid or a cloud gives each session a phone of its
    /// own). Scripts are handed out in order as phones come free; the reports and
    /// JUnit keep the suite's order.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=16))]
    parallel: Option<u32>,
}

/// Why the phones asked for cannot run the suite.
#[derive(Debug, thiserror::Error)]
pub enum SuiteDevicesError {
    #[error(
        "--parallel {parallel} with {given} phones given: give --device once per phone, as many as --parallel (or leave --parallel out)"
    )]
    Mismatch { parallel: usize, given: usize },
    #[error(
        "--parallel {0} needs {0} phones: give --device once per phone (`codeact devices` lists them), or --device sim for virtual phones"
    )]
    TooFew(usize),
    #[error("--device {0} is given twice: a phone runs one script at a time")]
    Twice(String),
    #[error(
        "--parallel {0} on an attached Appium session (#session=ID): that session is one phone; leave out --parallel, or let codeact create sessions (drop #session=ID)"
    )]
    AttachedTwice(usize),
}

impl SuiteDevices {
    /// The first phone's flags (what a single-phone mode such as --heal uses).
    pub fn first(&self) -> DeviceArgs {
        DeviceArgs { device: self.devices.first().cloned(), how: self.how.clone() }
    }

    /// Each worker's settings: one per phone given, or `--parallel` virtual phones.
    pub fn worker_settings(&self, session: &SessionArgs, defaults: &Flags) -> anyhow::Result<Vec<Settings>> {
        let given = self.devices.len();
        let parallel = self.parallel.map_or(given.max(1), |n| n as usize);
        if given > 1 && parallel != given {
            return Err(SuiteDevicesError::Mismatch { parallel, given }.into());
        }
        let mut seen = std::collections::HashSet::new();
        for d in &self.devices {
            if !opens_fresh(Some(d)) && !seen.insert(d.trim()) {
                return Err(SuiteDevicesError::Twice(d.clone()).into());
            }
        }
        let mut settings = Vec::with_capacity(parallel);
        for worker in 0..parallel {
            let device = DeviceArgs { device: self.devices.get(worker % given.max(1)).cloned(), how: self.how.clone() };
            let one = session.settings(&device, defaults.clone())?;
            // More workers than phones given: only virtual phones, and the sessions
            // of an Appium URL (each worker its own), come in any number.
            if worker >= given.max(1) && !opens_fresh(one.device.as_deref()) {
                if matches!(DeviceSpec::parse(one.device.as_deref()), DeviceSpec::Appium(_)) {
                    return Err(SuiteDevicesError::AttachedTwice(parallel).into());
                }
                return Err(SuiteDevicesError::TooFew(parallel).into());
            }
            settings.push(one);
        }
        Ok(settings)
    }
}

/// A virtual phone: each open is a fresh one.
pub fn is_virtual(device: Option<&str>) -> bool {
    matches!(DeviceSpec::parse(device), DeviceSpec::Sim | DeviceSpec::SimIos | DeviceSpec::SimHarmony)
}

/// Each open is a phone of its own: a fresh virtual phone, or a new session on an
/// Appium URL (not one attached to with #session=ID, which is one phone).
pub fn opens_fresh(device: Option<&str>) -> bool {
    is_virtual(device) || matches!(DeviceSpec::parse(device), DeviceSpec::Appium(rest) if !rest.contains("#session="))
}
