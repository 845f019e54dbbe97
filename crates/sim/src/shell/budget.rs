//! The limits one `run_script` shares with every nested shell: output bytes and commands
//! still allowed, and why the script was stopped once one ran out. Not the limits' sizes
//! (`super::OUTPUT_LIMIT`, `super::COMMAND_LIMIT`) nor the deadline (`super::ShellEnv`).

use std::cell::Cell;

/// Per-`run_script` limits, shared by every nested shell; once one runs out, nothing more runs.
pub(super) struct Budget {
    /// Output bytes still allowed.
    pub(super) output: Cell<usize>,
    /// Commands still allowed.
    pub(super) commands: Cell<usize>,
    /// Why the script was stopped.
    pub(super) stop: Cell<Option<&'static str>>,
}

pub(super) const TOO_LARGE: &str = "output too large";
pub(super) const TOO_MANY: &str = "too many commands";

impl Budget {
    pub(super) fn new(output: usize, commands: usize) -> Budget {
        Budget { output: Cell::new(output), commands: Cell::new(commands), stop: Cell::new(None) }
    }

    /// Counts `n` output bytes; false (and the script stops) when they do not fit.
    pub(super) fn charge(&self, n: usize) -> bool {
        match self.output.get().checked_sub(n) {
            Some(left) => {
                self.output.set(left);
                true
            }
            None => {
                self.output.set(0);
                self.stop.set(Some(TOO_LARGE));
                false
            }
        }
    }

    pub(super) fn stopped(&self) -> bool {
        self.stop.get().is_some()
    }
}
