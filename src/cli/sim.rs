//! `codeact sim`: serve the virtual phone on loopback until Ctrl-C.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use codeact_sim::{DEFAULT_PORT, SimConfig, SimError, SimPlatform, VirtualDevice};

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
/// Apps (launcher, Settings, Contacts, Messages, Notes, Clock) are data files
/// (crates/sim/data in the repository); `simctl help` lists the test hooks (state,
/// reset, faults, slow UI).
///
/// With --platform ios the same world is served as a WebDriverAgent instead, as an
/// iPhone's runner answers (points, XCUIElementType page source), for any WDA
/// client:
///
///   codeact sim --platform ios --port 8100 --token mytoken123
///   curl http://127.0.0.1:8100/mytoken123/status
///   codeact exec my.rhai --device ios:http://127.0.0.1:8100/mytoken123
///
/// (Without --token a random one is made; the first line prints the URL.)
///
/// With --platform harmony it is an hdc server with the phone as its one target
/// (connect key: the --serial), whose shell runs HarmonyOS's tools (uitest, aa, bm,
/// snapshot_display, param), for any hdc client:
///
///   codeact sim --platform harmony --port 8710
///   hdc list targets
///   hdc shell uitest dumpLayout -p /data/local/tmp/layout.json
///   codeact exec my.rhai --device hdc
///
/// (hdc and codeact find a server on another port through OHOS_HDC_SERVER_PORT.)
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct SimArgs {
    /// TCP port on 127.0.0.1 (0 picks a free one). Keep it outside 5555–5585,
    /// which the adb server claims for emulators.
    #[arg(long, default_value_t = DEFAULT_PORT)]
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
    /// Draw the dark theme (`cmd uimode night` says yes): light text on dark
    /// surfaces; brand colours, icons and games keep theirs.
    #[arg(long)]
    dark: bool,
    /// Text size multiplier, 0.5 to 2.0 (`settings get system font_scale`).
    #[arg(long, default_value_t = 1.0, value_parser = parse_font_scale)]
    font_scale: f32,
    /// Load the world from this folder (world.toml + apps/*.toml) instead of the
    /// bundled one; copy crates/sim/data from the repository to start.
    #[arg(long)]
    world: Option<PathBuf>,
    /// Show the apps as an update changes them: 1 reorders items, 2 also renames
    /// ids, 3 also adds a one-time "What's new" dialog to each app (`simctl
    /// variant N` switches later). Replays and healing are measured on these.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=3))]
    variant: u32,
    /// The front door: android (an adbd, for adb), ios (a WebDriverAgent HTTP
    /// server, for WDA clients) or harmony (an hdc server, for hdc clients).
    #[arg(long, value_enum, default_value_t = PlatformFlag::Android)]
    platform: PlatformFlag,
    /// The token the iOS door requires at the start of every path (its URL is
    /// http://127.0.0.1:PORT/TOKEN); random unless given. Letters, digits, - and _.
    /// (With --platform ios only.)
    #[arg(long, value_parser = parse_token)]
    token: Option<String>,
}

/// A font scale Android's settings offer: 0.5 to 2.0.
fn parse_font_scale(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(v) if (0.5..=2.0).contains(&v) => Ok(v),
        _ => Err("use a number from 0.5 to 2.0, e.g. 1.3".into()),
    }
}

/// A token that fits a URL path segment: 8 to 128 letters, digits, `-` or `_`.
fn parse_token(s: &str) -> Result<String, String> {
    let fits = (8..=128).contains(&s.len()) && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if fits { Ok(s.to_string()) } else { Err("use 8 to 128 letters, digits, - or _".into()) }
}

/// `--platform`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum PlatformFlag {
    Android,
    Ios,
    Harmony,
}

/// Why `--size` cannot be used.
#[derive(Debug, thiserror::Error)]
enum SizeError {
    #[error("{0:?} is not WIDTHxHEIGHT; use e.g. 1080x2400")]
    Shape(String),
    #[error("{0}: each side must be between 100 and 8192 pixels")]
    Range(String),
}

/// `WIDTHxHEIGHT`, each side 100..8192 pixels.
fn parse_size(s: &str) -> Result<(u32, u32), SizeError> {
    let bad = || SizeError::Shape(s.to_string());
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let (w, h) = (w.trim().parse::<u32>().map_err(|_| bad())?, h.trim().parse::<u32>().map_err(|_| bad())?);
    if !(100..=8192).contains(&w) || !(100..=8192).contains(&h) {
        return Err(SizeError::Range(s.to_string()));
    }
    Ok((w, h))
}

impl SimArgs {
    pub fn serve(self) -> anyhow::Result<ExitCode> {
        let port = self.port;
        if (5555..=5585).contains(&port) {
            bail!(
                "port {port} is in 5555–5585, which the adb server probes for emulators; pick another, e.g. --port {DEFAULT_PORT}"
            );
        }
        if self.token.is_some() && self.platform != PlatformFlag::Ios {
            bail!(
                "--token is for --platform ios (a WebDriverAgent URL carries it); the adbd and hdc doors take none, as a phone's do, and listen on 127.0.0.1 only"
            );
        }
        let (width, height) = self.size;
        let token = self.token.clone().unwrap_or_else(codeact_sim::random_token);
        let config = SimConfig {
            wda_token: token.clone(),
            serial: self.serial,
            width,
            height,
            density: self.density,
            dark: self.dark,
            font_scale: self.font_scale,
            world: self.world,
            variant: self.variant,
            platform: match self.platform {
                PlatformFlag::Android => SimPlatform::Android,
                PlatformFlag::Ios => SimPlatform::Ios,
                PlatformFlag::Harmony => SimPlatform::Harmony,
            },
            ..SimConfig::default()
        };
        let serial = config.serial.clone();
        let phone = match VirtualDevice::start_at(config, SocketAddr::from(([127, 0, 0, 1], port))) {
            Ok(phone) => phone,
            // Only a port that is taken is about the port.
            Err(e @ SimError::Bind { .. }) => {
                return Err(anyhow::Error::new(e).context(format!(
                    "is another `codeact sim` running? try --port {} or --port 0",
                    port.wrapping_add(2)
                )));
            }
            Err(e) => return Err(e.into()),
        };
        let addr = phone.addr();
        // A closed stdout (a parent that stopped reading) must not stop the device.
        let mut out = std::io::stdout();
        let _ = match self.platform {
            PlatformFlag::Android => writeln!(
                out,
                "Virtual Android device listening on {addr} ({width}x{height} @ {}dpi)\n  adb connect {addr}\n  \
                 adb -s {addr} shell simctl state\nCtrl-C to stop.",
                self.density
            ),
            PlatformFlag::Ios => {
                let url = format!("http://{addr}/{token}");
                writeln!(
                    out,
                    "Virtual iPhone (WebDriverAgent) listening on {url} ({width}x{height} pixels)\n  \
                     curl {url}/status\n  codeact exec scripts/turn_off_wifi.rhai --device ios:{url}\nCtrl-C to stop."
                )
            }
            PlatformFlag::Harmony => {
                let port = addr.port();
                let env = if port == 8710 { String::new() } else { format!("OHOS_HDC_SERVER_PORT={port} ") };
                writeln!(
                    out,
                    "Virtual HarmonyOS phone (an hdc server) listening on {addr} ({width}x{height}), target {serial}\n  \
                     {env}hdc list targets\n  {env}hdc shell uitest dumpLayout -p /data/local/tmp/layout.json\n  \
                     {env}codeact exec scripts/turn_off_wifi.rhai --device hdc\nCtrl-C to stop."
                )
            }
        };
        let _ = out.flush();
        if super::interrupt::wait_for_ctrl_c()? {
            let _ = writeln!(out, "stopped");
        }
        Ok(ExitCode::SUCCESS)
    }
}
