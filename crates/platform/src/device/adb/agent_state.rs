//! What the choice of an on-device agent holds, apart from the code that talks to
//! one: `--observe` (`ObserveWith`), where the device's agent stands
//! (`AgentState`, with the handles of a running uiautomator2 server or Portal),
//! their names in messages. Data only,
//! so that the device can hold it without the agents' code depending back on it.

use std::str::FromStr;

use crate::device::adb::transport::HeldStream;

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
pub(in crate::device::adb) enum AgentState {
    /// Not looked for yet.
    #[default]
    Unprobed,
    /// None is installed (or `--observe dump`): dumps and `input` commands.
    Absent,
    /// uiautomator2's server answers.
    U2(U2Server),
    /// The Portal answers.
    Portal(PortalServer),
    /// It failed once: dumps and `input` from then on, and each look says why.
    SetAside { agent: &'static str, why: String },
}

/// What a keyboard call through an agent does.
#[derive(Clone, Copy)]
pub(in crate::device::adb) enum KeyboardAct<'a> {
    Type(&'a str),
    Clear,
}

/// uiautomator2's server in messages.
pub(in crate::device::adb) const U2_NAME: &str = "uiautomator2's server";
/// The Portal in messages.
pub(in crate::device::adb) const PORTAL_NAME: &str = "the mobilerun Portal";

/// A server that answers, and the stream that keeps it alive when we started it.
pub(in crate::device::adb) struct U2Server {
    /// Held while we run the server; `None` when it was already running.
    pub(in crate::device::adb) _running: Option<HeldStream>,
    pub(in crate::device::adb) next_id: u64,
}

/// A Portal that answers.
pub(in crate::device::adb) struct PortalServer {
    /// Its bearer token (a secret: never in a message).
    pub(in crate::device::adb) token: Option<String>,
    /// Whether it takes `/action/*` gestures (false once it said it does not).
    pub(in crate::device::adb) gestures: bool,
    /// Whether it takes screenshots (false once one failed: screencap then).
    pub(in crate::device::adb) screenshots: bool,
}

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
