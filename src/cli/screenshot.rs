//! `codeact screenshot`: the screen as a PNG file.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use super::args::DeviceArgs;

/// Save a screenshot as PNG.
#[derive(clap::Args, Debug)]
pub struct ScreenshotArgs {
    #[command(flatten)]
    device: DeviceArgs,
    /// Where to write the PNG (default: screenshot.png here).
    #[arg(long, short = 'o', value_name = "FILE")]
    out: Option<PathBuf>,
}

impl ScreenshotArgs {
    pub fn save(self) -> anyhow::Result<ExitCode> {
        let mut phone = self.device.open()?;
        let png = phone.screenshot()?;
        // A path the user names is written as named (`-o /dev/stdout` too); the
        // default name is renamed into place, never written through a link there.
        let (out, written) = match &self.out {
            Some(path) => (path.clone(), std::fs::write(path, &png)),
            None => {
                let path = PathBuf::from("screenshot.png");
                let written = codeact::files::write_replacing(&path, &png);
                (path, written)
            }
        };
        written.with_context(|| format!("cannot write {}", out.display()))?;
        codeact::outln!("{} ({} bytes) from {}", codeact::terminal::path(&out), png.len(), phone.name());
        Ok(ExitCode::SUCCESS)
    }
}
