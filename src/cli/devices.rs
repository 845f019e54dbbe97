//! `codeact devices`: what the adb server sees.

use std::process::ExitCode;
use std::time::Duration;

/// List the devices the adb server sees, with state and model.
#[derive(clap::Args, Debug)]
pub struct DevicesArgs {
    /// Seconds to wait for the adb server.
    #[arg(long, default_value_t = 5.0)]
    timeout: f64,
}

impl DevicesArgs {
    pub fn list(self) -> anyhow::Result<ExitCode> {
        let devices = codeact::device::connect::list_devices(Duration::from_secs_f64(self.timeout.clamp(0.1, 600.0)))?;
        if devices.is_empty() {
            codeact::outln!("No devices attached. Connect a phone with USB debugging on, or use `--device sim`.");
        }
        for d in devices {
            let model = if d.model.is_empty() { "-".to_string() } else { d.model };
            codeact::outln!("{}", codeact::terminal::clean(&format!("{}\t{}\t{}", d.serial, d.state, model)));
        }
        Ok(ExitCode::SUCCESS)
    }
}
