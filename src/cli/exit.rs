//! The exit codes the subcommands end with besides success, as the README states
//! them: every file here says how a run went with these. Not which code a run earns
//! (each subcommand decides).

/// Exit codes, as the README states them.
pub const EXIT_FAILED: u8 = 1;
pub const EXIT_ERROR: u8 = 2;
