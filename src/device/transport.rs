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

use crate::adb_protocol::{A_AUTH, A_CLSE, A_CNXN, A_OKAY, A_OPEN, A_STLS, A_VERSION, A_WRTE};

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
    #[error(
        "the device uses TLS (wireless debugging); pair and connect it with `adb pair` / `adb connect`, then use its serial"
    )]
    TlsRequired,
    #[error("the device refused the service for `{0}...`")]
    Refused(String),
    #[error("the command line is {len} bytes, above the {max}-byte limit; send less at once")]
    TooLong { len: usize, max: usize },
    #[error("the adb server refused: {0}")]
    ServerFailed(String),
    #[error("protocol error: {0}")]
    Protocol(String),
    #[error("the reply exceeds {MAX_OUTPUT} bytes")]
    TooLarge,
}

/// When an operation must be over, and the budget it was given (for messages).
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    at: Instant,
    budget: Duration,
}

impl Deadline {
    pub fn after(budget: Duration) -> Self {
        Self { at: Instant::now() + budget, budget }
    }

    fn left(&self) -> Result<Duration, TransportError> {
        self.at.checked_duration_since(Instant::now()).filter(|d| !d.is_zero()).ok_or(self.expired())
    }

    fn expired(&self) -> TransportError {
        TransportError::Timeout(self.budget)
    }

    fn io(&self, e: std::io::Error) -> TransportError {
        match e.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => self.expired(),
            _ => TransportError::Disconnected,
        }
    }
}

/// Fills `buf`, re-arming the socket's timeout before every read so that a peer
/// trickling bytes cannot stretch the deadline. EOF is a disconnect, never a spin.
fn read_full(stream: &mut TcpStream, buf: &mut [u8], deadline: Deadline) -> Result<(), TransportError> {
    let mut done = 0;
    while done < buf.len() {
        stream.set_read_timeout(Some(deadline.left()?)).map_err(|e| deadline.io(e))?;
        match stream.read(&mut buf[done..]) {
            Ok(0) => return Err(TransportError::Disconnected),
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(deadline.io(e)),
        }
    }
    Ok(())
}

fn write_full(stream: &mut TcpStream, data: &[u8], deadline: Deadline) -> Result<(), TransportError> {
    let mut done = 0;
    while done < data.len() {
        stream.set_write_timeout(Some(deadline.left()?)).map_err(|e| deadline.io(e))?;
        match stream.write(&data[done..]) {
            Ok(0) => return Err(TransportError::Disconnected),
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(deadline.io(e)),
        }
    }
    Ok(())
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

/// Splits a shell-v2 byte stream into stdout, stderr and the exit code. A stream
/// without its exit packet was cut off: the device went away mid-command.
fn decode_v2(bytes: &[u8]) -> Result<ShellOutput, TransportError> {
    let mut out = ShellOutput::default();
    let mut rest = bytes;
    while !rest.is_empty() {
        let Some(header) = rest.get(..5) else {
            return Err(TransportError::Protocol("a shell packet is cut short".into()));
        };
        let len = u32::from_le_bytes([header[1], header[2], header[3], header[4]]) as usize;
        let Some(payload) = 5usize.checked_add(len).and_then(|end| rest.get(5..end)) else {
            return Err(TransportError::Protocol("a shell packet is cut short".into()));
        };
        match header[0] {
            1 => out.stdout.extend_from_slice(payload),
            2 => out.stderr.extend_from_slice(payload),
            3 => out.code = payload.first().map(|c| i32::from(*c)),
            _ => {}
        }
        rest = &rest[5 + len..];
    }
    if out.code.is_none() {
        return Err(TransportError::Disconnected);
    }
    Ok(out)
}

/// Close-stdin, so that a command reading its input sees EOF instead of waiting.
const V2_CLOSE_STDIN: [u8; 5] = [4, 0, 0, 0, 0];

fn connect(addr: &str, deadline: Deadline) -> Result<TcpStream, TransportError> {
    // Resolving names can block without bound; only literal addresses and
    // `localhost` are resolved here without DNS.
    let addr_norm = addr.replacen("localhost:", "127.0.0.1:", 1);
    let resolved: Vec<SocketAddr> = match addr_norm.parse::<SocketAddr>() {
        Ok(a) => vec![a],
        Err(_) => {
            addr.to_socket_addrs().map_err(|source| TransportError::Connect { addr: addr.into(), source })?.collect()
        }
    };
    let mut last = std::io::Error::new(std::io::ErrorKind::NotFound, "no address");
    for a in resolved {
        match TcpStream::connect_timeout(&a, deadline.left()?) {
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
    pub fn connect(addr: &str, deadline: Deadline) -> Result<Self, TransportError> {
        let stream = connect(addr, deadline)?;
        let mut conn = Self { addr: addr.into(), stream, next_id: 1, shell_v2: false, max_payload: 4096 };
        conn.send(A_CNXN, A_VERSION, MAX_PAYLOAD, b"host::features=shell_v2,cmd\0", deadline)?;
        loop {
            let (cmd, _, arg1, payload) = conn.read(deadline)?;
            match cmd {
                A_CNXN => {
                    let banner = String::from_utf8_lossy(&payload);
                    conn.shell_v2 = banner.contains("shell_v2");
                    conn.max_payload = (arg1 as usize).clamp(4096, MAX_PAYLOAD as usize);
                    return Ok(conn);
                }
                A_AUTH => return Err(TransportError::AuthRequired),
                A_STLS => return Err(TransportError::TlsRequired),
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
        deadline: Deadline,
    ) -> Result<(), TransportError> {
        let sum = payload.iter().fold(0u32, |s, b| s.wrapping_add(u32::from(*b)));
        let mut msg = Vec::with_capacity(24 + payload.len());
        for w in [cmd, arg0, arg1, payload.len() as u32, sum, cmd ^ 0xffff_ffff] {
            msg.extend_from_slice(&w.to_le_bytes());
        }
        msg.extend_from_slice(payload);
        // One write per message: no Nagle stall between header and payload.
        write_full(&mut self.stream, &msg, deadline)
    }

    fn read(&mut self, deadline: Deadline) -> Result<(u32, u32, u32, Vec<u8>), TransportError> {
        let mut h = [0u8; 24];
        read_full(&mut self.stream, &mut h, deadline)?;
        let w = |i: usize| u32::from_le_bytes([h[i * 4], h[i * 4 + 1], h[i * 4 + 2], h[i * 4 + 3]]);
        if w(5) != w(0) ^ 0xffff_ffff {
            return Err(TransportError::Protocol("bad message magic".into()));
        }
        let len = w(3) as usize;
        if len > MAX_PAYLOAD as usize {
            return Err(TransportError::Protocol(format!("a {len}-byte message, above the negotiated maximum")));
        }
        let mut payload = vec![0u8; len];
        read_full(&mut self.stream, &mut payload, deadline)?;
        Ok((w(0), w(1), w(2), payload))
    }

    /// Runs `command` and collects its output, before `deadline`.
    pub fn shell(&mut self, command: &str, deadline: Deadline) -> Result<ShellOutput, TransportError> {
        let local = self.next_id;
        self.next_id = self.next_id.wrapping_add(1).max(1);
        // Without shell v2, `exec:` keeps binary output intact (no terminal).
        let service = if self.shell_v2 { format!("shell,v2,raw:{command}\0") } else { format!("exec:{command}\0") };
        if service.len() > self.max_payload {
            return Err(TransportError::TooLong { len: service.len(), max: self.max_payload });
        }
        self.send(A_OPEN, local, 0, service.as_bytes(), deadline)?;
        let mut bytes = Vec::new();
        let mut remote = None;
        loop {
            let (cmd, arg0, arg1, payload) = self.read(deadline)?;
            if arg1 != local {
                continue; // a stray message for an older stream
            }
            match cmd {
                A_OKAY if remote.is_none() => {
                    remote = Some(arg0);
                    if self.shell_v2 {
                        let close = V2_CLOSE_STDIN;
                        self.send(A_WRTE, local, arg0, &close, deadline)?;
                    }
                }
                A_WRTE => {
                    if bytes.len() + payload.len() > MAX_OUTPUT {
                        return Err(TransportError::TooLarge);
                    }
                    bytes.extend_from_slice(&payload);
                    self.send(A_OKAY, local, arg0, &[], deadline)?;
                }
                A_CLSE if remote.is_none() => return Err(TransportError::Refused(command.chars().take(40).collect())),
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
    /// Whether the device speaks shell v2 (asked once).
    shell_v2: Option<bool>,
}

/// The adb server aborts on service names above the device's payload limit (4096 on
/// old devices), so longer command lines are refused here first.
const SERVER_MAX_REQUEST: usize = 4000;

fn server_request(stream: &mut TcpStream, request: &str, deadline: Deadline) -> Result<(), TransportError> {
    if request.len() > SERVER_MAX_REQUEST {
        return Err(TransportError::TooLong { len: request.len(), max: SERVER_MAX_REQUEST });
    }
    let msg = format!("{:04x}{request}", request.len());
    write_full(stream, msg.as_bytes(), deadline)?;
    let mut status = [0u8; 4];
    read_full(stream, &mut status, deadline)?;
    match &status {
        b"OKAY" => Ok(()),
        b"FAIL" => Err(TransportError::ServerFailed(read_hex_string(stream, deadline)?)),
        other => Err(TransportError::Protocol(format!("adb server said {:?}", String::from_utf8_lossy(other)))),
    }
}

fn read_hex_string(stream: &mut TcpStream, deadline: Deadline) -> Result<String, TransportError> {
    let mut len = [0u8; 4];
    read_full(stream, &mut len, deadline)?;
    let len = usize::from_str_radix(&String::from_utf8_lossy(&len), 16)
        .map_err(|_| TransportError::Protocol("bad length from the adb server".into()))?;
    let mut body = vec![0u8; len];
    read_full(stream, &mut body, deadline)?;
    Ok(String::from_utf8_lossy(&body).into_owned())
}

/// One line of `adb devices -l` as the server reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedDevice {
    pub serial: String,
    pub state: String,
    pub model: String,
}

/// `SERIAL  STATE [key:value...]`; the state may be several words
/// (`no permissions (...)`).
fn parse_device_line(line: &str) -> Option<ListedDevice> {
    let mut words = line.split_whitespace();
    let serial = words.next()?.to_string();
    let rest: Vec<&str> = words.collect();
    let is_property = |w: &&str| {
        w.split_once(':').is_some_and(|(k, _)| !k.is_empty() && k.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
    };
    let state_end = rest.iter().position(is_property).unwrap_or(rest.len());
    let state = rest[..state_end].join(" ");
    if state.is_empty() {
        return None;
    }
    let model = rest[state_end..].iter().find_map(|w| w.strip_prefix("model:")).unwrap_or("").to_string();
    Some(ListedDevice { serial, state, model })
}

impl ServerConnection {
    pub fn new(server: &str, serial: &str) -> Self {
        Self { server: server.into(), serial: serial.into(), shell_v2: None }
    }

    pub fn serial(&self) -> &str {
        &self.serial
    }

    /// The devices the server sees, with their state and model.
    pub fn list(server: &str, deadline: Deadline) -> Result<Vec<ListedDevice>, TransportError> {
        let mut stream = connect(server, deadline)?;
        server_request(&mut stream, "host:devices-l", deadline)?;
        let text = read_hex_string(&mut stream, deadline)?;
        Ok(text.lines().filter_map(parse_device_line).collect())
    }

    fn features(&self, deadline: Deadline) -> Result<String, TransportError> {
        let mut stream = connect(&self.server, deadline)?;
        server_request(&mut stream, &format!("host-serial:{}:features", self.serial), deadline)?;
        read_hex_string(&mut stream, deadline)
    }

    pub fn shell(&mut self, command: &str, deadline: Deadline) -> Result<ShellOutput, TransportError> {
        let v2 = match self.shell_v2 {
            Some(v) => v,
            None => {
                let v = self.features(deadline)?.split(',').any(|f| f == "shell_v2");
                self.shell_v2 = Some(v);
                v
            }
        };
        let mut stream = connect(&self.server, deadline)?;
        server_request(&mut stream, &format!("host:transport:{}", self.serial), deadline)?;
        let service = if v2 { format!("shell,v2,raw:{command}") } else { format!("exec:{command}") };
        server_request(&mut stream, &service, deadline)?;
        if v2 {
            write_full(&mut stream, &V2_CLOSE_STDIN, deadline)?;
        }
        let mut bytes = Vec::new();
        let mut buf = [0u8; 64 * 1024];
        loop {
            stream.set_read_timeout(Some(deadline.left()?)).map_err(|e| deadline.io(e))?;
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    if bytes.len() + n > MAX_OUTPUT {
                        return Err(TransportError::TooLarge);
                    }
                    bytes.extend_from_slice(&buf[..n]);
                    // The exit packet ends the command; do not wait for the close.
                    if v2 && ends_with_exit(&bytes) {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(deadline.io(e)),
            }
        }
        if v2 { decode_v2(&bytes) } else { Ok(ShellOutput { stdout: bytes, stderr: Vec::new(), code: None }) }
    }
}

/// True once the v2 stream holds complete packets ending with an exit packet.
fn ends_with_exit(bytes: &[u8]) -> bool {
    let mut rest = bytes;
    let mut last = None;
    while rest.len() >= 5 {
        let len = u32::from_le_bytes([rest[1], rest[2], rest[3], rest[4]]) as usize;
        let Some(end) = 5usize.checked_add(len).filter(|e| *e <= rest.len()) else { return false };
        last = Some(rest[0]);
        rest = &rest[end..];
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
        assert!(matches!(decode_v2(&[1, 1, 0, 0, 0, b'x']), Err(TransportError::Disconnected)), "no exit packet");
        let d =
            parse_device_line("0123456789ABCDEF  no permissions (missing udev rules?) usb:1-1 transport_id:3").unwrap();
        assert_eq!(d.state, "no permissions (missing udev rules?)");
        let d = parse_device_line("emulator-5554 device product:sdk model:Pixel_7 device:emu transport_id:1").unwrap();
        assert_eq!((d.state.as_str(), d.model.as_str()), ("device", "Pixel_7"));
    }
}
