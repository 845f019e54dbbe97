//! Running shell commands on an Android device over ADB, with a deadline on every
//! read and write: directly over TCP (the device's adbd, e.g. the virtual device or
//! an emulator) or through the adb server (USB and `adb connect` devices).
//!
//! Written here rather than on adb_client because that crate sets no read timeouts,
//! busy-spins when a device disconnects, waits 20 ms after every command, and loses
//! exit codes over TCP. Both paths use shell protocol v2 when the device offers it,
//! so exit codes and stderr come back apart. The bytes on the wire are `adb_wire`'s,
//! shared with the virtual device; this module adds sockets and deadlines.

mod direct;
mod held;
mod server;

pub use crate::device::shell::ShellOutput;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use adb_wire::shell_v2::{self, Collected};

pub use direct::DirectConnection;
pub use held::HeldStream;
pub use server::{ListedDevice, ServerConnection};

/// Refuse replies larger than this (a screenshot is ~10 MB raw at most as PNG).
const MAX_OUTPUT: usize = 256 * 1024 * 1024;

/// Why a command could not be run. The caller adds which device and operation.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error("cannot connect to {addr}")]
    Connect {
        addr: String,
        #[source]
        source: std::io::Error,
    },
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
    /// The adb server's own words for why it refused.
    #[error("the adb server refused: {0}")]
    ServerFailed(String),
    #[error("the device sent a bad message header")]
    BadHeader(#[from] adb_wire::message::HeaderError),
    #[error("the device sent a {len}-byte message, above the negotiated maximum")]
    Oversized { len: usize },
    #[error("a shell packet is cut short")]
    CutShort(#[from] shell_v2::CutShort),
    #[error("the adb server answered {0:?} instead of OKAY or FAIL")]
    BadServerStatus(String),
    #[error("the adb server sent a bad length")]
    BadServerLength,
    #[error("the reply exceeds {MAX_OUTPUT} bytes")]
    TooLarge,
    /// `sync:` RECV refused, in the device's words (`No such file or directory`…).
    #[error("the device cannot send {path}: {said}")]
    PullFailed { path: String, said: String },
    #[error("the file transfer broke the sync protocol")]
    Sync(#[from] adb_wire::sync::SyncError),
    #[error("the file is larger than {limit} bytes")]
    FileTooLarge { limit: u64 },
    #[error("cannot write the pulled file here")]
    WriteLocal(#[source] std::io::Error),
}

/// Feeds a RECV reply's bytes to `into`, at most `limit` bytes; `Ok(true)` once the
/// whole file is in.
fn take_pulled(
    decoder: &mut adb_wire::sync::RecvDecoder,
    bytes: &[u8],
    path: &str,
    into: &mut dyn Write,
    written: &mut u64,
    limit: u64,
) -> Result<bool, TransportError> {
    use adb_wire::sync::RecvEvent;
    decoder.push(bytes);
    while let Some(event) = decoder.next_event()? {
        match event {
            RecvEvent::Data(chunk) => {
                *written += chunk.len() as u64;
                if *written > limit {
                    return Err(TransportError::FileTooLarge { limit });
                }
                into.write_all(&chunk).map_err(TransportError::WriteLocal)?;
            }
            RecvEvent::Done => return Ok(true),
            RecvEvent::Fail(said) => {
                return Err(TransportError::PullFailed {
                    path: path.into(),
                    said: codeact_base::clip::clip(&said, 200).into_owned(),
                });
            }
        }
    }
    Ok(false)
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

    pub(crate) fn left(&self) -> Result<Duration, TransportError> {
        self.at.checked_duration_since(Instant::now()).filter(|d| !d.is_zero()).ok_or(self.expired())
    }

    fn expired(&self) -> TransportError {
        TransportError::Timeout(self.budget)
    }

    pub(crate) fn io(&self, e: std::io::Error) -> TransportError {
        match e.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => self.expired(),
            _ => TransportError::Disconnected,
        }
    }
}

/// Fills `buf`, re-arming the socket's timeout before every read so that a peer
/// trickling bytes cannot stretch the deadline. EOF is a disconnect, never a spin.
pub(crate) fn read_full(stream: &mut TcpStream, buf: &mut [u8], deadline: Deadline) -> Result<(), TransportError> {
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

pub(crate) fn write_full(stream: &mut TcpStream, data: &[u8], deadline: Deadline) -> Result<(), TransportError> {
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

/// Stdout, stderr and the exit code of a whole shell-v2 stream. A stream without
/// its exit packet was cut off: the device went away mid-command.
fn output_of_v2(bytes: &[u8]) -> Result<ShellOutput, TransportError> {
    let collected = Collected::from_stream(bytes)?;
    finished(collected)
}

/// The output of a command whose packets are all in: it must have exited.
fn finished(collected: Collected) -> Result<ShellOutput, TransportError> {
    let Collected { stdout, stderr, exit } = collected;
    let code = exit.ok_or(TransportError::Disconnected)?;
    Ok(ShellOutput { stdout, stderr, code: Some(i32::from(code)) })
}

/// Close-stdin, so that a command reading its input sees EOF instead of waiting.
fn close_stdin() -> Vec<u8> {
    shell_v2::packet(shell_v2::CLOSE_STDIN, &[])
}

pub(crate) fn connect(addr: &str, deadline: Deadline) -> Result<TcpStream, TransportError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_v2_streams_must_end_with_their_exit_code() {
        let mut bytes = shell_v2::packet(shell_v2::STDOUT, b"abc");
        bytes.extend(shell_v2::packet(shell_v2::STDERR, b"e"));
        bytes.extend(shell_v2::packet(shell_v2::EXIT, &[127]));
        let out = output_of_v2(&bytes).unwrap();
        assert_eq!((out.stdout.as_slice(), out.stderr.as_slice(), out.code), (&b"abc"[..], &b"e"[..], Some(127)));
        assert!(matches!(output_of_v2(&[1, 9, 0, 0, 0, b'x']), Err(TransportError::CutShort(_))));
        assert!(matches!(output_of_v2(&[1, 1, 0, 0, 0, b'x']), Err(TransportError::Disconnected)), "no exit packet");
    }
}
