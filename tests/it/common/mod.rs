//! Shared test plumbing: start `codeact sim` as a process, run a private stock adb
//! server against it (the virtual device's own tests share that helper), read dumps
//! and state the way any client would, serve a scripted LLM (`llm.rs`), and reach
//! the HarmonyOS door with an hdc client codeact did not write (`hdc.rs`).
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

#[path = "../../../crates/sim/tests/it/support/adb_server.rs"]
mod adb_server;
pub mod appium;
pub mod hdc;
pub mod llm;
pub mod loopback;
pub mod programs;

pub use adb_server::AdbServer;

/// The codeact binary as the sessions' sandbox worker (this test binary is not one).
pub fn worker() -> codeact::isolation::WorkerProgram {
    codeact::isolation::WorkerProgram(env!("CARGO_BIN_EXE_codeact").into())
}

/// `codeact ARGS` run in the repository's folder (where `scripts/` and the
/// fixtures are), to its end.
pub fn codeact(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run codeact")
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

/// A one-line look at the screen, in a temporary folder: what the hostile-server
/// tests run. Returns the script; remove its folder when done.
pub fn look_script(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("codeact-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let script = dir.join("look.rhai");
    std::fs::write(&script, "refresh();\nprint(ui_state.len());\n").expect("script");
    script
}

/// Runs `script` on `device` (with `env`) under a 2 s device timeout and checks it
/// fails as a device error does: exit 2, one message that says `says`, no panic,
/// within 20 s whatever the server does.
pub fn fails_cleanly(script: &std::path::Path, device: &str, env: &[(&str, String)], case: &str, says: &str) {
    let started = std::time::Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", script.to_str().unwrap_or_default(), "--device", device, "--timeout", "2"])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .expect("codeact exec");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{case}: {err}");
    assert!(err.contains(says), "{case} should say {says:?}: {err}");
    assert!(!err.contains("panicked"), "{case}: {err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "{case} took {:?}", started.elapsed());
}

/// `codeact repl --device sim` in a pseudo-terminal (`script` from util-linux, as a
/// person's terminal runs it): the child, its keyboard, and what it shows, in chunks
/// as they come.
pub fn repl_in_terminal() -> (std::process::Child, std::process::ChildStdin, std::sync::mpsc::Receiver<String>) {
    use std::io::Read;
    let command = format!("{} repl --device sim --no-history", env!("CARGO_BIN_EXE_codeact"));
    let child = std::process::Command::new(programs::script())
        .args(["-qfec", &command, "/dev/null"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn();
    let mut child = child.expect("`script` (util-linux) runs the REPL in a pseudo-terminal");
    let stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let (chunks, seen) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 || chunks.send(String::from_utf8_lossy(&buf[..n]).into_owned()).is_err() {
                break;
            }
        }
    });
    (child, stdin, seen)
}
