//! `codeact studio`: the studio's flags, the session it serves, and the URL it
//! prints (once: it holds the token).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use codeact::config::Flags;
use codeact::session::Session;
use codeact::studio::StudioOptions;
use codeact::tools::{Recording, SensitivePolicy};

use super::args::{DeviceArgs, SessionArgs};

/// See the phone in a browser, point at an element for its selectors, act on it,
/// record a script, run Rhai, and replay run folders — one page on 127.0.0.1.
///
///   codeact studio --device sim --open
///   codeact studio -d emulator-5554 --port 8700
///
/// The page's address ends with a token, printed once at start: only who has it
/// may see or drive the phone. Recordings are saved below the folder codeact runs
/// in (.rhai: a script `codeact exec` runs; .yaml: a Maestro flow); run folders
/// are listed from --runs.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct StudioArgs {
    #[command(flatten)]
    device: DeviceArgs,
    #[command(flatten)]
    session: SessionArgs,
    /// The port on 127.0.0.1 (0: any free one, printed at start).
    #[arg(long, default_value_t = 0, value_name = "PORT")]
    port: u16,
    /// Open the page in the browser (xdg-open, open, or $BROWSER).
    #[arg(long)]
    open: bool,
    /// The folder whose run folders the page replays (codeact run, exec
    /// --trajectory, eval, explore and mcp write them).
    #[arg(long, default_value = "runs", value_name = "DIR")]
    runs: PathBuf,
}

impl StudioArgs {
    pub fn serve(self) -> anyhow::Result<ExitCode> {
        let defaults = Flags {
            // A person watches: sensitive acts are asked at this terminal.
            default_sensitive: Some(SensitivePolicy::Ask),
            default_record: Some(Recording::None),
            ..Flags::default()
        };
        let mut settings = self.session.settings(&self.device, defaults)?;
        settings.helpers.person = self.session.person(true)?;
        let assets_dir = settings.tools.assets.clone();
        let session = Session::open(&settings).context("cannot open the phone for the studio")?;
        let here = std::env::current_dir().context("cannot read the working folder")?;
        let options = StudioOptions { save_dir: here, runs_dir: self.runs.clone(), assets_dir };
        let token = codeact::token::new_token().context("no random token could be made")?;
        let runtime = super::interrupt::runtime()?;
        let interrupt = super::interrupt::cancel_on_signal(&runtime, "the studio");
        let open = self.open;
        let served =
            codeact::studio::serve(session, options, self.port, token.clone(), interrupt.token.clone(), move |at| {
                let url = format!("http://{at}/{token}/");
                codeact::errln!("codeact studio: serving {url} (Ctrl-C stops it; the address holds the token)");
                if open {
                    open_browser(&url);
                }
            });
        runtime.block_on(served).context("codeact studio")?;
        Ok(interrupt.exit_code().map_or(ExitCode::SUCCESS, ExitCode::from))
    }
}

/// Opens `url` in the desktop's browser; says so when none is found.
fn open_browser(url: &str) {
    let browser = std::env::var("BROWSER").ok().filter(|b| !b.trim().is_empty());
    let candidates: Vec<String> = browser.into_iter().chain(["xdg-open".to_string(), "open".to_string()]).collect();
    for program in candidates {
        let started = std::process::Command::new(&program)
            .arg(url)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        if started.is_ok() {
            return;
        }
    }
    codeact::errln!("codeact studio: no browser to open (set $BROWSER); open the address above yourself");
}
