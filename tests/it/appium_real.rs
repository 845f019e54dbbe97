//! The real Appium server (3.x from npm, with `appium driver install uiautomator2`)
//! on both ends: it drives the virtual phone through the stock adb — installing its
//! server APKs, starting them with `am instrument`, talking to the virtual phone's
//! UiAutomator2 server through `adb forward` —, and codeact drives Appium
//! (`--device appium:URL`): the bundled scripts pass, the oracle scores 1.0 on the
//! Android templates, and Appium's own Python client runs a test from Appium's
//! documentation in which a codeact script is one step (attach mode).

use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{self, AdbServer, SimProcess};

/// A free loopback port.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

/// `appium --port P` on loopback, with the shell allowed (the suite sets phones up
/// through it); killed on drop.
pub struct Appium {
    child: Child,
    pub url: String,
}

impl Appium {
    pub fn start() -> Self {
        let dir = common::programs::appium_dir();
        let port = free_port();
        let child = Command::new(dir.join("node_modules/.bin/appium"))
            .args(["--address", "127.0.0.1", "--port", &port.to_string(), "--log-level", "error"])
            .arg("--allow-insecure=uiautomator2:adb_shell")
            .env("APPIUM_HOME", dir.join("home"))
            .env("ANDROID_HOME", dir.join("sdk"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start appium");
        let mut appium = Self { child, url: format!("http://127.0.0.1:{port}") };
        let began = Instant::now();
        while !status_ok(port) {
            if began.elapsed() > Duration::from_secs(90) || appium.child.try_wait().ok().flatten().is_some() {
                let mut said = String::new();
                if let Some(mut err) = appium.child.stderr.take() {
                    let _ = err.read_to_string(&mut said);
                }
                panic!("appium did not answer /status on port {port}: {said}");
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        appium
    }
}

impl Drop for Appium {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn status_ok(port: u16) -> bool {
    let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else { return false };
    use std::io::Write;
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    if s.write_all(b"GET /status HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").is_err() {
        return false;
    }
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer.contains("\"ready\":true")
}

/// A virtual phone behind its own adb server, and the Appium that reaches it.
pub struct Stand {
    pub sim: SimProcess,
    pub adb: AdbServer,
    pub appium: Appium,
}

impl Stand {
    pub fn start() -> Self {
        let sim = SimProcess::start(&[]);
        let adb = AdbServer::start();
        adb.connect(&sim.addr);
        Self { sim, adb, appium: Appium::start() }
    }

    /// The capabilities codeact creates its sessions with: this phone, this adb.
    pub fn caps(&self) -> String {
        serde_json::json!({
            "platformName": "Android", "appium:automationName": "UiAutomator2",
            "appium:udid": self.sim.addr, "appium:adbPort": self.adb.port().parse::<u16>().unwrap_or(5037),
        })
        .to_string()
    }

    pub fn codeact(&self, args: &[&str]) -> std::process::Output {
        Command::new(env!("CARGO_BIN_EXE_codeact"))
            .args(args)
            .env("CODEACT_APPIUM_CAPS", self.caps())
            .env("NO_COLOR", "1")
            .output()
            .expect("run codeact")
    }
}

fn said(out: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn codeact_passes_the_bundled_scripts_and_the_android_templates_through_real_appium() {
    let stand = Stand::start();
    let device = format!("appium:{}", stand.appium.url);
    let scripts: Vec<PathBuf> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts"))
        .expect("scripts/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rhai"))
        .collect();
    assert!(scripts.len() >= 6, "{scripts:?}");
    let mut args: Vec<&str> = vec!["exec"];
    args.extend(scripts.iter().filter_map(|p| p.to_str()));
    args.extend(["--device", &device]);
    let out = stand.codeact(&args);
    let text = said(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(&format!("{} passed, 0 failed, 0 errors", scripts.len())), "{text}");

    // The whole Android suite, set up and judged through Appium's `mobile: shell`.
    let out_dir = tempfile::tempdir().expect("a temp dir");
    let results = out_dir.path().join("eval");
    let out = stand.codeact(&[
        "eval",
        "--agent",
        "oracle",
        "--device",
        &device,
        "--parallel",
        "1",
        "--out",
        results.to_str().unwrap_or(""),
    ]);
    let text = said(&out);
    assert!(out.status.success(), "{text}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(results.join("results.json")).expect("results.json")).expect("json");
    let all = &json["summary"]["all"];
    assert_eq!(all["mean_score"].as_f64(), Some(1.0), "{all}\n{text}");
    assert!(json["results"].as_array().is_some_and(|r| r.len() >= 79), "every Android template: {all}");
}

#[test]
fn appiums_python_client_runs_a_test_with_a_codeact_step_inside_its_session() {
    let stand = Stand::start();
    let client = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/clients/appium_client.py");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/turn_off_wifi.rhai");
    let ran = Command::new(common::programs::appium_python())
        .args([client, &stand.appium.url, &stand.sim.addr, &stand.adb.port(), env!("CARGO_BIN_EXE_codeact"), script])
        .env("CODEACT_APPIUM_CAPS", stand.caps())
        .output()
        .expect("run the Appium client");
    let text = said(&ran);
    assert!(ran.status.success() && !text.contains("FAIL"), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("ok ")).count(), 15, "{text}");
    // The test's own session ended with it (attach mode left it to its owner until
    // then), and with it Appium's server on the phone.
    let (ps, _, _) = stand.adb.shell(&stand.sim.addr, "ps -A");
    assert!(!ps.contains("io.appium.uiautomator2.server"), "{ps}");
}
