//! An hdc client: the host-server protocol of the OpenHarmony Device Connector over
//! one TCP connection per command, on the standard library alone. The server listens
//! on 127.0.0.1:8710 (`OHOS_HDC_SERVER_PORT` moves it); every message is a frame (a
//! big-endian u32 length, then the bytes); the server opens with its channel
//! handshake (`"OHOS HDC"` …), the client answers with the banner and the connect key
//! that picks the target (`any`: the only one), sends one command, and reads frames
//! until the server closes the connection. Shell commands also print an end marker
//! with the exit status, which servers that keep the connection open need and which
//! gives the status hdc itself drops.
//!
//! Every connection, read and write is bounded by the device's timeout (narrowed by a
//! snippet's deadline); a frame over 16 MiB or a reply over 64 MiB is refused, never
//! buffered. Not here: what the commands mean for a phone (`mod.rs`).

pub use crate::device::errors::hdc::HdcError;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// The default port of the hdc server.
pub const DEFAULT_PORT: u16 = 8710;
/// The handshake's length without its version field, which every server accepts.
const HANDSHAKE_LEN: usize = 44;
/// The connect key fills at most 32 bytes of the handshake, with its NUL.
const MAX_KEY: usize = 32;
/// The largest frame read: servers send at most 511 KiB.
const MAX_FRAME: usize = 16 * 1024 * 1024;
/// The most of one reply read: a screenshot of a large tablet fits.
const MAX_REPLY: usize = 64 * 1024 * 1024;
/// Printed after each shell command, with its exit status.
const END_MARKER: &str = "__codeact_hdc_end_";

/// The hdc server's address: 127.0.0.1 and `OHOS_HDC_SERVER_PORT`, else 8710.
pub fn server_address() -> Result<String, HdcError> {
    match std::env::var("OHOS_HDC_SERVER_PORT") {
        Ok(p) if !p.trim().is_empty() => {
            let port = p.trim();
            let digits = port.len() <= 5 && port.chars().all(|c| c.is_ascii_digit());
            match port.parse::<u16>() {
                Ok(n) if digits && n > 0 => Ok(format!("127.0.0.1:{n}")),
                _ => Err(HdcError::BadPort(p)),
            }
        }
        _ => Ok(format!("127.0.0.1:{DEFAULT_PORT}")),
    }
}

/// One hdc server and the target its commands go to.
pub struct HdcClient {
    server: String,
    /// The connect key: `any`, a target's key, or empty for the server's own commands.
    key: String,
    pub timeout: Duration,
    pub deadline: Option<Instant>,
}

/// A shell command's output and exit status (when the end marker came back).
pub struct ShellReply {
    pub output: Vec<u8>,
    pub status: Option<i32>,
}

impl HdcClient {
    pub fn new(server: &str, key: &str, timeout: Duration) -> Result<Self, HdcError> {
        if key.len() >= MAX_KEY || key.contains('\0') {
            return Err(HdcError::KeyTooLong(key.to_string()));
        }
        Ok(Self { server: server.to_string(), key: key.to_string(), timeout, deadline: None })
    }

    pub fn server(&self) -> &str {
        &self.server
    }

    /// When this exchange must end: the timeout, or the deadline if sooner.
    fn end(&self) -> Instant {
        let by_timeout = Instant::now() + self.timeout;
        self.deadline.map_or(by_timeout, |d| d.min(by_timeout))
    }

    /// Sends `command` and returns every byte the server sent back until it closed
    /// the connection, or until `done` says the reply is whole.
    pub fn exchange(&self, command: &str, done: &dyn Fn(&[u8]) -> bool) -> Result<Vec<u8>, HdcError> {
        let end = self.end();
        let started = Instant::now();
        let timed_out = || HdcError::Timeout { secs: started.elapsed().as_secs_f64() };
        let left = || end.checked_duration_since(Instant::now()).filter(|d| !d.is_zero());
        let unreachable = |source| HdcError::Unreachable { server: self.server.clone(), source };
        let addr: SocketAddr = self.server.to_socket_addrs().map_err(unreachable)?.next().ok_or_else(|| {
            unreachable(std::io::Error::new(std::io::ErrorKind::NotFound, "the address resolves to nothing"))
        })?;
        let mut stream =
            TcpStream::connect_timeout(&addr, left().ok_or_else(timed_out)?).map_err(|source| match source.kind() {
                std::io::ErrorKind::TimedOut => timed_out(),
                _ => unreachable(source),
            })?;
        let _ = stream.set_nodelay(true);
        let mut io = Framed { stream: &mut stream, left: &left, timed_out: &timed_out };
        let hello =
            io.read_frame()?.ok_or_else(|| HdcError::NotHdc { what: "it closed without a handshake".into() })?;
        if hello.len() < 12 || !hello.starts_with(b"OHOS HDC") {
            let start = String::from_utf8_lossy(&hello[..hello.len().min(24)]).into_owned();
            return Err(HdcError::NotHdc { what: format!("its first frame starts {start:?}") });
        }
        // The banner back (its flags kept), then the key, NUL-padded.
        let mut answer = hello[..12].to_vec();
        answer.extend_from_slice(self.key.as_bytes());
        answer.resize(HANDSHAKE_LEN, 0);
        io.write_frame(&answer)?;
        let mut line = command.as_bytes().to_vec();
        line.push(0);
        io.write_frame(&line)?;
        let mut reply = Vec::new();
        while let Some(frame) = io.read_frame()? {
            if reply.len() + frame.len() > MAX_REPLY {
                return Err(HdcError::TooLarge { limit: MAX_REPLY });
            }
            reply.extend_from_slice(&frame);
            if done(&reply) {
                break;
            }
        }
        // The server's own refusals come as one `[Fail]` text.
        if let Some(message) = reply.strip_prefix(b"[Fail]") {
            let message = String::from_utf8_lossy(message).trim().to_string();
            return Err(HdcError::Refused { message });
        }
        Ok(reply)
    }

    /// Runs `command` in the phone's shell: its output (stdout and stderr merged, as
    /// hdc merges them) and exit status.
    pub fn shell(&self, command: &str) -> Result<ShellReply, HdcError> {
        // On a line of its own, so a trailing comment or `&` cannot swallow it.
        let line = format!("shell {command}\necho {END_MARKER}$?");
        let mut reply = self.exchange(&line, &|r| ended(r).is_some())?;
        let status = ended(&reply).map(|(at, status)| {
            reply.truncate(at);
            status
        });
        Ok(ShellReply { output: reply, status })
    }
}

/// Where the end marker starts and the status it carries, when the reply ends with it.
fn ended(reply: &[u8]) -> Option<(usize, i32)> {
    let tail_from = reply.len().saturating_sub(END_MARKER.len() + 8);
    let tail = &reply[tail_from..];
    let at = tail.windows(END_MARKER.len()).rposition(|w| w == END_MARKER.as_bytes())? + tail_from;
    let rest = std::str::from_utf8(&reply[at + END_MARKER.len()..]).ok()?;
    let status = rest.strip_suffix('\n')?.trim_end_matches('\r').parse::<i32>().ok()?;
    Some((at, status))
}

/// Frames over one connection, each read and write within what is left of the time.
struct Framed<'a, L, T> {
    stream: &'a mut TcpStream,
    left: &'a L,
    timed_out: &'a T,
}

impl<L: Fn() -> Option<Duration>, T: Fn() -> HdcError> Framed<'_, L, T> {
    fn io_error(&self, e: std::io::Error) -> HdcError {
        match e.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => (self.timed_out)(),
            std::io::ErrorKind::UnexpectedEof
            | std::io::ErrorKind::ConnectionReset
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::BrokenPipe => HdcError::Closed,
            _ => HdcError::Io(e),
        }
    }

    /// Fills `buf` unless the server closes first; how much it got.
    fn fill(&mut self, buf: &mut [u8]) -> Result<usize, HdcError> {
        let mut got = 0;
        while got < buf.len() {
            let left = (self.left)().ok_or_else(|| (self.timed_out)())?;
            self.stream.set_read_timeout(Some(left)).map_err(HdcError::Io)?;
            match self.stream.read(&mut buf[got..]) {
                Ok(0) => return Ok(got),
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.io_error(e)),
            }
        }
        Ok(got)
    }

    /// The next frame; `None` when the server closed the connection between frames.
    fn read_frame(&mut self) -> Result<Option<Vec<u8>>, HdcError> {
        let mut len = [0u8; 4];
        match self.fill(&mut len)? {
            0 => return Ok(None),
            4 => {}
            _ => return Err(HdcError::Closed),
        }
        let n = u32::from_be_bytes(len) as usize;
        if n > MAX_FRAME {
            return Err(HdcError::NotHdc { what: format!("it announced a frame of {n} bytes") });
        }
        // Grown as bytes arrive: a length that lies costs nothing.
        let mut buf = Vec::with_capacity(n.min(64 * 1024));
        let mut chunk = [0u8; 16 * 1024];
        while buf.len() < n {
            let want = (n - buf.len()).min(chunk.len());
            let got = self.fill(&mut chunk[..want])?;
            buf.extend_from_slice(&chunk[..got]);
            if got < want {
                return Err(HdcError::Closed);
            }
        }
        Ok(Some(buf))
    }

    fn write_frame(&mut self, payload: &[u8]) -> Result<(), HdcError> {
        let left = (self.left)().ok_or_else(|| (self.timed_out)())?;
        self.stream.set_write_timeout(Some(left)).map_err(HdcError::Io)?;
        let len = u32::try_from(payload.len()).map_err(|_| HdcError::TooLarge { limit: u32::MAX as usize })?;
        let mut frame = Vec::with_capacity(4 + payload.len());
        frame.extend_from_slice(&len.to_be_bytes());
        frame.extend_from_slice(payload);
        self.stream.write_all(&frame).map_err(|e| self.io_error(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_end_marker_carries_the_status_and_only_at_the_end() {
        let r = format!("hello\n{END_MARKER}3\n");
        assert_eq!(ended(r.as_bytes()), Some((6, 3)));
        assert_eq!(ended(format!("{END_MARKER}0\nmore").as_bytes()), None);
        assert_eq!(ended(b"plain output\n"), None);
        assert_eq!(ended(format!("{END_MARKER}x\n").as_bytes()), None);
    }
}
