//! What a W3C WebDriver server (WebDriverAgent, an Appium server, a Selenium Grid,
//! a cloud's hub) can get wrong, each with its fix: an error it answered with (its
//! W3C code and message, and what that code asks of the user), no answer at all, or
//! a session it no longer has. Not the failures every platform shares
//! (`DeviceError`).

use crate::device::said::shown;

/// Why an operation through a WebDriver server failed.
#[derive(Debug, thiserror::Error)]
pub enum W3cError {
    /// The server answered with an error (its W3C code and message).
    #[error("{device}: {op} failed: {server} says {}: {}{}", shown(.error), shown(.message), fix_for(.error))]
    Says { device: String, op: String, server: &'static str, error: String, message: String },
    #[error("{device}: {op}: {server} does not answer; {fix}")]
    Unreachable {
        device: String,
        op: String,
        server: &'static str,
        fix: &'static str,
        #[source]
        source: reqwest::Error,
    },
    /// The server has no `/session` route where codeact asked: the base path is wrong.
    #[error(
        "{device}: {server} has no /session at this URL; check the base path (Appium 2 and 3 serve at /, Appium 1 and some grids at /wd/hub)"
    )]
    NoSessionRoute { device: String, server: &'static str },
    /// The session codeact drove is gone (ended by its owner, timed out on the
    /// server, or the server restarted).
    #[error(
        "{device}: the session {session} is gone from {server} ({}); {}",
        shown(.message),
        if *.attached { "start the test that owns it again, or let codeact create one (leave #session= out)" } else { "run again: codeact creates a new one" }
    )]
    SessionGone { device: String, server: &'static str, session: String, message: String, attached: bool },
}

/// What a W3C error code asks of the user, said after the server's message.
fn fix_for(code: &str) -> &'static str {
    match code {
        "session not created" => {
            "; check the capabilities (--caps, [device.appium] in codeact.toml): platformName, appium:automationName, appium:udid, appium:app or appium:appPackage"
        }
        "unknown command" | "unknown method" | "unsupported operation" => {
            "; this server does not offer it (another driver or a newer server may)"
        }
        "invalid argument" => "; codeact sent an argument this server reads otherwise: please report it",
        "timeout" | "script timeout" => "; the server took too long: try --timeout with more seconds",
        _ => "",
    }
}
