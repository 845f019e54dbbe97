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
    /// Where to write the PNG.
    #[arg(long, short = 'o', default_value = "screenshot.png")]
    out: PathBuf,
}

impl ScreenshotArgs {
    pub fn save(self) -> anyhow::Result<ExitCode> {
        let mut phone = self.device.open()?;
        let png = phone.screenshot()?;
        codeact::files::write_replacing(&self.out, &png)
            .with_context(|| format!("cannot write {}", self.out.display()))?;
        codeact::outln!("{} ({} bytes) from {}", self.out.display(), png.len(), phone.name());
        Ok(ExitCode::SUCCESS)
    }
}
