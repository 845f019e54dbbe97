//! What a command (or a whole script) produced, [`Output`], and the two shorthands the
//! Android tools (`commands/`) build theirs with: `ok` (text on stdout, exit 0) and
//! `fail` (text on stderr with an exit code). Not what the text says.

/// What a command (or a whole script) produced.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Output {
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: Vec<u8>,
    pub(crate) code: i32,
}

impl Output {
    /// An error result: `msg` plus a newline on stderr.
    pub(crate) fn error(msg: &str, code: i32) -> Output {
        Output { stdout: Vec::new(), stderr: format!("{msg}\n").into_bytes(), code }
    }
}

pub(crate) fn ok(stdout: impl Into<Vec<u8>>) -> Output {
    Output { stdout: stdout.into(), stderr: Vec::new(), code: 0 }
}

pub(crate) fn fail(stderr: &str, code: i32) -> Output {
    Output { stdout: Vec::new(), stderr: stderr.as_bytes().to_vec(), code }
}
