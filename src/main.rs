//! The `codeact` command line: turns subcommands into library calls, nothing more.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};

use codeact::sim::{self, SimConfig};

#[derive(Parser)]
#[command(name = "codeact", version, about = "An LLM drives an Android device by writing small sandboxed Rhai scripts")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve a virtual Android 14 phone over the ADB protocol on 127.0.0.1.
    ///
    /// The stock adb drives it like a phone:
    ///
    ///   adb connect 127.0.0.1:15037
    ///   adb -s 127.0.0.1:15037 shell uiautomator dump /dev/tty
    ///   adb -s 127.0.0.1:15037 shell input tap 540 1200
    ///   adb -s 127.0.0.1:15037 exec-out screencap -p > screen.png
    ///   adb -s 127.0.0.1:15037 shell simctl state
    ///
    /// Apps (launcher, Settings, Contacts, Messages, Notes, Clock) are data files in
    /// sim/; `simctl help` lists the test hooks (state, reset, faults, slow UI).
    Sim {
        /// TCP port on 127.0.0.1 (0 picks a free one). Keep it outside 5555–5585,
        /// which the adb server claims for emulators.
        #[arg(long, default_value_t = sim::DEFAULT_PORT)]
        port: u16,
        /// The serial number the device reports (`getprop ro.serialno`).
        #[arg(long, default_value = "codeact-sim")]
        serial: String,
        /// Screen size in pixels, WIDTHxHEIGHT.
        #[arg(long, default_value = "1080x2400", value_parser = parse_size)]
        size: (u32, u32),
        /// Screen density in dpi (`wm density`).
        #[arg(long, default_value_t = 420, value_parser = clap::value_parser!(u32).range(80..=1280))]
        density: u32,
        /// Load the world from this folder (world.toml + apps/*.toml) instead of the
        /// bundled one; copy sim/ from the repository to start.
        #[arg(long)]
        world: Option<PathBuf>,
    },
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("{s:?} is not WIDTHxHEIGHT; use e.g. 1080x2400");
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let (w, h) = (w.trim().parse::<u32>().map_err(|_| bad())?, h.trim().parse::<u32>().map_err(|_| bad())?);
    if !(100..=8192).contains(&w) || !(100..=8192).contains(&h) {
        return Err(format!("{s}: each side must be between 100 and 8192 pixels"));
    }
    Ok((w, h))
}

fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("CODEACT_LOG").unwrap_or_else(|_| "warn".into()))
        .with_writer(std::io::stderr)
        .init();
    if let Err(e) = run(Cli::parse()) {
        eprintln!("codeact: {e:#}");
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Sim { port, serial, size, density, world } => {
            if (5555..=5585).contains(&port) {
                bail!(
                    "port {port} is in 5555–5585, which the adb server probes for emulators; pick another, e.g. --port {}",
                    sim::DEFAULT_PORT
                );
            }
            let config = SimConfig { serial, width: size.0, height: size.1, density, ..SimConfig::default() };
            let device = sim::build_device(config, world.as_deref())?;
            let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
            runtime.block_on(async {
                let listener = sim::bind(SocketAddr::from(([127, 0, 0, 1], port))).await.with_context(|| {
                    format!("is another `codeact sim` running? try --port {} or --port 0", port.wrapping_add(2))
                })?;
                let addr = listener.local_addr()?;
                // A closed stdout (a parent that stopped reading) must not stop the device.
                let mut out = std::io::stdout();
                let _ = writeln!(
                    out,
                    "Virtual Android device listening on {addr} ({}x{} @ {density}dpi)\n  adb connect {addr}\n  \
                     adb -s {addr} shell simctl state\nCtrl-C to stop.",
                    size.0, size.1
                );
                let _ = out.flush();
                tokio::select! {
                    _ = sim::serve(listener, device) => {}
                    _ = tokio::signal::ctrl_c() => {
                        let _ = writeln!(out, "stopped");
                    }
                }
                Ok(())
            })
        }
    }
}
