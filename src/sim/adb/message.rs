//! ADB wire messages: the 24-byte header, its payload, and reading one off a socket.
//!
//! Only framing lives here; what a message means to a connection is in `connection.rs`.

use tokio::io::{AsyncRead, AsyncReadExt};

pub use crate::adb_protocol::{A_AUTH, A_CLSE, A_CNXN, A_OKAY, A_OPEN, A_STLS, A_VERSION, A_VERSION_MIN, A_WRTE};

/// Payload limit before CNXN negotiates a larger one.
pub const MAX_PAYLOAD_V1: usize = 4096;
/// The largest payload any host may negotiate.
pub const MAX_PAYLOAD: usize = 1024 * 1024;

const HEADER_LEN: usize = 24;

/// One ADB message: a command, two arguments and a payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub command: u32,
    pub arg0: u32,
    pub arg1: u32,
    pub payload: Vec<u8>,
}

/// Why a connection's byte stream could not be read as ADB messages.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("connection closed by the peer")]
    Closed,
    #[error("read failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("bad magic 0x{magic:08x} for command 0x{command:08x}")]
    BadMagic { command: u32, magic: u32 },
    #[error("unknown command 0x{0:08x}")]
    UnknownCommand(u32),
    #[error("payload of {len} bytes exceeds the {max}-byte limit")]
    TooLarge { len: usize, max: usize },
}

impl Message {
    pub fn new(command: u32, arg0: u32, arg1: u32, payload: impl Into<Vec<u8>>) -> Self {
        Self { command, arg0, arg1, payload: payload.into() }
    }

    /// Header plus payload, ready for the socket. The checksum is always filled in
    /// because adb_client verifies it even though modern hosts do not.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN + self.payload.len());
        let checksum = self.payload.iter().fold(0u32, |sum, b| sum.wrapping_add(u32::from(*b)));
        for word in
            [self.command, self.arg0, self.arg1, self.payload.len() as u32, checksum, self.command ^ 0xffff_ffff]
        {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(&self.payload);
        out
    }

    /// Reads exactly one message. The checksum is never verified (hosts at version
    /// 0x01000001 send zero).
    pub async fn read<R: AsyncRead + Unpin>(reader: &mut R, max_payload: usize) -> Result<Self, FrameError> {
        let mut header = [0u8; HEADER_LEN];
        match reader.read_exact(&mut header).await {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Err(FrameError::Closed),
            Err(e) => return Err(FrameError::Io(e)),
        }
        let word =
            |i: usize| u32::from_le_bytes([header[i * 4], header[i * 4 + 1], header[i * 4 + 2], header[i * 4 + 3]]);
        let (command, arg0, arg1, len, magic) = (word(0), word(1), word(2), word(3) as usize, word(5));
        if magic != command ^ 0xffff_ffff {
            return Err(FrameError::BadMagic { command, magic });
        }
        if ![A_CNXN, A_AUTH, A_OPEN, A_OKAY, A_CLSE, A_WRTE, A_STLS].contains(&command) {
            return Err(FrameError::UnknownCommand(command));
        }
        if len > max_payload {
            return Err(FrameError::TooLarge { len, max: max_payload });
        }
        let mut payload = vec![0u8; len];
        reader.read_exact(&mut payload).await.map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => FrameError::Closed,
            _ => FrameError::Io(e),
        })?;
        Ok(Self { command, arg0, arg1, payload })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn encode_then_read_round_trips() {
        let msg = Message::new(A_WRTE, 7, 9, b"hello".to_vec());
        let bytes = msg.encode();
        assert_eq!(bytes.len(), 29);
        assert_eq!(&bytes[16..20], &(532u32).to_le_bytes());
        let read = Message::read(&mut &bytes[..], MAX_PAYLOAD).await.unwrap();
        assert_eq!(read, msg);
    }

    #[tokio::test]
    async fn bad_magic_and_oversize_are_errors() {
        let mut bytes = Message::new(A_OKAY, 1, 2, Vec::new()).encode();
        bytes[20] ^= 1;
        assert!(matches!(Message::read(&mut &bytes[..], 10).await, Err(FrameError::BadMagic { .. })));
        let bytes = Message::new(A_WRTE, 1, 2, vec![0; 11]).encode();
        assert!(matches!(Message::read(&mut &bytes[..], 10).await, Err(FrameError::TooLarge { len: 11, .. })));
        assert!(matches!(Message::read(&mut &bytes[..5], 10).await, Err(FrameError::Closed)));
    }
}
