//! Running shell commands on an Android device over ADB, with a deadline on every
//! read and write: directly over TCP (the device's adbd, e.g. the virtual device or
//! an emulator) or through the adb server (USB and `adb connect` devices).
//!
//! Written here rather than on adb_client because that crate sets no read timeouts,
//! busy-spins when a device disconnects, waits 20 ms after every command, and loses
//! exit codes over TCP (see ../shared/reference/crate-notes.md). Both paths use shell
//! protocol v2 when the device offers it, so exit codes and stderr come back apart.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

const A_CNXN: u32 = 0x4e58_4e43;
const A_AUTH: u32 = 0x4854_5541;
const A_OPEN: u32 = 0x4e45_504f;
const A_OKAY: u32 = 0x5941_4b4f;
const A_CLSE: u32 = 0x4553_4c43;
const A_WRTE: u32 = 0x4554_5257;
const A_VERSION: u32 = 0x0100_0001;
const MAX_PAYLOAD: u32 = 256 * 1024;
/// Refuse replies larger than this (a screenshot is ~10 MB raw at most as PNG).
const MAX_OUTPUT: usize = 256 * 1024 * 1024;

/// Why a command could not be run. The caller adds which device and operation.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error("cannot connect to {addr}: {source}")]
    Connect { addr: String, source: std::io::Error },
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    #[error("the connection was closed")]
    Disconnected,
    #[error(
        "the device asks for ADB authorization; connect it through the adb server (`adb connect HOST:PORT`, accept the prompt on the phone) and use its serial"
    )]
    AuthRequired,
    #[error("the adb server refused: {0}")]
    ServerFailed(String),
    #[error("protocol error: {0}")]
    Protocol(String),
    #[error("the reply exceeds {MAX_OUTPUT} bytes")]
    TooLarge,
}

fn io_error(e: std::io::Error, timeout: Duration) -> TransportError {
    match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => TransportError::Timeout(timeout),
        _ => TransportError::Disconnected,
    }
}

/// What a command printed and how it exited (`None` when the device cannot say).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellOutput {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub code: Option<i32>,
}

impl ShellOutput {
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// Splits a shell-v2 byte stream into stdout, stderr and the exit code.
fn decode_v2(bytes: &[u8]) -> Result<ShellOutput, TransportError> {
    let mut out = ShellOutput::default();
    let mut rest = bytes;
    while rest.len() >= 5 {
        let len = u32::from_le_bytes([rest[1], rest[2], rest[3], rest[4]]) as usize;
        let Some(payload) = rest.get(5..5 + len) else {
            return Err(TransportError::Protocol("a shell packet is cut short".into()));
        };
        match rest[0] {
            1 => out.stdout.extend_from_slice(payload),
            2 => out.stderr.extend_from_slice(payload),
            3 => out.code = payload.first().map(|c| i32::from(*c)),
            _ => {}
        }
        rest = &rest[5 + len..];
    }
    Ok(out)
}

/// Sets the socket's timeouts to what is left before `deadline`.
fn arm(stream: &TcpStream, deadline: Instant, timeout: Duration) -> Result<(), TransportError> {
    let left = deadline.checked_duration_since(Instant::now()).filter(|d| !d.is_zero());
    let left = left.ok_or(TransportError::Timeout(timeout))?;
    stream.set_read_timeout(Some(left)).map_err(|e| io_error(e, timeout))?;
    stream.set_write_timeout(Some(left)).map_err(|e| io_error(e, timeout))
}

fn connect(addr: &str, timeout: Duration) -> Result<TcpStream, TransportError> {
    let resolved: Vec<SocketAddr> =
        addr.to_socket_addrs().map_err(|source| TransportError::Connect { addr: addr.into(), source })?.collect();
    let mut last = std::io::Error::new(std::io::ErrorKind::NotFound, "no address");
    for a in resolved {
        match TcpStream::connect_timeout(&a, timeout) {
            Ok(s) => {
                let _ = s.set_nodelay(true);
                return Ok(s);
            }
            Err(e) => last = e,
        }
    }
    Err(TransportError::Connect { addr: addr.into(), source: last })
}

/// A persistent connection straight to a device's adbd (no AUTH: emulators,
/// `ro.adb.secure=0` devices and the virtual device).
pub struct DirectConnection {
    addr: String,
    stream: TcpStream,
    next_id: u32,
    shell_v2: bool,
    max_payload: usize,
}

impl DirectConnection {
    pub fn connect(addr: &str, timeout: Duration) -> Result<Self, TransportError> {
        let stream = connect(addr, timeout)?;
        let mut conn = Self { addr: addr.into(), stream, next_id: 1, shell_v2: false, max_payload: 4096 };
        let deadline = Instant::now() + timeout;
        conn.send(A_CNXN, A_VERSION, MAX_PAYLOAD, b"host::features=shell_v2,cmd\0", deadline, timeout)?;
        loop {
            let (cmd, _, arg1, payload) = conn.read(deadline, timeout)?;
            match cmd {
                A_CNXN => {
                    let banner = String::from_utf8_lossy(&payload);
                    conn.shell_v2 = banner.contains("shell_v2");
                    conn.max_payload = (arg1 as usize).clamp(4096, MAX_PAYLOAD as usize);
                    return Ok(conn);
                }
                A_AUTH => return Err(TransportError::AuthRequired),
                _ => {}
            }
        }
    }

    pub fn addr(&self) -> &str {
        &self.addr
    }

    fn send(
        &mut self,
        cmd: u32,
        arg0: u32,
        arg1: u32,
        payload: &[u8],
        deadline: Instant,
        timeout: Duration,
    ) -> Result<(), TransportError> {
        arm(&self.stream, deadline, timeout)?;
        let sum = payload.iter().fold(0u32, |s, b| s.wrapping_add(u32::from(*b)));
        let mut msg = Vec::with_capacity(24 + payload.len());
        for w in [cmd, arg0, arg1, payload.len() as u32, sum, cmd ^ 0xffff_ffff] {
            msg.extend_from_slice(&w.to_le_bytes());
        }
        msg.extend_from_slice(payload);
        // One write per message: no Nagle stall between header and payload.
        self.stream.write_all(&msg).map_err(|e| io_error(e, timeout))
    }

    fn read(&mut self, deadline: Instant, timeout: Duration) -> Result<(u32, u32, u32, Vec<u8>), TransportError> {
        arm(&self.stream, deadline, timeout)?;
        let mut h = [0u8; 24];
        self.stream.read_exact(&mut h).map_err(|e| io_error(e, timeout))?;
        let w = |i: usize| u32::from_le_bytes([h[i * 4], h[i * 4 + 1], h[i * 4 + 2], h[i * 4 + 3]]);
        if w(5) != w(0) ^ 0xffff_ffff {
            return Err(TransportError::Protocol("bad message magic".into()));
        }
        let len = w(3) as usize;
        if len > 16 * 1024 * 1024 {
            return Err(TransportError::Protocol(format!("a {len}-byte message")));
        }
        let mut payload = vec![0u8; len];
        self.stream.read_exact(&mut payload).map_err(|e| io_error(e, timeout))?;
        Ok((w(0), w(1), w(2), payload))
    }

    /// Runs `command` and collects its output, within `timeout`.
    pub fn shell(&mut self, command: &str, timeout: Duration) -> Result<ShellOutput, TransportError> {
        let deadline = Instant::now() + timeout;
        let local = self.next_id;
        self.next_id = self.next_id.wrapping_add(1).max(1);
        let service = if self.shell_v2 { format!("shell,v2,raw:{command}\0") } else { format!("shell:{command}\0") };
        self.send(A_OPEN, local, 0, service.as_bytes(), deadline, timeout)?;
        let mut bytes = Vec::new();
        loop {
            let (cmd, arg0, arg1, payload) = self.read(deadline, timeout)?;
            if arg1 != local {
                continue; // a stray message for an older stream
            }
            match cmd {
                A_WRTE => {
                    if bytes.len() + payload.len() > MAX_OUTPUT {
                        return Err(TransportError::TooLarge);
                    }
                    bytes.extend_from_slice(&payload);
                    self.send(A_OKAY, local, arg0, &[], deadline, timeout)?;
                }
                A_CLSE => break,
                _ => {}
            }
        }
        if self.shell_v2 {
            decode_v2(&bytes)
        } else {
            Ok(ShellOutput { stdout: bytes, stderr: Vec::new(), code: None })
        }
    }
}

/// A device reached through the adb server's smart-socket protocol.
pub struct ServerConnection {
    server: String,
    serial: String,
}

fn server_request(stream: &mut TcpStream, request: &str, timeout: Duration) -> Result<(), TransportError> {
    let msg = format!("{:04x}{request}", request.len());
    stream.write_all(msg.as_bytes()).map_err(|e| io_error(e, timeout))?;
    let mut status = [0u8; 4];
    stream.read_exact(&mut status).map_err(|e| io_error(e, timeout))?;
    match &status {
        b"OKAY" => Ok(()),
        b"FAIL" => Err(TransportError::ServerFailed(read_hex_string(stream, timeout)?)),
        other => Err(TransportError::Protocol(format!("adb server said {:?}", String::from_utf8_lossy(other)))),
    }
}

fn read_hex_string(stream: &mut TcpStream, timeout: Duration) -> Result<String, TransportError> {
    let mut len = [0u8; 4];
    stream.read_exact(&mut len).map_err(|e| io_error(e, timeout))?;
    let len = usize::from_str_radix(&String::from_utf8_lossy(&len), 16)
        .map_err(|_| TransportError::Protocol("bad length from the adb server".into()))?;
    let mut body = vec![0u8; len];
    stream.read_exact(&mut body).map_err(|e| io_error(e, timeout))?;
    Ok(String::from_utf8_lossy(&body).into_owned())
}

/// One line of `adb devices -l` as the server reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedDevice {
    pub serial: String,
    pub state: String,
    pub model: String,
}

impl ServerConnection {
    pub fn new(server: &str, serial: &str) -> Self {
        Self { server: server.into(), serial: serial.into() }
    }

    pub fn serial(&self) -> &str {
        &self.serial
    }

    /// The devices the server sees, with their state and model.
    pub fn list(server: &str, timeout: Duration) -> Result<Vec<ListedDevice>, TransportError> {
        let mut stream = connect(server, timeout)?;
        arm(&stream, Instant::now() + timeout, timeout)?;
        server_request(&mut stream, "host:devices-l", timeout)?;
        let text = read_hex_string(&mut stream, timeout)?;
        Ok(text
            .lines()
            .filter_map(|line| {
                let mut words = line.split_whitespace();
                let serial = words.next()?.to_string();
                let state = words.next()?.to_string();
                let model = words.find_map(|w| w.strip_prefix("model:")).unwrap_or("").to_string();
                Some(ListedDevice { serial, state, model })
            })
            .collect())
    }

    pub fn shell(&mut self, command: &str, timeout: Duration) -> Result<ShellOutput, TransportError> {
        let mut stream = connect(&self.server, timeout)?;
        let deadline = Instant::now() + timeout;
        arm(&stream, deadline, timeout)?;
        server_request(&mut stream, &format!("host:transport:{}", self.serial), timeout)?;
        server_request(&mut stream, &format!("shell,v2,raw:{command}"), timeout)?;
        let mut bytes = Vec::new();
        let mut buf = [0u8; 64 * 1024];
        loop {
            arm(&stream, deadline, timeout)?;
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    if bytes.len() + n > MAX_OUTPUT {
                        return Err(TransportError::TooLarge);
                    }
                    bytes.extend_from_slice(&buf[..n]);
                    // The exit packet ends the command; do not wait for the close.
                    if ends_with_exit(&bytes) {
                        break;
                    }
                }
                Err(e) => return Err(io_error(e, timeout)),
            }
        }
        decode_v2(&bytes)
    }
}

/// True once the v2 stream holds complete packets ending with an exit packet.
fn ends_with_exit(bytes: &[u8]) -> bool {
    let mut rest = bytes;
    let mut last = None;
    while rest.len() >= 5 {
        let len = u32::from_le_bytes([rest[1], rest[2], rest[3], rest[4]]) as usize;
        if rest.len() < 5 + len {
            return false;
        }
        last = Some(rest[0]);
        rest = &rest[5 + len..];
    }
    rest.is_empty() && last == Some(3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_shell_v2_streams() {
        let mut bytes = vec![1, 3, 0, 0, 0, b'a', b'b', b'c', 2, 1, 0, 0, 0, b'e'];
        assert!(!ends_with_exit(&bytes));
        bytes.extend_from_slice(&[3, 1, 0, 0, 0, 127]);
        assert!(ends_with_exit(&bytes));
        let out = decode_v2(&bytes).unwrap();
        assert_eq!((out.stdout.as_slice(), out.stderr.as_slice(), out.code), (&b"abc"[..], &b"e"[..], Some(127)));
        assert!(decode_v2(&[1, 9, 0, 0, 0, b'x']).is_err());
    }
}
