//! A phone driven through adb_client's direct TCP device (the runtime's ADB path),
//! against a virtual device started in-process, plus a raw wire-protocol client for
//! malformed-traffic and fault tests.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use adb_client::ADBDeviceExt;
use adb_client::tcp::ADBTcpDevice;
use codeact_sim::{SimConfig, VirtualDevice};

pub const TEST_KEY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/test_adbkey");

pub struct Phone {
    pub sim: VirtualDevice,
    pub device: ADBTcpDevice,
}

impl Phone {
    pub fn start() -> Self {
        Self::start_with(SimConfig::default())
    }

    pub fn start_with(config: SimConfig) -> Self {
        let sim = VirtualDevice::start(config).expect("start the virtual device");
        let device = connect(sim.addr());
        Self { sim, device }
    }

    pub fn sh_bytes(&mut self, cmd: &str) -> Vec<u8> {
        let mut out = Vec::new();
        self.device.shell_command(&cmd, Some(&mut out), None).unwrap_or_else(|e| panic!("shell {cmd}: {e}"));
        out
    }

    pub fn sh(&mut self, cmd: &str) -> String {
        String::from_utf8_lossy(&self.sh_bytes(cmd)).into_owned()
    }

    pub fn state(&mut self) -> serde_json::Value {
        let text = self.sh("simctl state");
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("simctl state is not JSON ({e}): {text}"))
    }

    pub fn dump(&mut self) -> String {
        self.sh("uiautomator dump /dev/tty")
    }

    /// Centre of the first node whose `attr` is `value`, if on screen.
    pub fn find(&mut self, attr: &str, value: &str) -> Option<(i32, i32)> {
        let dump = self.dump();
        super::center_of(&dump, attr, value)
    }

    pub fn tap(&mut self, attr: &str, value: &str) {
        let (x, y) = self.find(attr, value).unwrap_or_else(|| panic!("no node with {attr}={value:?} on screen"));
        let out = self.sh(&format!("input tap {x} {y}"));
        assert_eq!(out, "", "input tap printed something");
    }

    pub fn long_press(&mut self, attr: &str, value: &str) {
        let (x, y) = self.find(attr, value).unwrap_or_else(|| panic!("no node with {attr}={value:?} on screen"));
        self.sh(&format!("input swipe {x} {y} {x} {y} 600"));
    }

    /// Swipes up (content scrolls down) until `value` is on screen; panics after 10.
    pub fn scroll_to(&mut self, attr: &str, value: &str) -> (i32, i32) {
        for _ in 0..10 {
            if let Some(p) = self.find(attr, value) {
                return p;
            }
            self.sh("input swipe 540 1800 540 900 100");
        }
        panic!("{attr}={value:?} never scrolled into view");
    }

    pub fn type_unicode(&mut self, text: &str) {
        use base64::Engine as _;
        let b64 = base64::engine::general_purpose::STANDARD.encode(text);
        let out = self.sh(&format!("am broadcast -a ADB_INPUT_B64 --es msg {b64}"));
        assert!(out.contains("result=0"), "{out}");
    }
}

pub fn connect(addr: SocketAddr) -> ADBTcpDevice {
    ADBTcpDevice::new_with_custom_private_key(addr, TEST_KEY).expect("adb_client connects to the virtual device")
}

/// A minimal host speaking the wire protocol by hand.
pub struct RawClient {
    pub stream: TcpStream,
}

pub const CNXN: u32 = 0x4e58_4e43;
pub const OPEN: u32 = 0x4e45_504f;
pub const OKAY: u32 = 0x5941_4b4f;
pub const CLSE: u32 = 0x4553_4c43;
pub const WRTE: u32 = 0x4554_5257;

pub fn packet(cmd: u32, a0: u32, a1: u32, payload: &[u8]) -> Vec<u8> {
    let sum = payload.iter().map(|b| u32::from(*b)).sum::<u32>();
    let mut p = Vec::new();
    for w in [cmd, a0, a1, payload.len() as u32, sum, cmd ^ 0xffff_ffff] {
        p.extend_from_slice(&w.to_le_bytes());
    }
    p.extend_from_slice(payload);
    p
}

impl RawClient {
    pub fn connect(addr: SocketAddr) -> Self {
        let stream = TcpStream::connect(addr).expect("tcp connect");
        stream.set_read_timeout(Some(Duration::from_secs(5))).expect("timeout");
        Self { stream }
    }

    pub fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).expect("send");
    }

    /// Reads one message; `None` on EOF or timeout.
    pub fn read(&mut self) -> Option<(u32, u32, u32, Vec<u8>)> {
        let mut h = [0u8; 24];
        self.stream.read_exact(&mut h).ok()?;
        let w = |i: usize| u32::from_le_bytes([h[i * 4], h[i * 4 + 1], h[i * 4 + 2], h[i * 4 + 3]]);
        let mut payload = vec![0; w(3) as usize];
        self.stream.read_exact(&mut payload).ok()?;
        Some((w(0), w(1), w(2), payload))
    }

    pub fn handshake(&mut self) -> Vec<u8> {
        self.send(&packet(CNXN, 0x0100_0001, 256 * 1024, b"host::features=shell_v2"));
        let (cmd, _, _, banner) = self.read().expect("CNXN reply");
        assert_eq!(cmd, CNXN);
        banner
    }

    /// Runs `shell:CMD` on stream `id`, acking every WRTE; returns output, or `None`
    /// when the connection dropped before CLSE.
    pub fn shell(&mut self, id: u32, cmd: &str) -> Option<Vec<u8>> {
        self.send(&packet(OPEN, id, 0, format!("shell:{cmd}\0").as_bytes()));
        let mut out = Vec::new();
        loop {
            let (c, a0, _, payload) = self.read()?;
            match c {
                WRTE => {
                    out.extend_from_slice(&payload);
                    self.send(&packet(OKAY, id, a0, &[]));
                }
                CLSE => return Some(out),
                _ => {}
            }
        }
    }

    /// True once the device has closed the connection (EOF).
    pub fn is_closed(&mut self) -> bool {
        let mut buf = [0u8; 64];
        loop {
            match self.stream.read(&mut buf) {
                Ok(0) => return true,
                Ok(_) => continue,
                Err(_) => return false,
            }
        }
    }
}
