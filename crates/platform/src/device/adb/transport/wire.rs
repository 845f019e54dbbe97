//! What both ways of reaching adbd share: the transport's errors, a deadline on every
//! read and write, reading the shell protocol v2's output, and opening a socket.
//! Not a connection (`direct.rs`, `server.rs`).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use adb_wire::shell_v2::{self, Collected};

use crate::device::errors::transport::TransportError;
use crate::device::shell::ShellOutput;

/// Feeds a RECV reply's bytes to `into`, at most `limit` bytes; `Ok(true)` once the
/// whole file is in.
pub(super) fn take_pulled(
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
pub(super) fn output_of_v2(bytes: &[u8]) -> Result<ShellOutput, TransportError> {
    let collected = Collected::from_stream(bytes)?;
    finished(collected)
}

/// The output of a command whose packets are all in: it must have exited.
pub(super) fn finished(collected: Collected) -> Result<ShellOutput, TransportError> {
    let Collected { stdout, stderr, exit } = collected;
    let code = exit.ok_or(TransportError::Disconnected)?;
    Ok(ShellOutput { stdout, stderr, code: Some(i32::from(code)) })
}

/// Close-stdin, so that a command reading its input sees EOF instead of waiting.
pub(super) fn close_stdin() -> Vec<u8> {
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
