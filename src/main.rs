//! The `codeact` command line: turns subcommands into library calls, nothing more.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};

use codeact::config::{FileConfig, Flags, Settings};
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
    /// Seconds any one device operation may take before it fails (default 20).
    #[arg(long)]
    timeout: Option<f64>,
}

impl DeviceArgs {
    fn open(&self) -> Result<codeact::device::AdbDevice> {
        let settings = FileConfig::find(None)?.resolve(&self.flags())?;
        open_device(&settings)
    }

    fn flags(&self) -> Flags {
        Flags { device: self.device.clone(), device_timeout_s: self.timeout, ..Flags::default() }
    }
}

fn open_device(settings: &Settings) -> Result<codeact::device::AdbDevice> {
    let spec = codeact::device::DeviceSpec::parse(settings.device.as_deref());
    Ok(codeact::device::open(&spec, settings.device_timeout)?)
}

/// How a scripting session is set up: persona, limits, tool behaviour.
#[derive(clap::Args)]
struct SessionArgs {
    /// Only this persona's tools (and its limits): a built-in name (`codeact personas`)
    /// or a .toml file. Default: every tool (for `codeact run`: the default persona).
    #[arg(long)]
    persona: Option<String>,
    /// Read settings from this file instead of $CODEACT_CONFIG or ./codeact.toml.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Override a sandbox limit, e.g. --limit timeout_ms=5000 (repeatable). Limits:
    /// max_operations, timeout_ms, max_call_levels, max_expr_depth, max_string_size,
    /// max_array_size, max_map_size, max_variables, max_functions, max_output.
    #[arg(long = "limit", value_name = "KEY=VALUE")]
    limits: Vec<String>,
    /// After each action wait up to this long for the screen to settle (two equal
    /// observations in a row); 0 turns it off. Default 3000.
    #[arg(long, value_name = "MS")]
    settle_ms: Option<u64>,
    /// Read integer coordinates as 0..N of the screen (1000 for vision models that
    /// answer in per-mille) instead of pixels.
    #[arg(long, value_name = "N")]
    coordinate_scale: Option<u32>,
    /// What each action keeps: none, ui (the UI dump) or all (dump and screenshot).
    /// Default: all with --trajectory, otherwise none.
    #[arg(long, value_name = "WHAT")]
    record: Option<codeact::tools::Record>,
}

impl SessionArgs {
    fn settings(&self, device: &DeviceArgs, recording: bool) -> Result<Settings> {
        self.settings_with(device, recording, None)
    }

    /// Like `settings`, with a persona to use when no flag, variable or file names one.
    fn settings_with(&self, device: &DeviceArgs, recording: bool, default_persona: Option<&str>) -> Result<Settings> {
        let file = FileConfig::find(self.config.as_deref())?;
        let mut flags = Flags {
            persona: self.persona.clone(),
            default_persona: default_persona.map(str::to_string),
            limits: self.limits.clone(),
            settle_ms: self.settle_ms,
            coordinate_scale: self.coordinate_scale,
            record: self.record,
            ..device.flags()
        };
        if recording && flags.record.is_none() && file.tools.record.is_none() {
            flags.record = Some(codeact::tools::Record::All);
        }
        Ok(file.resolve(&flags)?)
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
    #[command(verbatim_doc_comment)]
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
    /// Run Rhai scripts against a device, with the tool catalog and every sandbox
    /// limit; exit 0 when each ends without error and any complete() was a success.
    ///
    ///   codeact exec scripts/turn_off_wifi.rhai --device sim
    ///   codeact exec scripts/*.rhai -d sim --junit report.xml --trajectory runs/ci
    ///   codeact exec my.rhai --var name=张三 --var count=3 --limit timeout_ms=60000
    ///
    /// Each script gets a fresh session (variables, functions, memory) on the same
    /// device. Settings also come from codeact.toml (see `--config`).
    #[command(verbatim_doc_comment)]
    Exec {
        /// The scripts to run, in order.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        device: DeviceArgs,
        #[command(flatten)]
        session: SessionArgs,
        /// A variable the scripts can read, KEY=VALUE (numbers and true/false are typed).
        #[arg(long = "var", value_name = "KEY=VALUE")]
        vars: Vec<String>,
        /// Only parse the scripts; touch no device.
        #[arg(long)]
        check: bool,
        /// Write a JUnit XML report here: one test case per script; assertions and
        /// complete(false, ..) are failures, anything else that stops a script an error.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        /// Write each script's run here as it goes: events.jsonl (every action, with
        /// timing), screenshots/ and ui/ after each action, script.rhai, summary.json.
        /// With several scripts, one sub-directory per script.
        #[arg(long, value_name = "DIR")]
        trajectory: Option<PathBuf>,
    },
    /// Let an LLM do a task on a device: each step it reads the screen, writes a Rhai
    /// snippet, the snippet runs in the sandbox, and the result goes back, until the
    /// snippet calls complete().
    ///
    ///   export OPENAI_API_KEY=sk-...
    ///   codeact run --device sim "Turn off Wi-Fi"
    ///   codeact run -d sim --base-url http://localhost:11434/v1 --model qwen2.5:7b --vision off "Send 你好 to 张三"
    ///
    /// Every run gets its own folder under --out, written as the run goes:
    /// events.jsonl, screenshots/ and ui/, summary.json, and script.rhai plus
    /// script.selectors.rhai, which `codeact exec` replays without the LLM. Exit code
    /// 0 only when the task completed successfully.
    #[command(verbatim_doc_comment)]
    Run {
        /// What to do, in plain words.
        task: String,
        #[command(flatten)]
        device: DeviceArgs,
        #[command(flatten)]
        session: SessionArgs,
        /// An OpenAI-compatible endpoint (default $OPENAI_BASE_URL, else OpenAI's).
        #[arg(long, value_name = "URL")]
        base_url: Option<String>,
        /// The model (default $CODEACT_MODEL; gpt-4o-mini on OpenAI).
        #[arg(long)]
        model: Option<String>,
        /// The environment variable holding the API key (default OPENAI_API_KEY; none is
        /// needed for local servers).
        #[arg(long, value_name = "VAR")]
        api_key_env: Option<String>,
        #[arg(long)]
        temperature: Option<f32>,
        /// Show the model a screenshot each step: auto (when the persona asks for
        /// screenshots), on, or off.
        #[arg(long, default_value = "auto", value_parser = ["auto", "on", "off"])]
        vision: String,
        /// Stop after this many steps.
        #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u32).range(1..=500))]
        max_steps: u32,
        /// Where run folders are made.
        #[arg(long, default_value = "runs", value_name = "DIR")]
        out: PathBuf,
        /// What each run keeps: the screenshot and UI dump of every step, of every
        /// action, or none (events, summary and scripts are always written).
        #[arg(long, default_value = "step", value_name = "WHEN")]
        save_trajectory: codeact::agent::SaveMode,
        /// Print the summary as JSON (progress still goes to stderr).
        #[arg(long)]
        json: bool,
    },
    /// An interactive Rhai prompt on a device: variables and functions persist,
    /// ui_state is always fresh, Tab completes, :help lists the meta-commands.
    ///
    ///   codeact repl --device sim
    ///   rhai> tap("Settings")
    ///   rhai> :state
    #[command(verbatim_doc_comment)]
    Repl {
        #[command(flatten)]
        device: DeviceArgs,
        #[command(flatten)]
        session: SessionArgs,
        /// Keep history in this file (default $CODEACT_HISTORY, else
        /// ~/.local/state/codeact/history).
        #[arg(long, value_name = "FILE")]
        history: Option<PathBuf>,
        /// Keep no history.
        #[arg(long, conflicts_with = "history")]
        no_history: bool,
    },
    /// List the tools scripts can call, with the doc line the LLM reads.
    Tools {
        /// Only the tools this persona allows.
        #[arg(long)]
        persona: Option<String>,
        /// Print a Markdown table (as in the README) instead of a list.
        #[arg(long)]
        markdown: bool,
    },
    /// List the built-in personas: their tools and the context they need.
    Personas {
        /// Print the whole system prompt `codeact run` sends with this persona (a
        /// built-in name or a .toml file).
        #[arg(long, value_name = "PERSONA")]
        prompt: Option<String>,
    },
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
        // Library errors often name their cause already: print each cause only once.
        let mut line = e.to_string();
        for cause in e.chain().skip(1) {
            let cause = cause.to_string();
            if !line.contains(&cause) {
                line = format!("{line}: {cause}");
            }
        }
        eprintln!("codeact: {line}");
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
            print!("{}", obs.screen_text());
            Ok(())
        }
        Command::Tools { persona, markdown } => {
            let persona = persona.as_deref().map(codeact::persona::Persona::load).transpose()?;
            let allowed = |t: &str| persona.as_ref().is_none_or(|p| p.allows(t));
            let text =
                if markdown { codeact::tools::markdown_table(&allowed) } else { codeact::tools::describe(&allowed) };
            print!("{text}");
            Ok(())
        }
        Command::Personas { prompt: Some(name) } => {
            let persona = codeact::persona::Persona::load(&name)?;
            println!("{}", codeact::agent::prompt::system(&persona, None));
            Ok(())
        }
        Command::Personas { prompt: None } => {
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
        Command::Exec { files, device, session, vars, check, junit, trajectory } => {
            let settings = session.settings(&device, trajectory.is_some())?;
            exec(&files, &settings, &vars, check, junit.as_deref(), trajectory.as_deref())
        }
        Command::Run {
            task,
            device,
            session,
            base_url,
            model,
            api_key_env,
            temperature,
            vision,
            max_steps,
            out,
            save_trajectory,
            json,
        } => {
            let llm_flags = codeact::llm::LlmFlags { base_url, model, api_key_env, temperature };
            let run = RunArgs { task, vision, max_steps: max_steps as usize, out, save: save_trajectory, json };
            let code = run_agent(&device, &session, &llm_flags, &run)?;
            std::process::exit(code);
        }
        Command::Repl { device, session, history, no_history } => {
            let settings = session.settings(&device, false)?;
            let phone = open_device(&settings)?;
            let name = phone.name().to_string();
            let session = codeact::session::Session::new(Box::new(phone), &settings).map_err(anyhow::Error::msg)?;
            let history = if no_history { None } else { history.or_else(codeact::repl::default_history_file) };
            codeact::repl::run(session, &name, history).context("the line editor failed")
        }
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

struct RunArgs {
    task: String,
    vision: String,
    max_steps: usize,
    out: PathBuf,
    save: codeact::agent::SaveMode,
    json: bool,
}

/// `codeact run`: returns the exit code (0 only for a successful completion).
fn run_agent(
    device: &DeviceArgs,
    session_args: &SessionArgs,
    llm_flags: &codeact::llm::LlmFlags,
    run: &RunArgs,
) -> Result<i32> {
    use codeact::agent::{self, Outcome, Progress};
    use codeact::device::Device as _;
    let file = FileConfig::find(session_args.config.as_deref())?;
    let mut settings = session_args.settings_with(device, false, Some("default"))?;
    if session_args.record.is_none() && file.tools.record.is_none() {
        settings.tools.record = if run.save == agent::SaveMode::Action {
            codeact::tools::Record::All
        } else {
            codeact::tools::Record::None
        };
    }
    let llm_config = codeact::llm::LlmConfig::resolve(&file.llm, llm_flags)?;
    let llm = codeact::llm::LlmClient::new(llm_config)?;
    let persona = match settings.persona.clone() {
        Some(p) => p,
        None => codeact::persona::Persona::load("default")?,
    };
    let vision = match run.vision.as_str() {
        "on" => true,
        "off" => false,
        _ => persona.context.iter().any(|c| c == "screenshot"),
    };
    let phone = open_device(&settings)?;
    let device_name = phone.name().to_string();
    let mut session = codeact::session::Session::new(Box::new(phone), &settings).map_err(anyhow::Error::msg)?;
    let options = agent::AgentOptions {
        task: run.task.clone(),
        max_steps: run.max_steps,
        vision,
        save: run.save,
        out_dir: run.out.clone(),
        loop_limit: 3,
        device_spec: settings.device.clone(),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let interrupt = agent::Interrupt::default();
    let summary = runtime.block_on(async {
        let on_signal = interrupt.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("\ninterrupted: finishing the run directory (Ctrl-C again to quit at once)");
                on_signal.trigger();
                if tokio::signal::ctrl_c().await.is_ok() {
                    std::process::exit(130);
                }
            }
        });
        let mut err = std::io::stderr();
        let mut progress = |p: Progress| {
            let _ = match p {
                Progress::Started { run_dir } => writeln!(err, "run directory: {}", run_dir.display()),
                Progress::Step { step, max } => write!(err, "step {step}/{max} "),
                Progress::Reply { headline, usage, llm_ms, .. } => writeln!(
                    err,
                    "· {headline} ({} prompt + {} reply tokens, {:.1} s)",
                    usage.prompt_tokens,
                    usage.completion_tokens,
                    llm_ms / 1000.0
                ),
                Progress::Ran { actions, error, .. } => {
                    for a in actions {
                        let _ = writeln!(err, "    {a}");
                    }
                    match error {
                        Some(e) => writeln!(err, "    error: {}", e.lines().next().unwrap_or("")),
                        None => Ok(()),
                    }
                }
                Progress::Note { text, .. } => writeln!(err, "    ({text})"),
            };
        };
        agent::run(&mut session, &llm, &persona, &device_name, &options, &interrupt, &mut progress).await
    })?;
    if run.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        let how = match summary.outcome {
            Outcome::Success => "success",
            Outcome::Failure => "failure",
            Outcome::Interrupted => "interrupted",
            Outcome::Error => "error",
        };
        println!(
            "{how} after {} step{} ({:.1} s, {} tokens): {}",
            summary.steps,
            if summary.steps == 1 { "" } else { "s" },
            summary.wall_ms / 1000.0,
            summary.tokens.total_tokens,
            summary.reason
        );
        println!("run directory: {}", summary.run_dir.display());
        println!("replay: {}", summary.replay);
    }
    Ok(match summary.outcome {
        Outcome::Success => 0,
        Outcome::Failure => 1,
        Outcome::Error => 2,
        Outcome::Interrupted => 130,
    })
}

/// Runs each script in a fresh session on one device; reports, and fails if any failed.
fn exec(
    files: &[PathBuf],
    settings: &Settings,
    vars: &[String],
    check: bool,
    junit: Option<&std::path::Path>,
    trajectory: Option<&std::path::Path>,
) -> Result<()> {
    use codeact::device::Device as _;
    use codeact::trajectory::junit::{self, Case};
    let mut scripts = Vec::new();
    for file in files {
        let code = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
        scripts.push((file, code));
    }
    let mut parsed_vars = Vec::new();
    for var in vars {
        let (key, value) = var.split_once('=').with_context(|| format!("--var {var:?} is not KEY=VALUE"))?;
        let ok_name = key.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
            && key.chars().all(|c| c.is_alphanumeric() || c == '_');
        if !ok_name {
            bail!("--var {var:?}: {key:?} is not a variable name (letters, digits and _, not starting with a digit)");
        }
        parsed_vars.push((key.to_string(), codeact::session::typed_value(value)));
    }
    if check {
        let sandbox = codeact::sandbox::Sandbox::new(settings.limits.clone()).map_err(anyhow::Error::msg)?;
        let mut bad = 0;
        for (file, code) in &scripts {
            match sandbox.check(code) {
                Ok(()) => println!("{}: parses", file.display()),
                Err(e) => {
                    bad += 1;
                    eprintln!("{}: {e}", file.display());
                }
            }
        }
        if bad > 0 {
            bail!("{bad} of {} scripts do not parse", scripts.len());
        }
        return Ok(());
    }
    if let Some(dir) = trajectory
        && scripts.len() > 1
    {
        let mut stems = std::collections::HashSet::new();
        for (file, _) in &scripts {
            if !stems.insert(stem(file)) {
                bail!(
                    "two scripts are named {:?}: give each its own name so --trajectory {} can hold both",
                    stem(file),
                    dir.display()
                );
            }
        }
    }

    let phone = open_device(settings)?;
    let device_name = phone.name().to_string();
    let mut session = codeact::session::Session::new(Box::new(phone), settings).map_err(anyhow::Error::msg)?;
    let mut cases = Vec::new();
    for (file, code) in &scripts {
        session.reset();
        for (key, value) in &parsed_vars {
            session.set_var(key, value.clone());
        }
        let run_dir = trajectory.map(|d| if scripts.len() > 1 { d.join(stem(file)) } else { d.to_path_buf() });
        let traj = match &run_dir {
            Some(dir) => {
                let mut t = codeact::trajectory::Trajectory::create(dir)?;
                t.write_file("script.rhai", code.as_bytes());
                t.event("start", serde_json::json!({ "script": file.display().to_string(), "device": device_name }));
                let t = std::sync::Arc::new(std::sync::Mutex::new(t));
                let sink = codeact::trajectory::action_sink(t.clone(), std::sync::Arc::new(|| 1), true);
                session.sandbox.shared().set_sink(Some(sink));
                Some(t)
            }
            None => None,
        };
        let result = session.run(code);
        session.sandbox.shared().set_sink(None);
        print!("{}", result.output);
        for a in &result.actions {
            eprintln!("  {:>8.1} ms  {}({}) -> {}", a.duration_ms, a.tool, a.args.join(", "), a.result);
        }
        let outcome = junit::outcome(&result);
        let verdict = match &outcome {
            junit::Outcome::Passed => "PASS",
            junit::Outcome::Failed { .. } => "FAIL",
            junit::Outcome::Error { .. } => "ERROR",
        };
        match (&result.error, &result.completion) {
            (Some(e), _) => eprintln!("{verdict} {}: {e}", file.display()),
            (None, Some(c)) if !c.success => {
                eprintln!("{verdict} {}: completed as failed: {}", file.display(), c.reason)
            }
            (None, Some(c)) => {
                println!("completed: {}", c.reason);
                eprintln!(
                    "{verdict} {} ({} actions, {:.0} ms)",
                    file.display(),
                    result.actions.len(),
                    result.duration_ms
                );
            }
            (None, None) => {
                eprintln!(
                    "{verdict} {} ({} actions, {:.0} ms)",
                    file.display(),
                    result.actions.len(),
                    result.duration_ms
                )
            }
        }
        if let Some(t) = traj {
            let mut t = t.lock().unwrap_or_else(|e| e.into_inner());
            t.event(
                "end",
                serde_json::json!({ "output": result.output, "error": result.error, "completion": result.completion }),
            );
            let summary = serde_json::json!({
                "script": file.display().to_string(),
                "device": device_name,
                "persona": settings.persona.as_ref().map(|p| p.name.clone()),
                "outcome": verdict.to_lowercase(),
                "error": result.error.as_ref().map(|e| e.to_string()),
                "completion": result.completion,
                "actions": result.actions.len(),
                "duration_ms": result.duration_ms,
            });
            let dir = t.finish(&summary)?;
            eprintln!("  trajectory: {}", dir.display());
        }
        let mut log = result.output.clone();
        for a in &result.actions {
            log.push_str(&format!("{:.1} ms {}({}) -> {}\n", a.duration_ms, a.tool, a.args.join(", "), a.result));
        }
        cases.push(Case {
            name: stem(file),
            classname: file.display().to_string(),
            seconds: result.duration_ms / 1000.0,
            outcome,
            output: log,
        });
    }
    if let Some(path) = junit {
        std::fs::write(path, junit::render("codeact exec", &cases))
            .with_context(|| format!("cannot write the JUnit report {}", path.display()))?;
    }
    let failed: Vec<&Case> = cases.iter().filter(|c| c.outcome != junit::Outcome::Passed).collect();
    match (failed.len(), cases.len()) {
        (0, _) => Ok(()),
        (_, 1) => bail!("{} did not pass", cases[0].classname),
        (n, total) => {
            let names: Vec<&str> = failed.iter().map(|c| c.classname.as_str()).collect();
            bail!("{n} of {total} scripts did not pass: {}", names.join(", "))
        }
    }
}

fn stem(file: &std::path::Path) -> String {
    file.file_stem().map_or_else(|| "script".to_string(), |s| s.to_string_lossy().into_owned())
}
