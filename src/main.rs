//! The `codeact` command line: set up logging, parse the arguments, hand them to the
//! subcommand's file in `cli/`, and turn the result into an exit code. An error is
//! printed as one line with its causes (each says what to do) and exits 2.

#![deny(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Re-executed as a session's sandbox worker: serve the engine and nothing else
    // (no logging, no arguments, no environment).
    if let Some(code) = codeact::isolation::serve_if_worker() {
        std::process::exit(code);
    }
    tracing_subscriber::fmt()
        // rmcp warns of every request it answers with an error: the client has the
        // error already, and `codeact mcp`'s stderr is a log, not a conversation.
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("CODEACT_LOG").unwrap_or_else(|_| "warn,rmcp=error".into()),
        )
        // Every log line, a dependency's too, has secrets blotted out.
        .with_writer(codeact::secrets::RedactingStderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    match cli::Cli::parse().dispatch() {
        Ok(code) => code,
        Err(e) => {
            // `{:#}` prints each cause once after the error: library errors never
            // repeat their source in their own message.
            codeact::errln!("codeact: {}", codeact::terminal::one_line(&format!("{e:#}")));
            ExitCode::from(cli::EXIT_ERROR)
        }
    }
}
