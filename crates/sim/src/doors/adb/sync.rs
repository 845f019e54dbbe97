//! The `sync:` service (file transfer) for `adb push`/`adb pull` and adb_client:
//! STAT, LIST, RECV, SEND and QUIT, version 1, on the device's in-memory files.
//!
//! Requests arrive as a byte stream that may be split anywhere across WRTEs, so
//! everything is read through a small buffer. Only v1 is served (v2 is not advertised).

use super::stream::{StreamClosed, StreamIo};
use crate::device::SimDevice;
use crate::shell::FsError;

/// Paths longer than this are refused, as adbd does.
const MAX_PATH: usize = 1024;
/// Largest DATA chunk, in both directions.
const MAX_DATA: usize = 64 * 1024;

struct Incoming<'a> {
    io: &'a mut StreamIo,
    buf: Vec<u8>,
}

impl Incoming<'_> {
    /// Waits until `n` bytes are buffered, then takes them; `None` if the host closed.
    async fn take(&mut self, n: usize) -> Option<Vec<u8>> {
        while self.buf.len() < n {
            let more = self.io.read().await?;
            self.buf.extend_from_slice(&more);
        }
        Some(self.buf.drain(..n).collect())
    }

    /// One `id | u32 length` header.
    async fn header(&mut self) -> Option<([u8; 4], u32)> {
        let h = self.take(8).await?;
        Some(([h[0], h[1], h[2], h[3]], u32::from_le_bytes([h[4], h[5], h[6], h[7]])))
    }
}

fn packet(id: &[u8; 4], value: u32, tail: &[u8]) -> Vec<u8> {
    let mut p = Vec::with_capacity(8 + tail.len());
    p.extend_from_slice(id);
    p.extend_from_slice(&value.to_le_bytes());
    p.extend_from_slice(tail);
    p
}

fn fail(message: &str) -> Vec<u8> {
    packet(b"FAIL", message.len() as u32, message.as_bytes())
}

/// Serves sync requests until QUIT, a protocol error, or the host closing the stream.
pub(crate) async fn serve(io: &mut StreamIo, device: &SimDevice) -> Result<(), StreamClosed> {
    let mut incoming = Incoming { io, buf: Vec::new() };
    loop {
        let Some((id, len)) = incoming.header().await else { return Ok(()) };
        if &id == b"QUIT" {
            return Ok(());
        }
        if len as usize > MAX_PATH {
            let msg = fail(&format!("path too long: {len} bytes"));
            return incoming.io.write(&msg).await;
        }
        let Some(path) = incoming.take(len as usize).await else { return Ok(()) };
        let path = String::from_utf8_lossy(&path).to_string();
        let fs = device.fs();
        match &id {
            b"STAT" => {
                let reply = match fs.stat(&path) {
                    Some(meta) => {
                        let size = u32::try_from(meta.size).unwrap_or(u32::MAX);
                        let mut p = packet(b"STAT", meta.mode, &size.to_le_bytes());
                        p.extend_from_slice(&meta.mtime.to_le_bytes());
                        p
                    }
                    None => packet(b"STAT", 0, &[0; 8]),
                };
                incoming.io.write(&reply).await?;
            }
            b"LIST" => {
                let mut reply = Vec::new();
                if let Ok(entries) = fs.list(&path) {
                    for (name, meta) in entries {
                        let size = u32::try_from(meta.size).unwrap_or(u32::MAX);
                        reply.extend_from_slice(b"DENT");
                        for word in [meta.mode, size, meta.mtime, name.len() as u32] {
                            reply.extend_from_slice(&word.to_le_bytes());
                        }
                        reply.extend_from_slice(name.as_bytes());
                    }
                }
                reply.extend_from_slice(b"DONE");
                reply.extend_from_slice(&[0; 16]);
                incoming.io.write(&reply).await?;
            }
            b"RECV" => match fs.read(&path) {
                Ok(data) => {
                    // One DATA packet per WRTE so that "DONE" can only end the last one.
                    let room = incoming.io.max_payload().saturating_sub(8).clamp(1, MAX_DATA);
                    for chunk in data.chunks(room) {
                        incoming.io.write_one(packet(b"DATA", chunk.len() as u32, chunk)).await?;
                    }
                    incoming.io.write_one(packet(b"DONE", 0, &[])).await?;
                }
                Err(e) => incoming.io.write(&fail(&e.to_string())).await?,
            },
            b"SEND" => {
                let (target, mode) = match path.rsplit_once(',') {
                    Some((p, m)) => (p.to_string(), m.parse::<u32>().unwrap_or(0o100644)),
                    None => (path.clone(), 0o100644),
                };
                let mut data = Vec::new();
                let mtime = loop {
                    let Some((chunk_id, n)) = incoming.header().await else { return Ok(()) };
                    match &chunk_id {
                        b"DATA" if n as usize <= MAX_DATA => {
                            let Some(bytes) = incoming.take(n as usize).await else { return Ok(()) };
                            data.extend_from_slice(&bytes);
                        }
                        b"DONE" => break n,
                        _ => {
                            let msg = fail("bad sync packet while receiving a file");
                            return incoming.io.write(&msg).await;
                        }
                    }
                };
                let reply = match fs.write_with_mode(&target, &data, mode, mtime) {
                    Ok(()) => packet(b"OKAY", 0, &[]),
                    Err(e) => fail(&describe(&target, &e)),
                };
                incoming.io.write(&reply).await?;
            }
            _ => {
                let msg = fail(&format!("unknown sync request {}", String::from_utf8_lossy(&id)));
                return incoming.io.write(&msg).await;
            }
        }
    }
}

fn describe(path: &str, e: &FsError) -> String {
    format!("couldn't create file: {path}: {e}")
}
