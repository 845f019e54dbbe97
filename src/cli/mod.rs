//! The subcommands, one file each: each builds its options from the flags and calls
//! the library, then says how it went as an exit code. Nothing here decides what a
//! run does.

mod apk;
mod args;
mod assets;
mod convert;
mod devices;
mod eval;
mod eval_device;
mod exec;
mod exec_devices;
mod exec_output;
mod exit;
mod explore;
mod heal;
mod interrupt;
#[cfg(feature = "mcp")]
mod mcp;
mod memory;
mod observe;
mod person;
mod personas;
mod repl;
mod run;
mod screenshot;
#[cfg(feature = "webdriver")]
mod serve;
#[cfg(feature = "sim")]
mod sim;
#[cfg(feature = "studio")]
mod studio;
mod tools;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use exit::EXIT_ERROR;

#[derive(Parser)]
#[command(name = "codeact", version, about = "An LLM drives an Android device by writing small sandboxed Rhai scripts")]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    #[cfg(feature = "sim")]
    Sim(sim::SimArgs),
    #[cfg(not(feature = "sim"))]
    Sim(NoSimArgs),
    Devices(devices::DevicesArgs),
    Observe(observe::ObserveArgs),
    Exec(exec::ExecArgs),
    Convert(convert::ConvertArgs),
    Eval(Box<eval::EvalArgs>),
    Run(run::RunArgs),
    Repl(repl::ReplArgs),
    Tools(tools::ToolsArgs),
    Personas(personas::PersonasArgs),
    Memory(memory::MemoryArgs),
    Screenshot(screenshot::ScreenshotArgs),
    Assets(assets::AssetsArgs),
    Apk(apk::ApkArgs),
    Explore(explore::ExploreArgs),
    #[cfg(feature = "mcp")]
    Mcp(mcp::McpArgs),
    #[cfg(feature = "studio")]
    Studio(studio::StudioArgs),
    #[cfg(feature = "webdriver")]
    Serve(serve::ServeArgs),
}

/// Serve a virtual Android phone (not in this build: it was made without the `sim`
/// feature).
#[cfg(not(feature = "sim"))]
#[derive(clap::Args, Debug)]
struct NoSimArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    ignored: Vec<String>,
}

impl Cli {
    /// Runs the subcommand; an `Err` is an error before or during the run (exit 2).
    pub fn dispatch(self) -> anyhow::Result<ExitCode> {
        match self.command {
            #[cfg(feature = "sim")]
            Command::Sim(a) => a.serve(),
            #[cfg(not(feature = "sim"))]
            Command::Sim(_) => anyhow::bail!(
                "this codeact was built without the virtual device; build it with the default features \
                 (`cargo build`, the `sim` feature) to serve one"
            ),
            Command::Devices(a) => a.list(),
            Command::Observe(a) => a.observe(),
            Command::Exec(a) => a.exec(),
            Command::Convert(a) => a.print(),
            Command::Eval(a) => a.evaluate(),
            Command::Run(a) => a.run_agent(),
            Command::Repl(a) => a.repl(),
            Command::Tools(a) => a.print(),
            Command::Personas(a) => a.print(),
            Command::Memory(a) => a.manage(),
            Command::Screenshot(a) => a.save(),
            Command::Assets(a) => a.manage(),
            Command::Apk(a) => a.inspect(),
            Command::Explore(a) => a.explore(),
            #[cfg(feature = "mcp")]
            Command::Mcp(a) => a.serve(),
            #[cfg(feature = "studio")]
            Command::Studio(a) => a.serve(),
            #[cfg(feature = "webdriver")]
            Command::Serve(a) => a.serve(),
        }
    }
}
