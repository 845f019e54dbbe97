//! Why an `appium:` device cannot be named as given: kept apart from reading the
//! target (`target.rs`) so the device's error can wrap it without reaching the W3C
//! client that reading uses.

/// Why an `appium:` device cannot be named so.
#[derive(Debug, thiserror::Error)]
pub enum AppiumTargetError {
    #[error(
        "appium:{shown} is not an http(s) URL; write appium:http://127.0.0.1:4723 (with the base path, e.g. /wd/hub, if the server has one)"
    )]
    NotUrl { shown: String },
    #[error("appium:{shown}: #{fragment} is not #session=ID (the id of a session an Appium test created)")]
    Fragment { shown: String, fragment: String },
    #[error("CODEACT_APPIUM_CAPS is neither a JSON object nor a file holding one: {why}")]
    Caps { why: String },
}
