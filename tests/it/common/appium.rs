//! The real Appium server and Selenium Grid 4 the Appium tests run codeact against:
//! `Appium` (3.8, or 4's beta, with its UiAutomator2 driver, on a free loopback port), `Stand`
//! (a virtual phone behind its own adb server, and an Appium that reaches it), and
//! `Grid` (a hub with one Appium relay node per stand). Each is stopped on drop.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{AdbServer, SimProcess, programs};

/// A free loopback port.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

/// `GET path` on a loopback port: the body, when it answered.
fn get(port: u16, path: &str) -> Option<String> {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    s.write_all(format!("GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n").as_bytes()).ok()?;
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer.split_once("\r\n\r\n").map(|(_, body)| body.to_string())
}

/// Waits until `ready` holds, or panics after `secs` with what `child` said.
fn wait_for(child: &mut Child, what: &str, secs: u64, ready: impl Fn() -> bool) {
    let began = Instant::now();
    while !ready() {
        if began.elapsed() > Duration::from_secs(secs) || child.try_wait().ok().flatten().is_some() {
            let _ = child.kill();
            let mut said = String::new();
            if let Some(mut err) = child.stderr.take() {
                let _ = err.read_to_string(&mut said);
            }
            panic!("{what} did not come up in {secs} s: {said}");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A child process killed on drop.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        // Its whole process group: Appium 4 runs itself again in a child node, and
        // the Grid's Java starts helpers; a kill of the first alone leaves them
        // running past the test.
        if let Ok(pid) = i32::try_from(self.0.id()) {
            let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGKILL);
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `command` started as the leader of a process group of its own, so its `Killed`
/// ends everything it started.
fn grouped(command: &mut Command) -> &mut Command {
    std::os::unix::process::CommandExt::process_group(command, 0)
}

/// `appium` on loopback, with the shell allowed (the suite sets phones up through
/// it) and, for a grid node, default capabilities naming its one phone.
pub struct Appium {
    _child: Killed,
    pub url: String,
    pub port: u16,
    /// Appium's debug log, when one was asked for.
    pub log: Option<PathBuf>,
}

/// Which Appium: 3.8 (what most users run) or 4's beta (what they will).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    Three,
    FourBeta,
}

impl Appium {
    pub fn start() -> Self {
        Self::start_with(None, None)
    }

    pub fn start_with(default_caps: Option<&str>, log: Option<&Path>) -> Self {
        Self::start_version(Version::Three, default_caps, log)
    }

    pub fn start_version(version: Version, default_caps: Option<&str>, log: Option<&Path>) -> Self {
        let (dir, node) = match version {
            Version::Three => (programs::appium_dir(), None),
            Version::FourBeta => {
                let (dir, node) = programs::appium4_dir();
                (dir, Some(node))
            }
        };
        let port = free_port();
        let mut command = Command::new(dir.join("node_modules/.bin/appium"));
        if let Some(node) = node {
            // Its `#!/usr/bin/env node` finds Node 24 first.
            let path = std::env::var("PATH").unwrap_or_default();
            command.env("PATH", format!("{}:{path}", node.display()));
        }
        command
            .args(["--address", "127.0.0.1", "--port", &port.to_string()])
            .arg("--allow-insecure=uiautomator2:adb_shell")
            .env("APPIUM_HOME", dir.join("home"))
            .env("ANDROID_HOME", dir.join("sdk"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        match log {
            Some(path) => command.args(["--log-level", "debug", "--log"]).arg(path),
            None => command.args(["--log-level", "error"]),
        };
        if let Some(caps) = default_caps {
            command.args(["--default-capabilities", caps]);
        }
        let mut child = grouped(&mut command).spawn().expect("start appium");
        wait_for(&mut child, "appium", 90, || get(port, "/status").is_some_and(|b| b.contains("\"ready\":true")));
        Self { _child: Killed(child), url: format!("http://127.0.0.1:{port}"), port, log: log.map(Path::to_path_buf) }
    }
}

/// A virtual phone behind its own adb server, and the Appium that reaches it.
pub struct Stand {
    pub sim: SimProcess,
    pub adb: AdbServer,
    pub appium: Appium,
}

impl Stand {
    pub fn start() -> Self {
        Self::start_version(Version::Three)
    }

    /// A phone behind `version` of Appium.
    pub fn start_version(version: Version) -> Self {
        let (sim, adb) = Self::phone();
        Self { sim, adb, appium: Appium::start_version(version, None, None) }
    }

    /// A stand whose Appium drives only its own phone (a grid node's), logging to `log`.
    pub fn for_grid(log: &Path) -> Self {
        let (sim, adb) = Self::phone();
        let caps = serde_json::json!({"appium:udid": sim.addr, "appium:adbPort": adb_port(&adb)}).to_string();
        let appium = Appium::start_with(Some(&caps), Some(log));
        Self { sim, adb, appium }
    }

    fn phone() -> (SimProcess, AdbServer) {
        let sim = SimProcess::start(&[]);
        let adb = AdbServer::start();
        adb.connect(&sim.addr);
        (sim, adb)
    }

    /// The capabilities codeact creates its sessions with: this phone, this adb.
    pub fn caps(&self) -> String {
        serde_json::json!({
            "platformName": "Android", "appium:automationName": "UiAutomator2",
            "appium:udid": self.sim.addr, "appium:adbPort": adb_port(&self.adb),
        })
        .to_string()
    }

    pub fn codeact(&self, args: &[&str]) -> std::process::Output {
        codeact_with_caps(args, &self.caps())
    }
}

fn adb_port(adb: &AdbServer) -> u16 {
    adb.port().parse().unwrap_or(5037)
}

/// `codeact ARGS` with the capabilities of the sessions it creates.
pub fn codeact_with_caps(args: &[&str], caps: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(args)
        .env("CODEACT_APPIUM_CAPS", caps)
        .env("NO_COLOR", "1")
        .output()
        .expect("run codeact")
}

/// Selenium Grid 4's jar.
fn grid_jar() -> PathBuf {
    programs::grid_jar()
}

/// A Selenium Grid 4 hub with one relay node per WebDriver server behind it.
pub struct Grid {
    _nodes: Vec<Killed>,
    _hub: Killed,
    pub url: String,
}

impl Grid {
    /// One Appium relay node per stand.
    pub fn start(stands: &[Stand], dir: &Path) -> Self {
        let relays: Vec<(String, serde_json::Value, usize)> = stands
            .iter()
            .map(|stand| {
                let stereotype = serde_json::json!({
                    "platformName": "Android", "appium:automationName": "UiAutomator2", "appium:udid": stand.sim.addr,
                });
                (stand.appium.url.clone(), stereotype, 1)
            })
            .collect();
        Self::relaying(&relays, dir)
    }

    /// One relay node per (server URL, stereotype, sessions at once).
    pub fn relaying(relays: &[(String, serde_json::Value, usize)], dir: &Path) -> Self {
        let java = programs::java();
        let (port, publish, subscribe) = (free_port(), free_port(), free_port());
        let bus = |p: u16| format!("tcp://127.0.0.1:{p}");
        let mut hub = grouped(&mut Command::new(&java))
            .arg("-jar")
            .arg(grid_jar())
            .args(["hub", "--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--publish-events", &bus(publish), "--subscribe-events", &bus(subscribe)])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the grid's hub");
        wait_for(&mut hub, "the grid's hub", 90, || get(port, "/status").is_some_and(|b| b.contains("\"value\"")));
        let mut nodes = Vec::new();
        for (i, (url, stereotype, sessions)) in relays.iter().enumerate() {
            let config = format!(
                "[server]\nhost = \"127.0.0.1\"\nport = {}\n\n[events]\npublish = \"{}\"\nsubscribe = \"{}\"\n\n[node]\ndetect-drivers = false\n\n[relay]\nurl = \"{}\"\nstatus-endpoint = \"/status\"\nconfigs = [\"{sessions}\", {}]\n",
                free_port(),
                bus(publish),
                bus(subscribe),
                url,
                serde_json::to_string(&stereotype.to_string()).unwrap_or_default(),
            );
            let file = dir.join(format!("node{i}.toml"));
            std::fs::write(&file, config).expect("write a node's config");
            let node = grouped(&mut Command::new(&java))
                .arg("-jar")
                .arg(grid_jar())
                .args(["node", "--config"])
                .arg(&file)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start a grid node");
            nodes.push(Killed(node));
        }
        let all_up = || {
            let Some(body) = get(port, "/status") else { return false };
            let status: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
            let nodes = status["value"]["nodes"].as_array().cloned().unwrap_or_default();
            status["value"]["ready"] == true
                && nodes.len() == relays.len()
                && nodes.iter().all(|n| n["availability"] == "UP")
        };
        wait_for(&mut hub, "the grid with its nodes", 120, all_up);
        Self { _nodes: nodes, _hub: Killed(hub), url: format!("http://127.0.0.1:{port}") }
    }
}
