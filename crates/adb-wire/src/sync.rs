//! The `sync:` service's file-transfer words, as the client sends and reads them
//! (version 1): a request is `ID | u32 length | path`; a pulled file comes back as
//! `DATA | u32 n | n bytes` chunks ending in `DONE`, or `FAIL | u32 n | message`.
//!
//! Sans-IO: [`RecvDecoder`] takes the bytes as they arrive, split anywhere, and
//! hands back whole events; the caller owns the socket and the deadline.

/// The largest DATA chunk adbd sends (and the largest this decoder accepts).
pub const MAX_DATA: usize = 64 * 1024;
/// The longest FAIL message accepted; adbd's are a line.
pub const MAX_FAIL: usize = 4096;

/// `RECV path`: ask for a file.
pub fn recv_request(path: &str) -> Vec<u8> {
    request(b"RECV", path.as_bytes())
}

/// `QUIT`: end the sync session.
pub fn quit_request() -> Vec<u8> {
    request(b"QUIT", b"")
}

fn request(id: &[u8; 4], body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + body.len());
    out.extend_from_slice(id);
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
    out
}

/// What the device said, one whole frame at a time.
#[derive(Debug, PartialEq, Eq)]
pub enum RecvEvent {
    Data(Vec<u8>),
    Done,
    /// The device's own words (`No such file or directory`…).
    Fail(String),
}

/// A frame the protocol does not allow.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum SyncError {
    #[error("the device sent a {len}-byte DATA chunk, above the {MAX_DATA}-byte maximum")]
    ChunkTooLarge { len: usize },
    #[error("the device sent a {len}-byte FAIL message, above the {MAX_FAIL}-byte maximum")]
    FailTooLong { len: usize },
    #[error("the device sent {id:?} where DATA, DONE or FAIL belongs")]
    Unexpected { id: String },
}

/// Reads a RECV reply as it arrives.
#[derive(Debug, Default)]
pub struct RecvDecoder {
    buf: Vec<u8>,
    finished: bool,
}

impl RecvDecoder {
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Whether DONE or FAIL has been read: nothing more belongs to this file.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// The next whole frame, `Ok(None)` until one is in.
    pub fn next_event(&mut self) -> Result<Option<RecvEvent>, SyncError> {
        if self.finished || self.buf.len() < 8 {
            return Ok(None);
        }
        let id = [self.buf[0], self.buf[1], self.buf[2], self.buf[3]];
        let len = u32::from_le_bytes([self.buf[4], self.buf[5], self.buf[6], self.buf[7]]) as usize;
        match &id {
            b"DATA" if len > MAX_DATA => Err(SyncError::ChunkTooLarge { len }),
            b"FAIL" if len > MAX_FAIL => Err(SyncError::FailTooLong { len }),
            b"DONE" => {
                // DONE's length word is the file's mtime, not a length.
                self.buf.drain(..8);
                self.finished = true;
                Ok(Some(RecvEvent::Done))
            }
            b"DATA" | b"FAIL" => {
                if self.buf.len() < 8 + len {
                    return Ok(None);
                }
                let body: Vec<u8> = self.buf.drain(..8 + len).skip(8).collect();
                if &id == b"DATA" {
                    Ok(Some(RecvEvent::Data(body)))
                } else {
                    self.finished = true;
                    Ok(Some(RecvEvent::Fail(String::from_utf8_lossy(&body).into_owned())))
                }
            }
            _ => Err(SyncError::Unexpected { id: String::from_utf8_lossy(&id).into_owned() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(id: &[u8; 4], body: &[u8]) -> Vec<u8> {
        request(id, body)
    }

    #[test]
    fn frames_split_anywhere_come_out_whole() {
        let mut wire = frame(b"DATA", b"hello ");
        wire.extend(frame(b"DATA", b"world"));
        wire.extend(b"DONE\x01\x02\x03\x04");
        for cut in 0..wire.len() {
            let mut d = RecvDecoder::default();
            let mut got = Vec::new();
            for part in [&wire[..cut], &wire[cut..]] {
                d.push(part);
                while let Some(e) = d.next_event().unwrap() {
                    got.push(e);
                }
            }
            assert_eq!(
                got,
                [RecvEvent::Data(b"hello ".to_vec()), RecvEvent::Data(b"world".to_vec()), RecvEvent::Done],
                "cut at {cut}"
            );
            assert!(d.finished());
        }
    }

    #[test]
    fn failures_and_bad_frames_are_said() {
        let mut d = RecvDecoder::default();
        d.push(&frame(b"FAIL", b"No such file or directory"));
        assert_eq!(d.next_event().unwrap(), Some(RecvEvent::Fail("No such file or directory".into())));
        let mut d = RecvDecoder::default();
        d.push(b"DATA\xff\xff\xff\x7f");
        assert_eq!(d.next_event(), Err(SyncError::ChunkTooLarge { len: 0x7fff_ffff }));
        let mut d = RecvDecoder::default();
        d.push(b"OKAY\0\0\0\0");
        assert!(matches!(d.next_event(), Err(SyncError::Unexpected { .. })));
        assert_eq!(recv_request("/a"), b"RECV\x02\0\0\0/a");
    }
}
