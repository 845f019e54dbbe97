//! A connection straight to a device's adbd over TCP (no AUTH: emulators,
//! `ro.adb.secure=0` devices and the virtual device): the CNXN handshake, then one
//! stream per command, with a deadline on every read and write.

use std::net::TcpStream;

use adb_wire::message::{A_AUTH, A_CLSE, A_CNXN, A_OKAY, A_OPEN, A_STLS, A_VERSION, A_WRTE, HEADER_LEN, Header};

use super::wire::{Deadline, close_stdin, connect, output_of_v2, read_full, take_pulled, write_full};

use super::held::HeldStream;

use crate::device::errors::transport::{MAX_OUTPUT, TransportError};

use crate::device::shell::ShellOutput;

/// The largest payload this client accepts.
const MAX_PAYLOAD: u32 = 256 * 1024;

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
        // One write per message: no Nagle stall between header and payload.
        write_full(&mut self.stream, &adb_wire::message::encode(cmd, arg0, arg1, payload), deadline)
    }

    fn read(&mut self, deadline: Deadline) -> Result<(u32, u32, u32, Vec<u8>), TransportError> {
        let mut bytes = [0u8; HEADER_LEN];
        read_full(&mut self.stream, &mut bytes, deadline)?;
        let header = Header::decode(&bytes)?;
        let len = header.len as usize;
        if len > MAX_PAYLOAD as usize {
            return Err(TransportError::Oversized { len });
        }
        let mut payload = vec![0u8; len];
        read_full(&mut self.stream, &mut payload, deadline)?;
        Ok((header.command, header.arg0, header.arg1, payload))
    }

    /// Opens `service` as a stream, writes `first` once it is open, and hands what
    /// the device writes to `take` (each message acknowledged) until the device
    /// closes the stream (`Ok(false)`) or `take` has what it wants (`Ok(true)`: the
    /// stream is closed here; its last messages are strays for later reads).
    /// `label` names the service when the device refuses it.
    fn stream(
        &mut self,
        service: &[u8],
        first: Option<&[u8]>,
        label: &str,
        deadline: Deadline,
        mut take: impl FnMut(&[u8]) -> Result<bool, TransportError>,
    ) -> Result<bool, TransportError> {
        if service.len() > self.max_payload {
            return Err(TransportError::TooLong { len: service.len(), max: self.max_payload });
        }
        let local = self.next_id;
        self.next_id = self.next_id.wrapping_add(1).max(1);
        self.send(A_OPEN, local, 0, service, deadline)?;
        let mut remote = None;
        // What is left to write: a piece of at most the payload limit per OKAY, as
        // the protocol allows one unacknowledged write per stream.
        let mut pending = first.unwrap_or_default();
        loop {
            let (cmd, arg0, arg1, payload) = self.read(deadline)?;
            if arg1 != local {
                continue; // a stray message for an older stream
            }
            match cmd {
                A_OKAY => {
                    remote = Some(arg0);
                    if !pending.is_empty() {
                        let n = pending.len().min(self.max_payload);
                        self.send(A_WRTE, local, arg0, &pending[..n], deadline)?;
                        pending = &pending[n..];
                    }
                }
                A_WRTE => {
                    self.send(A_OKAY, local, arg0, &[], deadline)?;
                    if take(&payload)? {
                        self.send(A_CLSE, local, arg0, &[], deadline)?;
                        return Ok(true);
                    }
                }
                A_CLSE if remote.is_none() => return Err(TransportError::Refused(label.chars().take(40).collect())),
                A_CLSE => return Ok(false),
                _ => {}
            }
        }
    }

    /// Opens a stream to what listens on device port `port` (`tcp:PORT`, as `adb
    /// forward` does), writes `request`, and hands what comes back to `take` until
    /// it has what it wants (`Ok(true)`) or the device closes the stream
    /// (`Ok(false)`). Nothing listening is [`TransportError::Refused`].
    pub fn tcp(
        &mut self,
        port: u16,
        request: &[u8],
        deadline: Deadline,
        take: impl FnMut(&[u8]) -> Result<bool, TransportError>,
    ) -> Result<bool, TransportError> {
        let service = format!("tcp:{port}\0");
        self.stream(service.as_bytes(), Some(request), &format!("tcp:{port}"), deadline, take)
    }

    /// Opens `service` on this connection and gives the connection to a
    /// [`HeldStream`] that keeps it open (reading what comes) until dropped.
    pub fn hold(mut self, service: &str, deadline: Deadline) -> Result<HeldStream, TransportError> {
        let local = self.next_id;
        self.send(A_OPEN, local, 0, format!("{service}\0").as_bytes(), deadline)?;
        let remote = loop {
            let (cmd, arg0, arg1, _) = self.read(deadline)?;
            match cmd {
                A_OKAY if arg1 == local => break arg0,
                A_CLSE if arg1 == local => return Err(TransportError::Refused(service.chars().take(40).collect())),
                _ => {}
            }
        };
        let stop = self.stream.try_clone().map_err(|_| TransportError::Disconnected)?;
        Ok(HeldStream::start(stop, move |output| {
            // No deadline: the stream lives until the device closes it or the
            // holder shuts the socket.
            let forever = Deadline::after(std::time::Duration::from_secs(365 * 24 * 3600));
            while let Ok((cmd, _, arg1, payload)) = self.read(forever) {
                if arg1 != local {
                    continue;
                }
                match cmd {
                    A_WRTE => {
                        output(&payload);
                        if self.send(A_OKAY, local, remote, &[], forever).is_err() {
                            break;
                        }
                    }
                    A_CLSE => break,
                    _ => {}
                }
            }
        }))
    }

    /// Runs `command` and collects its output, before `deadline`.
    pub fn shell(&mut self, command: &str, deadline: Deadline) -> Result<ShellOutput, TransportError> {
        // Without shell v2, `exec:` keeps binary output intact (no terminal).
        let service = if self.shell_v2 { format!("shell,v2,raw:{command}\0") } else { format!("exec:{command}\0") };
        let stdin_closed = close_stdin();
        let first = self.shell_v2.then_some(stdin_closed.as_slice());
        let mut bytes = Vec::new();
        self.stream(service.as_bytes(), first, command, deadline, |payload| {
            if bytes.len() + payload.len() > MAX_OUTPUT {
                return Err(TransportError::TooLarge);
            }
            bytes.extend_from_slice(payload);
            Ok(false)
        })?;
        if self.shell_v2 {
            output_of_v2(&bytes)
        } else {
            Ok(ShellOutput { stdout: bytes, stderr: Vec::new(), code: None })
        }
    }

    /// Copies the file at `path` on the device into `into` over the `sync:` service
    /// (what `adb pull` does), at most `limit` bytes; returns its size.
    pub fn pull(
        &mut self,
        path: &str,
        into: &mut dyn std::io::Write,
        limit: u64,
        deadline: Deadline,
    ) -> Result<u64, TransportError> {
        let request = adb_wire::sync::recv_request(path);
        let mut decoder = adb_wire::sync::RecvDecoder::default();
        let mut written = 0u64;
        let whole = self.stream(b"sync:\0", Some(&request), "sync:", deadline, |payload| {
            take_pulled(&mut decoder, payload, path, into, &mut written, limit)
        })?;
        // The device closing before the file ended is a lost connection.
        if whole { Ok(written) } else { Err(TransportError::Disconnected) }
    }
}
