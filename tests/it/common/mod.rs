//! Shared test plumbing: start `codeact sim` as a process, run a private stock adb
//! server against it (the virtual device's own tests share that helper), read dumps
//! and state the way any client would, serve a scripted LLM (`llm.rs`), and reach
//! the HarmonyOS door with an hdc client codeact did not write (`hdc.rs`).
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

#[path = "../../../crates/sim/tests/it/support/adb_server.rs"]
mod adb_server;
pub mod hdc;
pub mod llm;
pub mod programs;

pub use adb_server::AdbServer;

/// The codeact binary as the sessions' sandbox worker (this test binary is not one).
pub fn worker() -> codeact::isolation::WorkerProgram {
    codeact::isolation::WorkerProgram(env!("CARGO_BIN_EXE_codeact").into())
}

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
        // `127.0.0.1:PORT`, or `http://127.0.0.1:PORT` for the iOS door.
        let addr = first
            .split_whitespace()
            .map(|w| w.trim_start_matches("http://"))
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

/// The XML part of `uiautomator dump /dev/tty` output (without the status line).
pub fn dump_xml(raw: &str) -> &str {
    let end = raw.rfind("</hierarchy>").map(|i| i + "</hierarchy>".len()).unwrap_or(raw.len());
    &raw[..end]
}

/// Reads (width, height) from a PNG header.
pub fn png_size(bytes: &[u8]) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let reader = decoder.read_info().expect("a valid PNG");
    let info = reader.info();
    (info.width, info.height)
}
/// `simctl state` of the device at `addr`, read through codeact's own ADB client.
pub fn sim_state(addr: &str) -> serde_json::Value {
    let mut d = codeact::device::AdbDevice::direct(addr, std::time::Duration::from_secs(10)).expect("connect");
    let out = codeact::device::Device::shell(&mut d, "simctl state").expect("simctl state");
    serde_json::from_slice(&out.stdout).expect("JSON")
}
