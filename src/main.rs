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

/// Which phone to use, for every command that needs one.
#[derive(clap::Args)]
struct DeviceArgs {
    /// `sim` (the built-in virtual device), `HOST:PORT` (direct TCP to an adbd), or a
    /// serial from `codeact devices`. Default: $ANDROID_SERIAL, else the only device
    /// the adb server sees.
    #[arg(long, short = 'd')]
    device: Option<String>,
    /// Seconds any one device operation may take before it fails.
    #[arg(long, default_value_t = 20.0)]
    timeout: f64,
}

impl DeviceArgs {
    fn open(&self) -> Result<codeact::device::AdbDevice> {
        if !(self.timeout > 0.0 && self.timeout <= 3600.0) {
            bail!("--timeout must be between 0 and 3600 seconds");
        }
        let spec = codeact::device::DeviceSpec::parse(self.device.as_deref());
        Ok(codeact::device::open(&spec, std::time::Duration::from_secs_f64(self.timeout))?)
    }
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
    /// List the devices the adb server sees, with state and model.
    Devices {
        /// Seconds to wait for the adb server.
        #[arg(long, default_value_t = 5.0)]
        timeout: f64,
    },
    /// Read the screen once: foreground app, keyboard, and the elements on screen.
    ///
    /// `codeact observe --device sim` shows what the virtual device's home screen holds.
    Observe {
        #[command(flatten)]
        device: DeviceArgs,
        /// Print the whole observation (UI tree included) as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run a Rhai script against a device, with the tool catalog and every sandbox
    /// limit; exit 0 when it ends without error and any complete() was a success.
    ///
    ///   codeact exec scripts/turn_off_wifi.rhai --device sim
    Exec {
        /// The script to run.
        file: PathBuf,
        #[command(flatten)]
        device: DeviceArgs,
        /// A variable the script can read, KEY=VALUE (numbers and true/false are typed).
        #[arg(long = "var", value_name = "KEY=VALUE")]
        vars: Vec<String>,
        /// Only parse the script; touch no device.
        #[arg(long)]
        check: bool,
        /// Restrict the script to a persona's tools and limits (a built-in name or a
        /// .toml file); by default every tool is available.
        #[arg(long)]
        persona: Option<String>,
    },
    /// List the tools scripts can call, with the doc line the LLM reads.
    Tools {
        /// Only the tools this persona allows.
        #[arg(long)]
        persona: Option<String>,
    },
    /// List the built-in personas: their tools and the context they need.
    Personas,
    /// Save a screenshot as PNG.
    Screenshot {
        #[command(flatten)]
        device: DeviceArgs,
        /// Where to write the PNG.
        #[arg(long, short = 'o', default_value = "screenshot.png")]
        out: PathBuf,
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
    use codeact::device::Device as _;
    match cli.command {
        Command::Devices { timeout } => {
            let devices =
                codeact::device::connect::list_devices(std::time::Duration::from_secs_f64(timeout.clamp(0.1, 600.0)))?;
            if devices.is_empty() {
                println!("No devices attached. Connect a phone with USB debugging on, or use `--device sim`.");
            }
            for d in devices {
                let model = if d.model.is_empty() { "-".to_string() } else { d.model };
                println!("{}\t{}\t{}", d.serial, d.state, model);
            }
            Ok(())
        }
        Command::Observe { device, json } => {
            let mut phone = device.open()?;
            let obs = phone.observe()?;
            if json {
                println!("{}", serde_json::to_string_pretty(&obs)?);
                return Ok(());
            }
            println!("device {}; screen {}x{}", phone.name(), obs.screen.0, obs.screen.1);
            print!(
                "{}",
                codeact::ui::render::render(&obs.ui, &obs.phone.package, &obs.phone.activity, obs.phone.keyboard_shown)
            );
            Ok(())
        }
        Command::Tools { persona } => {
            match persona {
                Some(p) => {
                    let p = codeact::persona::Persona::load(&p)?;
                    print!("{}", codeact::tools::describe(&|t| p.allows(t)));
                }
                None => print!("{}", codeact::tools::describe(&|_| true)),
            }
            Ok(())
        }
        Command::Personas => {
            for p in codeact::persona::Persona::built_in() {
                println!(
                    "{}: {}\n  tools:   {}\n  context: {}",
                    p.name,
                    p.description,
                    p.tools.join(", "),
                    p.context.join(", ")
                );
            }
            Ok(())
        }
        Command::Exec { file, device, vars, check, persona } => exec(&file, &device, &vars, check, persona.as_deref()),
        Command::Screenshot { device, out } => {
            let mut phone = device.open()?;
            let png = phone.screenshot()?;
            std::fs::write(&out, &png).with_context(|| format!("cannot write {}", out.display()))?;
            println!("{} ({} bytes) from {}", out.display(), png.len(), phone.name());
            Ok(())
        }
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

fn exec(
    file: &std::path::Path,
    device: &DeviceArgs,
    vars: &[String],
    check: bool,
    persona: Option<&str>,
) -> Result<()> {
    use codeact::sandbox::Sandbox;
    let code = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let persona = persona.map(codeact::persona::Persona::load).transpose()?;
    let limits = persona.as_ref().and_then(|p| p.limits.clone()).unwrap_or_default();
    let mut sandbox = Sandbox::new(limits).map_err(anyhow::Error::msg)?;
    if check {
        return match sandbox.check(&code) {
            Ok(()) => {
                println!("{}: parses", file.display());
                Ok(())
            }
            Err(e) => bail!("{}: {e}", file.display()),
        };
    }
    for var in vars {
        let (key, value) = var.split_once('=').with_context(|| format!("--var {var:?} is not KEY=VALUE"))?;
        let value = match value {
            "true" => rhai::Dynamic::from(true),
            "false" => rhai::Dynamic::from(false),
            v => v
                .parse::<i64>()
                .map(rhai::Dynamic::from)
                .or_else(|_| v.parse::<f64>().map(rhai::Dynamic::from))
                .unwrap_or_else(|_| rhai::Dynamic::from(v.to_string())),
        };
        sandbox.set_var(key, value);
    }
    let phone = device.open()?;
    let ctx = codeact::tools::ToolContext::new(Box::new(phone));
    codeact::tools::install(&mut sandbox, ctx, &|t| persona.as_ref().is_none_or(|p| p.allows(t)));
    let result = sandbox.run(&code);
    print!("{}", result.output);
    for a in &result.actions {
        eprintln!("  {:>8.1} ms  {}({}) -> {}", a.duration_ms, a.tool, a.args.join(", "), a.result);
    }
    if let Some(e) = &result.error {
        bail!("{}: {e}", file.display());
    }
    match &result.completion {
        Some(c) if !c.success => bail!("{}: completed as failed: {}", file.display(), c.reason),
        Some(c) => println!("completed: {}", c.reason),
        None => {}
    }
    Ok(())
}
