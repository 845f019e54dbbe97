//! What only ADB can get wrong, each with Android's fix: no adb server, a phone not
//! authorized or offline, an address that does not answer, a transport failure,
//! an on-device agent that failed or is missing, and text `input text` cannot carry
//! without the ADBKeyboard input method. Not the
//! failures every platform shares (`DeviceError`).

use super::agent::AgentError;
use super::transport::TransportError;
use crate::device::said::shown;

/// Why an operation over ADB failed, in Android's words.
#[derive(Debug, thiserror::Error)]
pub enum AdbError {
    #[error(
        "{device}: cannot type {:?}: text that `input text` cannot carry (non-ASCII, `%s`, control characters) needs the ADBKeyboard input method, which is {} (current: {current:?}); install ADBKeyboard (package com.android.adbkeyboard) if needed, then run `adb shell ime enable {ADB_KEYBOARD}` and `adb shell ime set {ADB_KEYBOARD}`",
        shown(.text),
        if *.installed { "installed but not the current input method" } else { "not installed" }
    )]
    NeedsAdbKeyboard { device: String, text: String, installed: bool, current: String },
    /// The transport failed in a way that is neither a timeout nor a lost connection.
    #[error("{device}: {op} failed")]
    Transport {
        device: String,
        op: String,
        #[source]
        source: TransportError,
    },
    #[error("cannot reach {addr}; is the device listening (adb tcpip, or `codeact sim`)?")]
    Unreachable {
        addr: String,
        #[source]
        source: TransportError,
    },
    #[error(
        "no adb server answers at {server}; start one with `adb start-server`, or try the built-in virtual device with `--device sim`"
    )]
    NoServer {
        server: String,
        #[source]
        source: TransportError,
    },
    /// An on-device agent failed (the source says how).
    #[error("{device}: {op} through {agent} failed")]
    Agent {
        device: String,
        agent: &'static str,
        op: String,
        #[source]
        source: AgentError,
    },
    #[error("{device}: --observe {asked} needs {agent}, but {}; {fix}, or use --observe auto (or dump)", shown(.why))]
    AgentMissing { device: String, asked: &'static str, agent: &'static str, why: String, fix: &'static str },
    #[error("{serial} is {state}; {}", not_ready_hint(.state))]
    NotReady { serial: String, state: String },
}

/// The input method that types any Unicode text over ADB.
pub const ADB_KEYBOARD: &str = "com.android.adbkeyboard/.AdbIME";

fn not_ready_hint(state: &str) -> &'static str {
    match state {
        "unauthorized" => "accept the USB debugging prompt on the phone",
        "offline" => "reconnect it (`adb reconnect`) or restart adb (`adb kill-server`)",
        _ => "wait until `adb devices` shows it as `device`",
    }
}
