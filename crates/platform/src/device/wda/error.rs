//! What only WebDriverAgent can get wrong, with iOS's fix: an error it answered
//! with (its W3C code and message), or no answer at all. Not the failures every
//! platform shares (`DeviceError`).

use crate::device::shown;

/// Why an operation through WebDriverAgent failed.
#[derive(Debug, thiserror::Error)]
pub enum WdaError {
    /// WebDriverAgent answered with an error (its W3C code and message).
    #[error("{device}: {op} failed: WebDriverAgent says {}: {}", shown(.error), shown(.message))]
    Says { device: String, op: String, error: String, message: String },
    #[error(
        "{device}: {op}: WebDriverAgent does not answer; is it running and forwarded (iproxy 8100 8100), or try `codeact sim --platform ios`"
    )]
    Unreachable {
        device: String,
        op: String,
        #[source]
        source: reqwest::Error,
    },
}
