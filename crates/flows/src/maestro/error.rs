//! Why a flow cannot become a script ([`FlowError`]: the command or key and its
//! line), and the check that a flow's name can be a script's variable. Only the
//! errors; reading and translating flows is `mod.rs`, `yaml.rs` and `commands.rs`.

use std::path::PathBuf;

/// Why a flow cannot become a script.
#[derive(Debug, thiserror::Error)]
pub enum FlowError {
    #[error("not a flow codeact can read: {0}")]
    Yaml(String),
    #[error("the flow has no commands (they follow the config after a line ---)")]
    NoCommands,
    #[error("line {line}: {what} is not supported: {why}")]
    Unsupported { line: usize, what: String, why: &'static str },
    #[error(
        "line {line}: `{command}` is not a Maestro command codeact runs (it runs launchApp, tapOn, longPressOn, inputText, eraseText, assertVisible, assertNotVisible, extendedWaitUntil, scroll, scrollUntilVisible, swipe, back, pressKey, hideKeyboard, openLink, waitForAnimationToEnd, takeScreenshot, stopApp, killApp, clearState, copyTextFrom, pasteText, runFlow, repeat)"
    )]
    UnknownCommand { line: usize, command: String },
    #[error(
        "line {line}: runFlow {name:?} is outside the flow's folder and the working directory: give a path below either"
    )]
    Outside { line: usize, name: String },
    #[error("line {line}: runFlow {name:?}: cannot read {}", .path.display())]
    Read {
        line: usize,
        name: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read the flow {}", .path.display())]
    ReadFlow {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("line {line}: {name:?} is not a variable name codeact can give a script (ASCII letters, digits and _)")]
    BadName { line: usize, name: String },
    #[error(
        "line {line}: the flow makes more than {limit} {what} of script (flows inlined many times over?): split it into several flows"
    )]
    TooBig { line: usize, what: &'static str, limit: usize },
    #[error("in {}, which line {line} runs: {inner}", .path.display())]
    InFlow { path: PathBuf, line: usize, inner: Box<FlowError> },
}

/// `name` as a Rhai variable, or why it cannot be one.
pub(crate) fn variable(name: &str, line: usize) -> Result<String, FlowError> {
    match codeact_engine::sandbox::is_variable_name(name) {
        true => Ok(name.to_string()),
        false => Err(FlowError::BadName { line, name: name.to_string() }),
    }
}
