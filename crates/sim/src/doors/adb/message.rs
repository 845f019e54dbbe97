//! ADB messages on the device side: one whole message (header and payload) read off
//! a socket, written back in one piece. The byte layout is `adb_wire`'s; this module
//! adds the async reading and the device's payload limits.

use adb_wire::message::{COMMANDS, HEADER_LEN, Header, HeaderError};
use tokio::io::{AsyncRead, AsyncReadExt};

pub(crate) use adb_wire::message::{A_CLSE, A_CNXN, A_OKAY, A_OPEN, A_VERSION, A_VERSION_MIN, A_WRTE};

/// Payload limit before CNXN negotiates a larger one.
pub(crate) const MAX_PAYLOAD_V1: usize = 4096;
/// The largest payload any host may negotiate.
pub(crate) const MAX_PAYLOAD: usize = 1024 * 1024;

/// One ADB message: a command, two arguments and a payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Message {
    pub(crate) command: u32,
    pub(crate) arg0: u32,
    pub(crate) arg1: u32,
    pub(crate) payload: Vec<u8>,
}

/// Why a connection's byte stream could not be read as ADB messages.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FrameError {
    #[error("connection closed by the peer")]
    Closed,
    #[error("read failed")]
    Io(#[source] std::io::Error),
    #[error("not an ADB message")]
    Header(#[from] HeaderError),
    #[error("unknown command 0x{0:08x}")]
    UnknownCommand(u32),
    #[error("payload of {len} bytes exceeds the {max}-byte limit")]
    TooLarge { len: usize, max: usize },
}

fn io_error(e: std::io::Error) -> FrameError {
    match e.kind() {
        std::io::ErrorKind::UnexpectedEof => FrameError::Closed,
        _ => FrameError::Io(e),
    }
}

impl Message {
    pub(crate) fn new(command: u32, arg0: u32, arg1: u32, payload: impl Into<Vec<u8>>) -> Self {
        Self { command, arg0, arg1, payload: payload.into() }
    }

    /// Header plus payload, ready for the socket.
    pub(crate) fn encode(&self) -> Vec<u8> {
        adb_wire::message::encode(self.command, self.arg0, self.arg1, &self.payload)
    }

    /// Reads exactly one message. The checksum is never verified (hosts at version
    /// 0x01000001 send zero).
    pub(crate) async fn read<R: AsyncRead + Unpin>(reader: &mut R, max_payload: usize) -> Result<Self, FrameError> {
        let mut bytes = [0u8; HEADER_LEN];
        reader.read_exact(&mut bytes).await.map_err(io_error)?;
        let header = Header::decode(&bytes)?;
        if !COMMANDS.contains(&header.command) {
            return Err(FrameError::UnknownCommand(header.command));
        }
        let len = header.len as usize;
        if len > max_payload {
            return Err(FrameError::TooLarge { len, max: max_payload });
        }
        let mut payload = vec![0u8; len];
        reader.read_exact(&mut payload).await.map_err(io_error)?;
        Ok(Self { command: header.command, arg0: header.arg0, arg1: header.arg1, payload })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn encode_then_read_round_trips() {
        let msg = Message::new(A_WRTE, 7, 9, b"hello".to_vec());
        let bytes = msg.encode();
        let read = Message::read(&mut &bytes[..], MAX_PAYLOAD).await.unwrap();
        assert_eq!(read, msg);
    }

    #[tokio::test]
    async fn bad_magic_unknown_commands_and_oversize_are_errors() {
        let mut bytes = Message::new(A_OKAY, 1, 2, Vec::new()).encode();
        bytes[20] ^= 1;
        assert!(matches!(Message::read(&mut &bytes[..], 10).await, Err(FrameError::Header(_))));
        let bytes = Message::new(0x1234_5678, 1, 2, Vec::new()).encode();
        assert!(matches!(Message::read(&mut &bytes[..], 10).await, Err(FrameError::UnknownCommand(_))));
        let bytes = Message::new(A_WRTE, 1, 2, vec![0; 11]).encode();
        assert!(matches!(Message::read(&mut &bytes[..], 10).await, Err(FrameError::TooLarge { len: 11, .. })));
        assert!(matches!(Message::read(&mut &bytes[..5], 10).await, Err(FrameError::Closed)));
    }
}
