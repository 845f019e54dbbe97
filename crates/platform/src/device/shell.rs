//! What every platform's shell shares: a command's output and exit code
//! ([`ShellOutput`]), and quoting a word for a POSIX device shell (Android's toybox
//! `sh`, HarmonyOS's, the virtual phone's). Not how a command reaches a device (each
//! backend's transport).

/// What a command printed and how it exited (`None` when the device cannot say).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellOutput {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub code: Option<i32>,
}

impl ShellOutput {
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// Single-quotes `s` for the device's shell.
pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_quoted_word_keeps_its_quotes() {
        assert_eq!(super::quote("it's a 'b'"), r"'it'\''s a '\''b'\'''");
    }
}
