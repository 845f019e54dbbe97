//! `codeact devices`: what the adb server and the hdc server see.

use std::process::ExitCode;
use std::time::Duration;

/// List the devices the adb server sees (serial, state, model), then the
/// HarmonyOS phones an hdc server sees (127.0.0.1:8710, or $OHOS_HDC_SERVER_PORT)
/// as `hdc:KEY`, each the name `--device` takes.
#[derive(clap::Args, Debug)]
pub struct DevicesArgs {
    /// Seconds to wait for each server.
    #[arg(long, default_value_t = 5.0)]
    timeout: f64,
}

impl DevicesArgs {
    pub fn list(self) -> anyhow::Result<ExitCode> {
        let timeout = Duration::from_secs_f64(self.timeout.clamp(0.1, 600.0));
        let adb = codeact::device::adb::list_devices(timeout);
        // A HarmonyOS server is listed when one answers; none is not an error.
        let hdc = codeact::device::hdc::list_targets(timeout).unwrap_or_default();
        let devices = match adb {
            Ok(devices) => devices,
            Err(e) if hdc.is_empty() => return Err(e.into()),
            Err(e) => {
                codeact::errln!("codeact: {}", codeact::terminal::one_line(&e.to_string()));
                Vec::new()
            }
        };
        if devices.is_empty() && hdc.is_empty() {
            codeact::outln!("No devices attached. Connect a phone with USB debugging on, or use `--device sim`.");
        }
        for d in devices {
            let model = if d.model.is_empty() { "-".to_string() } else { d.model };
            codeact::outln!("{}", codeact::terminal::one_line(&format!("{}\t{}\t{}", d.serial, d.state, model)));
        }
        for key in hdc {
            codeact::outln!("{}", codeact::terminal::one_line(&format!("hdc:{key}\tdevice\tHarmonyOS")));
        }
        Ok(ExitCode::SUCCESS)
    }
}
