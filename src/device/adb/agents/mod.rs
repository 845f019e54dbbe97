//! On-device agents an Android phone may already run, and the choice between them
//! and `uiautomator dump` (`--observe auto|dump|u2`). An agent is a server on a
//! device port, reached only through the ADB transport (a `tcp:PORT` stream per
//! request, `http.rs`); it returns the UI tree in tens of milliseconds where a dump
//! takes seconds, and taps without starting a JVM. uiautomator2's server is
//! `u2.rs`'s. An agent is started when it is installed and never installed here; a
//! tree it returns that looks stale or empty is replaced by a dump, and the
//! observation says so. Not the ADB client (`transport/`).

mod choose;
pub mod http;
mod portal;
mod portal_tree;
mod u2;

use std::str::FromStr;

use super::transport::TransportError;

/// How an Android phone is observed (and, with an agent, tapped).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum ObserveWith {
    /// The mobilerun Portal when it answers, else uiautomator2's server when the
    /// phone has it (started if installed), else `uiautomator dump`.
    #[default]
    Auto,
    /// `uiautomator dump` and `input` commands, always.
    Dump,
    /// uiautomator2's server; an error when it is not installed.
    U2,
    /// The mobilerun Portal; an error when its accessibility service is not on.
    Portal,
}

impl ObserveWith {
    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Dump => "dump",
            Self::U2 => "u2",
            Self::Portal => "portal",
        }
    }
}

impl FromStr for ObserveWith {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Self::Auto),
            "dump" => Ok(Self::Dump),
            "u2" | "uiautomator2" => Ok(Self::U2),
            "portal" => Ok(Self::Portal),
            other => Err(format!("unknown observer {other:?}: use auto, dump, u2 or portal")),
        }
    }
}

/// Where the device's agent stands.
#[derive(Default)]
pub(super) enum AgentState {
    /// Not looked for yet.
    #[default]
    Unprobed,
    /// None is installed (or `--observe dump`): dumps and `input` commands.
    Absent,
    /// uiautomator2's server answers.
    U2(u2::U2Server),
    /// The Portal answers.
    Portal(portal::PortalServer),
    /// It failed once: dumps and `input` from then on, and each look says why.
    SetAside { agent: &'static str, why: String },
}

/// Why an exchange with an agent failed. The caller names the device, the agent
/// and the operation.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("nothing listens on device port {port}")]
    NotListening { port: u16 },
    #[error("the ADB stream to it failed")]
    Transport(#[source] TransportError),
    #[error("its reply could not be read")]
    Http(#[from] http::HttpError),
    #[error("it answered HTTP {status}: {body}")]
    Status { status: u16, body: String },
    #[error("its reply is not the JSON-RPC it should be ({0})")]
    NotJsonRpc(String),
    #[error("it reported error {code}: {message}")]
    Rpc { code: i64, message: String },
    #[error(
        "it answered 401 Unauthorized: the token its content provider gave (content://com.droidrun.portal/auth_token) is missing or no longer valid"
    )]
    Unauthorized,
    #[error("it quit while starting: {output}")]
    Quit { output: String },
    #[error("it did not answer within {secs:.1} s of being started; its output: {output}")]
    NotReady { secs: f64, output: String },
}

pub(super) use u2::{U2_NAME, U2Server};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observer_names_round_trip() {
        for with in [ObserveWith::Auto, ObserveWith::Dump, ObserveWith::U2, ObserveWith::Portal] {
            assert_eq!(with.name().parse::<ObserveWith>(), Ok(with));
        }
        assert!("appium".parse::<ObserveWith>().unwrap_err().contains("auto, dump, u2 or portal"));
    }
}
