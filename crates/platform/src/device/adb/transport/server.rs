//! A device reached through the adb server's smart-socket protocol (USB phones and
//! `adb connect` devices): `host:transport:SERIAL`, then the service, on a new socket
//! per command as adb itself does; and `host:devices-l` for what the server sees.

use std::io::Read;
use std::net::TcpStream;

use adb_wire::shell_v2::{Collected, PacketBuffer};

use super::wire::{Deadline, close_stdin, connect, finished, read_full, take_pulled, write_full};

use super::held::HeldStream;

use crate::device::errors::transport::{MAX_OUTPUT, TransportError};

use crate::device::shell::ShellOutput;

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
        other => Err(TransportError::BadServerStatus(String::from_utf8_lossy(other).into_owned())),
    }
}

fn read_hex_string(stream: &mut TcpStream, deadline: Deadline) -> Result<String, TransportError> {
    let mut len = [0u8; 4];
    read_full(stream, &mut len, deadline)?;
    let len = usize::from_str_radix(&String::from_utf8_lossy(&len), 16).map_err(|_| TransportError::BadServerLength)?;
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

    /// Copies the file at `path` on the device into `into` over the `sync:` service
    /// (what `adb pull` does), at most `limit` bytes; returns its size.
    pub fn pull(
        &mut self,
        path: &str,
        into: &mut dyn std::io::Write,
        limit: u64,
        deadline: Deadline,
    ) -> Result<u64, TransportError> {
        let mut stream = connect(&self.server, deadline)?;
        server_request(&mut stream, &format!("host:transport:{}", self.serial), deadline)?;
        server_request(&mut stream, "sync:", deadline)?;
        write_full(&mut stream, &adb_wire::sync::recv_request(path), deadline)?;
        let mut decoder = adb_wire::sync::RecvDecoder::default();
        let mut written = 0u64;
        let mut buf = [0u8; 64 * 1024];
        loop {
            stream.set_read_timeout(Some(deadline.left()?)).map_err(|e| deadline.io(e))?;
            match stream.read(&mut buf) {
                Ok(0) => return Err(TransportError::Disconnected),
                Ok(n) => {
                    if take_pulled(&mut decoder, &buf[..n], path, into, &mut written, limit)? {
                        // A courtesy: the socket closes with this function either way.
                        let _ = write_full(&mut stream, &adb_wire::sync::quit_request(), deadline);
                        return Ok(written);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(deadline.io(e)),
            }
        }
    }

    /// A socket switched to this device's `service`.
    fn open_service(&self, service: &str, deadline: Deadline) -> Result<TcpStream, TransportError> {
        let mut stream = connect(&self.server, deadline)?;
        server_request(&mut stream, &format!("host:transport:{}", self.serial), deadline)?;
        server_request(&mut stream, service, deadline)?;
        Ok(stream)
    }

    /// Opens a stream to what listens on device port `port` (`tcp:PORT`), writes
    /// `request`, and hands what comes back to `take` until it has what it wants
    /// (`Ok(true)`) or the device closes the stream (`Ok(false)`). Nothing
    /// listening is [`TransportError::Refused`].
    pub fn tcp(
        &mut self,
        port: u16,
        request: &[u8],
        deadline: Deadline,
        mut take: impl FnMut(&[u8]) -> Result<bool, TransportError>,
    ) -> Result<bool, TransportError> {
        let service = format!("tcp:{port}");
        let mut stream = self.open_service(&service, deadline).map_err(|e| match e {
            // The server's words for a port nothing listens on vary by version.
            TransportError::ServerFailed(_) => TransportError::Refused(service.clone()),
            other => other,
        })?;
        write_full(&mut stream, request, deadline)?;
        let mut buf = [0u8; 64 * 1024];
        loop {
            stream.set_read_timeout(Some(deadline.left()?)).map_err(|e| deadline.io(e))?;
            match stream.read(&mut buf) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    if take(&buf[..n])? {
                        return Ok(true);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(deadline.io(e)),
            }
        }
    }

    /// Opens `service` on a socket of its own and gives it to a [`HeldStream`] that
    /// keeps it open (reading what comes) until dropped.
    pub fn hold(&self, service: &str, deadline: Deadline) -> Result<HeldStream, TransportError> {
        let mut stream = self.open_service(service, deadline)?;
        let stop = stream.try_clone().map_err(|_| TransportError::Disconnected)?;
        let _ = stream.set_read_timeout(None);
        Ok(HeldStream::start(stop, move |output| {
            let mut buf = [0u8; 16 * 1024];
            loop {
                match stream.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => output(&buf[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        }))
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
            write_full(&mut stream, &close_stdin(), deadline)?;
        }
        let mut raw = Vec::new();
        let mut packets = PacketBuffer::default();
        let mut collected = Collected::default();
        let mut buf = [0u8; 64 * 1024];
        loop {
            stream.set_read_timeout(Some(deadline.left()?)).map_err(|e| deadline.io(e))?;
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    if raw.len() + collected.stdout.len() + collected.stderr.len() + n > MAX_OUTPUT {
                        return Err(TransportError::TooLarge);
                    }
                    if !v2 {
                        raw.extend_from_slice(&buf[..n]);
                        continue;
                    }
                    packets.push(&buf[..n]);
                    while let Some(p) = packets.next_packet() {
                        collected.take(p);
                    }
                    // The exit packet ends the command; do not wait for the close.
                    if collected.exit.is_some() {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(deadline.io(e)),
            }
        }
        if !v2 {
            return Ok(ShellOutput { stdout: raw, stderr: Vec::new(), code: None });
        }
        if packets.pending_len() > 0 && collected.exit.is_none() {
            return Err(TransportError::Disconnected);
        }
        finished(collected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_lines_keep_multi_word_states_and_the_model() {
        let d =
            parse_device_line("0123456789ABCDEF  no permissions (missing udev rules?) usb:1-1 transport_id:3").unwrap();
        assert_eq!(d.state, "no permissions (missing udev rules?)");
        let d = parse_device_line("emulator-5554 device product:sdk model:Pixel_7 device:emu transport_id:1").unwrap();
        assert_eq!((d.state.as_str(), d.model.as_str()), ("device", "Pixel_7"));
    }
}
