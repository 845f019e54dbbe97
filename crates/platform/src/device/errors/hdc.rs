//! What only hdc can get wrong, each with HarmonyOS's fix: no hdc server, a bad
//! port, a phone gone quiet, a reply cut off or too large, a refusal. Not the
//! failures every platform shares (`DeviceError`).

/// Why an hdc exchange failed; each says what to do.
#[derive(Debug, thiserror::Error)]
pub enum HdcError {
    #[error(
        "no hdc server answers at {server}; start one (`hdc start`), point OHOS_HDC_SERVER_PORT at it, or try the virtual phone with --device sim:harmony"
    )]
    Unreachable {
        server: String,
        #[source]
        source: std::io::Error,
    },
    #[error("OHOS_HDC_SERVER_PORT={0:?} is not a port; use a number from 1 to 65535, or unset it for 8710")]
    BadPort(String),
    #[error("no answer within {secs:.1} s; the phone may be busy or gone (see `hdc list targets`)")]
    Timeout { secs: f64 },
    #[error(
        "the hdc server closed the connection in the middle of a reply; check the phone (`hdc list targets`), then retry"
    )]
    Closed,
    #[error("the connection failed")]
    Io(#[source] std::io::Error),
    #[error("this is not an hdc server ({what})")]
    NotHdc { what: String },
    #[error("the reply passed {limit} bytes; ask for less (a smaller file, a narrower command)")]
    TooLarge { limit: usize },
    #[error("the hdc server refused: {}", codeact_base::clip::clip(.message, 2048))]
    Refused { message: String },
    #[error("the connect key {0:?} is longer than hdc's 31 bytes; use a key `hdc list targets` prints")]
    KeyTooLong(String),
}
