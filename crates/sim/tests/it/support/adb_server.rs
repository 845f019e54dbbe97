//! A private stock adb server (its own port), so tests never share or disturb one:
//! `adb connect`, `adb shell`, `adb exec-out` and `simctl state` as any client runs them.

use std::net::TcpListener;
use std::process::{Command, Output, Stdio};

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
