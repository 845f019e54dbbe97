//! Why a command over the ADB transport could not be run ([`TransportError`]); the
//! caller adds which device and operation. Not the transport (`adb/transport/`).

use std::time::Duration;

use adb_wire::shell_v2;

/// Refuse replies larger than this (a screenshot is ~10 MB raw at most as PNG).
pub(crate) const MAX_OUTPUT: usize = 256 * 1024 * 1024;

/// Why a command could not be run. The caller adds which device and operation.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error("cannot connect to {addr}")]
    Connect {
        addr: String,
        #[source]
        source: std::io::Error,
    },
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    #[error("the connection was closed")]
    Disconnected,
    #[error(
        "the device asks for ADB authorization; connect it through the adb server (`adb connect HOST:PORT`, accept the prompt on the phone) and use its serial"
    )]
    AuthRequired,
    #[error(
        "the device uses TLS (wireless debugging); pair and connect it with `adb pair` / `adb connect`, then use its serial"
    )]
    TlsRequired,
    #[error("the device refused the service for `{0}...`")]
    Refused(String),
    #[error("the command line is {len} bytes, above the {max}-byte limit; send less at once")]
    TooLong { len: usize, max: usize },
    /// The adb server's own words for why it refused.
    #[error("the adb server refused: {0}")]
    ServerFailed(String),
    #[error("the device sent a bad message header")]
    BadHeader(#[from] adb_wire::message::HeaderError),
    #[error("the device sent a {len}-byte message, above the negotiated maximum")]
    Oversized { len: usize },
    #[error("a shell packet is cut short")]
    CutShort(#[from] shell_v2::CutShort),
    #[error("the adb server answered {0:?} instead of OKAY or FAIL")]
    BadServerStatus(String),
    #[error("the adb server sent a bad length")]
    BadServerLength,
    #[error("the reply exceeds {MAX_OUTPUT} bytes")]
    TooLarge,
    /// `sync:` RECV refused, in the device's words (`No such file or directory`…).
    #[error("the device cannot send {path}: {said}")]
    PullFailed { path: String, said: String },
    #[error("the file transfer broke the sync protocol")]
    Sync(#[from] adb_wire::sync::SyncError),
    #[error("the file is larger than {limit} bytes")]
    FileTooLarge { limit: u64 },
    #[error("cannot write the pulled file here")]
    WriteLocal(#[source] std::io::Error),
}
