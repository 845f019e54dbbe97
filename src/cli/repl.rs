//! `codeact repl`: an interactive prompt on a session.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use codeact::config::{Flags, Helpers};
use codeact::session::Session;

use super::args::{DeviceArgs, LlmArgs, LocatorArgs, SessionArgs};

/// An interactive Rhai prompt on a device: variables and functions persist,
/// ui_state is always fresh, Tab completes, :help lists the meta-commands.
///
///   codeact repl --device sim
///   rhai> tap("Settings")
///   rhai> :state
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct ReplArgs {
    #[command(flatten)]
    device: DeviceArgs,
    #[command(flatten)]
    session: SessionArgs,
    /// The vision model #{ai: "..."} and locate() ask (optional).
    #[command(flatten)]
    llm: LlmArgs,
    #[command(flatten)]
    locator: LocatorArgs,
    /// Keep history in this file (default $CODEACT_HISTORY, else
    /// ~/.local/state/codeact/history).
    #[arg(long, value_name = "FILE")]
    history: Option<PathBuf>,
    /// Keep no history.
    #[arg(long, conflicts_with = "history")]
    no_history: bool,
}

impl ReplArgs {
    pub fn repl(self) -> anyhow::Result<ExitCode> {
        let defaults = Flags { default_sensitive: Some(codeact::tools::SensitivePolicy::Ask), ..Flags::default() };
        let mut settings = self.session.settings(&self.device, defaults)?;
        // What a person types is their intent: watchers answer only a dialog in its way.
        settings.tools.watch_mode = codeact::tools::WatchMode::WhenBlocked;
        settings.helpers =
            Helpers { person: self.session.person(true)?, locator: self.locator.vision(&settings.llm, &self.llm)? };
        let session = Session::open(&settings)?;
        let history = if self.no_history { None } else { self.history.or_else(codeact::repl::default_history_file) };
        let stop = session.cancel_handle();
        codeact::repl::run_repl(session, history, move || super::interrupt::stop_snippets_on_ctrl_c(stop))
            .context("the line editor failed")?;
        Ok(ExitCode::SUCCESS)
    }
}
