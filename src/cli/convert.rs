//! `codeact convert`: a Maestro flow printed as the Rhai script `codeact exec` runs
//! for it, to read, keep or edit.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;

/// Print a Maestro flow as the Rhai script codeact runs for it.
///
///   codeact convert flows/login.yaml                 # the script, on stdout
///   codeact convert flows/login.yaml > login.rhai    # keep it as a script of your own
///   codeact exec flows/login.yaml -d sim             # or run the flow as it is
///
/// Supported: launchApp (appId, clearState, stopApp), tapOn, longPressOn, inputText,
/// eraseText, assertVisible, assertNotVisible, extendedWaitUntil, scroll,
/// scrollUntilVisible, swipe, back, pressKey, hideKeyboard, openLink,
/// waitForAnimationToEnd, takeScreenshot, stopApp, killApp, clearState,
/// copyTextFrom, pasteText, runFlow (files, inline commands, when: visible /
/// notVisible / platform), repeat (times, while), env: and ${NAME} (or --var
/// NAME=VALUE), onFlowStart and onFlowComplete. Taps and assertions wait up to 17 s
/// for their element, as Maestro's do. Anything else is an error naming the
/// command and its line: nothing is skipped.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct ConvertArgs {
    /// The flow (.yaml or .yml).
    flow: PathBuf,
}

impl ConvertArgs {
    pub fn print(self) -> anyhow::Result<ExitCode> {
        let converted = codeact::maestro::convert_file(&self.flow)
            .with_context(|| format!("cannot convert the Maestro flow {}", self.flow.display()))?;
        codeact::out!("{}", codeact::terminal::clean(&converted.script));
        Ok(ExitCode::SUCCESS)
    }
}
