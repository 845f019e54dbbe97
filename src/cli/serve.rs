//! `codeact serve --webdriver`: the W3C WebDriver endpoint's flags, the settings
//! its sessions open with, and the URL it prints (once: it holds the token).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use codeact::config::{Flags, Helpers};
use codeact::tools::{Recording, SensitivePolicy};
use codeact::webdriver::WebdriverOptions;

use super::args::{DeviceArgs, LlmArgs, LocatorArgs, SessionArgs, TraceArgs, finish_traces};

/// Serve codeact to Appium's clients: the W3C WebDriver protocol with Appium's
/// extensions on 127.0.0.1, so suites written for Appium drive any phone codeact
/// drives (the virtual one too) and send whole Rhai flows in one request.
///
/// Suites in Java, Python, JavaScript, Ruby or C# run as they are — no emulator
/// with the virtual phone — and a flow runs in codeact's sandbox:
///   driver.execute_driver("tap(#{text: \"Wi-Fi\"}); wait_for(#{id: \"wifi_switch\"}).checked", "rhai")
///
///   codeact serve --webdriver -d sim
///   → server URL http://127.0.0.1:PORT/TOKEN (give it to the client as is)
///
/// Capabilities: platformName (Android, iOS, HarmonyOS: the device's),
/// appium:automationName (any; codeact by default), appium:udid (a serial, hdc:KEY
/// or sim, sim:ios, sim:harmony — else the server's -d), appium:appPackage and
/// appium:appActivity (iOS: appium:bundleId; the app is stopped first unless
/// appium:noReset, its data cleared with appium:fullReset), appium:newCommandTimeout.
/// Each session on sim gets a virtual phone of its own;
/// any other phone is held by one session at a time.
///
/// Locators: id, accessibility id, class name, xpath, -android uiautomator,
/// -custom (a description the vision model locates: --locator-model) and -image
/// (a gallery name or a base64 PNG). Each session is recorded in a run folder
/// under --out, with session.rhai, a script that replays it. Sensitive actions
/// (pay, delete... and [sensitive] rules) are refused unless --answers or
/// --sensitive allow says otherwise; a request sent with X-Appium-Is-Sensitive:
/// true has its values masked in every record.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct ServeArgs {
    /// Serve the W3C WebDriver protocol (Appium's clients). The one protocol
    /// `serve` speaks today; required, so a later one cannot change what this means.
    #[arg(long, required = true)]
    webdriver: bool,
    #[command(flatten)]
    device: DeviceArgs,
    #[command(flatten)]
    session: SessionArgs,
    /// The port on 127.0.0.1 (0: any free one, printed at start).
    #[arg(long, default_value_t = 4723, value_name = "PORT")]
    port: u16,
    /// The most sessions open at once.
    #[arg(long, default_value_t = 4, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    max_sessions: u32,
    /// Seconds a session may sit unused before it is deleted (a client's
    /// appium:newCommandTimeout sets its own, up to an hour).
    #[arg(long, default_value_t = 60, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=3600))]
    idle: u64,
    /// Where each session's run folder is made.
    #[arg(long, default_value = "runs", value_name = "DIR")]
    out: PathBuf,
    /// The model -custom locators ask (with --locator-model; optional).
    #[command(flatten)]
    llm: LlmArgs,
    #[command(flatten)]
    locator: LocatorArgs,
    #[command(flatten)]
    traces: TraceArgs,
}

impl ServeArgs {
    pub fn serve(self) -> anyhow::Result<ExitCode> {
        let defaults = Flags {
            // Nobody answers at this terminal: the client's requests are its intent.
            default_sensitive: Some(SensitivePolicy::Ask),
            default_record: Some(Recording::All),
            ..Flags::default()
        };
        let mut settings = self.session.settings(&self.device, defaults)?;
        settings.helpers =
            Helpers { person: self.session.person(false)?, locator: self.locator.vision(&settings.llm, &self.llm)? };
        let traces = self.traces.start()?;
        let options = WebdriverOptions {
            settings,
            out: self.out.clone(),
            max_sessions: self.max_sessions as usize,
            idle: Duration::from_secs(self.idle),
            traces: traces.clone(),
        };
        let token = codeact::token::new_token().context("no random token could be made")?;
        let runtime = super::interrupt::runtime()?;
        let interrupt = super::interrupt::cancel_on_signal(&runtime, "the WebDriver server");
        let served = codeact::webdriver::serve(options, self.port, token.clone(), interrupt.token.clone(), move |at| {
            codeact::errln!(
                "codeact serve: W3C WebDriver at http://{at}/{token} (give the client this URL as its server; Ctrl-C stops it)"
            );
        });
        let result = runtime.block_on(served).context("codeact serve --webdriver");
        finish_traces(traces.as_deref());
        result?;
        Ok(interrupt.exit_code().map_or(ExitCode::SUCCESS, ExitCode::from))
    }
}
