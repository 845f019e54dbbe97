//! `codeact observe`: one look at the phone, as the model would read it.

use std::process::ExitCode;

use super::args::DeviceArgs;

/// Read the screen once: foreground app, keyboard, and the elements on screen.
///
/// `codeact observe --device sim` shows what the virtual device's home screen holds.
#[derive(clap::Args, Debug)]
pub struct ObserveArgs {
    #[command(flatten)]
    device: DeviceArgs,
    /// Print the whole observation (UI tree included) as JSON.
    #[arg(long)]
    json: bool,
}

impl ObserveArgs {
    pub fn observe(self) -> anyhow::Result<ExitCode> {
        let mut phone = self.device.open()?;
        let obs = phone.observe()?;
        if self.json {
            codeact::outln!("{}", codeact::terminal::clean(&serde_json::to_string_pretty(&obs)?));
        } else {
            codeact::outln!(
                "device {}; screen {}x{}; read by {} in {:.0} ms",
                phone.name(),
                obs.screen.0,
                obs.screen.1,
                obs.via.name(),
                obs.took_ms
            );
            if let Some(why) = &obs.fallback {
                codeact::outln!("note: {}", codeact::terminal::one_line(why));
            }
            codeact::out!("{}", codeact::terminal::clean(&obs.screen_text()));
        }
        Ok(ExitCode::SUCCESS)
    }
}
