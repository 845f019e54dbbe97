//! Why an on-device agent's HTTP reply could not be read ([`HttpError`]), and the
//! largest reply taken. Not reading it (`adb/agents/http.rs`).

/// The largest reply taken (a big screen's hierarchy is a few MiB).
pub(crate) const MOST_REPLY: usize = 64 * 1024 * 1024;

/// Why a reply could not be read.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("it answered something that is not HTTP ({0:?})")]
    NotHttp(String),
    #[error("its reply is larger than {MOST_REPLY} bytes")]
    TooLarge,
    #[error("its reply was cut off after {0} bytes")]
    CutShort(usize),
    #[error("its chunked reply is malformed")]
    BadChunk,
}
