//! Shared test plumbing: start `codeact sim` as a process, run a private stock adb
//! server against it, read dumps and state the way any client would.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Command, Output, Stdio};

/// `codeact sim` running as a child process on a free port; killed on drop.
pub struct SimProcess {
    child: Child,
    pub addr: String,
}

impl SimProcess {
    pub fn start(extra: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_codeact"))
            .args(["sim", "--port", "0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start codeact sim");
        let stdout = child.stdout.take().expect("sim stdout");
        let mut reader = BufReader::new(stdout);
        let mut first = String::new();
        reader.read_line(&mut first).expect("read the sim's first line");
        // Keep draining what the sim prints, as a terminal would.
        std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
        let addr = first
            .split_whitespace()
            .find(|w| w.starts_with("127.0.0.1:"))
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .to_string();
        Self { child, addr }
    }
}

impl Drop for SimProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("free port")
}

/// A private adb server (its own port) so tests never share or disturb one.
pub struct AdbServer {
    port: String,
}

impl AdbServer {
    pub fn start() -> Self {
        let port = free_port().to_string();
        let status = Command::new("adb")
            .args(["-P", &port, "start-server"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("the stock adb must be installed (apt-get install -y adb)");
        assert!(status.success(), "adb start-server failed");
        Self { port }
    }

    pub fn port(&self) -> String {
        self.port.clone()
    }

    pub fn adb(&self, args: &[&str]) -> Output {
        Command::new("adb").args(["-P", &self.port]).args(args).stdin(Stdio::null()).output().expect("run adb")
    }

    /// `adb connect` and wait until `adb devices` lists it as `device`.
    pub fn connect(&self, addr: &str) {
        let out = self.adb(&["connect", addr]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(&format!("connected to {addr}")), "adb connect said: {text}");
        let out = self.adb(&["-s", addr, "wait-for-device"]);
        assert!(out.status.success(), "wait-for-device: {}", String::from_utf8_lossy(&out.stderr));
    }

    /// `adb -s ADDR shell CMD`: (stdout, stderr, exit code).
    pub fn shell(&self, addr: &str, cmd: &str) -> (String, String, i32) {
        let out = self.adb(&["-s", addr, "shell", cmd]);
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.code().unwrap_or(-1),
        )
    }

    pub fn exec_out(&self, addr: &str, args: &[&str]) -> Vec<u8> {
        let mut all = vec!["-s", addr, "exec-out"];
        all.extend_from_slice(args);
        let out = self.adb(&all);
        assert!(out.status.success(), "exec-out {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    }

    pub fn state(&self, addr: &str) -> serde_json::Value {
        let (out, err, code) = self.shell(addr, "simctl state");
        assert_eq!(code, 0, "simctl state failed: {err}");
        serde_json::from_str(&out).expect("simctl state prints JSON")
    }

    pub fn dump(&self, addr: &str) -> String {
        let bytes = self.exec_out(addr, &["uiautomator", "dump", "/dev/tty"]);
        String::from_utf8(bytes).expect("dump is UTF-8")
    }

    /// Taps the centre of the first node whose attribute `attr` is `value`, in a fresh dump.
    pub fn tap_node(&self, addr: &str, attr: &str, value: &str) {
        let xml = self.dump(addr);
        let (x, y) = center_of(&xml, attr, value).unwrap_or_else(|| panic!("no node with {attr}={value:?} in dump"));
        let (_, err, code) = self.shell(addr, &format!("input tap {x} {y}"));
        assert_eq!(code, 0, "tap failed: {err}");
    }
}

impl Drop for AdbServer {
    fn drop(&mut self) {
        let _ = Command::new("adb")
            .args(["-P", &self.port, "kill-server"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// The XML part of `uiautomator dump /dev/tty` output (without the status line).
pub fn dump_xml(raw: &str) -> &str {
    let end = raw.rfind("</hierarchy>").map(|i| i + "</hierarchy>".len()).unwrap_or(raw.len());
    &raw[..end]
}

pub fn parse_bounds(b: &str) -> Option<(i32, i32, i32, i32)> {
    let nums: Vec<i32> = b
        .split(|c: char| !c.is_ascii_digit() && c != '-')
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect();
    match nums.as_slice() {
        [l, t, r, b] => Some((*l, *t, *r, *b)),
        _ => None,
    }
}

pub fn center_of(raw: &str, attr: &str, value: &str) -> Option<(i32, i32)> {
    let doc = roxmltree::Document::parse(dump_xml(raw)).expect("dump parses as XML");
    let node = doc.descendants().find(|n| n.has_tag_name("node") && n.attribute(attr) == Some(value))?;
    let (l, t, r, b) = parse_bounds(node.attribute("bounds")?)?;
    Some(((l + r) / 2, (t + b) / 2))
}

pub fn attr_is(n: &roxmltree::Node, name: &str, value: &str) -> bool {
    n.attribute(name) == Some(value)
}

/// Reads (width, height) from a PNG header.
pub fn png_size(bytes: &[u8]) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let reader = decoder.read_info().expect("a valid PNG");
    let info = reader.info();
    (info.width, info.height)
}
pub mod llm;

/// `simctl state` of the device at `addr`, read through codeact's own ADB client.
pub fn sim_state(addr: &str) -> serde_json::Value {
    let mut d = codeact::device::AdbDevice::direct(addr, std::time::Duration::from_secs(10)).expect("connect");
    let out = codeact::device::Device::shell(&mut d, "simctl state").expect("simctl state");
    serde_json::from_slice(&out.stdout).expect("JSON")
}
pub mod phone;
