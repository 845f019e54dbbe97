//! A device's own words as an error quotes them: clipped, so a device answering
//! megabytes where a line is expected cannot flood a message. Not the errors
//! themselves (`contract.rs`, each backend's `error.rs`).

/// What a device said, as an error shows it: cut at 2 KiB (a device can answer
/// with megabytes where a line is expected), saying how big the whole was.
pub(crate) fn shown(said: &str) -> std::borrow::Cow<'_, str> {
    codeact_base::clip::clip(said, SAID_BYTES)
}

/// The most of a device's own words an error quotes.
const SAID_BYTES: usize = 2048;
