//! ADB messages: six little-endian words (command, two arguments, payload length,
//! payload checksum, command XOR 0xffffffff), then the payload.
//!
//! [`encode`] builds a whole message; [`Header::decode`] reads the first 24 bytes and
//! checks the magic. Neither reads nor writes a socket.

/// Connect: version, max payload, then the system identity banner.
pub const A_CNXN: u32 = 0x4e58_4e43;
/// Authentication challenge or answer.
pub const A_AUTH: u32 = 0x4854_5541;
/// Open a stream to a service (`shell:...`, `sync:`).
pub const A_OPEN: u32 = 0x4e45_504f;
/// Stream ready / data acknowledged.
pub const A_OKAY: u32 = 0x5941_4b4f;
/// Stream closed.
pub const A_CLSE: u32 = 0x4553_4c43;
/// Stream data.
pub const A_WRTE: u32 = 0x4554_5257;
/// Start TLS (wireless debugging).
pub const A_STLS: u32 = 0x534c_5453;

/// The oldest protocol version (payload checksums required).
pub const A_VERSION_MIN: u32 = 0x0100_0000;
/// The newest version (checksums optional).
pub const A_VERSION: u32 = 0x0100_0001;

/// Bytes in a message header.
pub const HEADER_LEN: usize = 24;

/// Every command word a peer may send.
pub const COMMANDS: [u32; 7] = [A_CNXN, A_AUTH, A_OPEN, A_OKAY, A_CLSE, A_WRTE, A_STLS];

/// A decoded header; the payload (`len` bytes) follows it on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub command: u32,
    pub arg0: u32,
    pub arg1: u32,
    /// Payload length in bytes.
    pub len: u32,
    /// Sum of the payload's bytes; zero from hosts at [`A_VERSION`], which skip it.
    pub checksum: u32,
}

/// Why 24 bytes are not a message header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    #[error("bad magic 0x{magic:08x} for command 0x{command:08x}")]
    BadMagic { command: u32, magic: u32 },
}

impl Header {
    /// Reads a header, checking that the magic word matches the command. The command
    /// itself may be unknown: whether that is an error is the receiver's call.
    pub fn decode(bytes: &[u8; HEADER_LEN]) -> Result<Self, HeaderError> {
        let word = |i: usize| u32::from_le_bytes([bytes[i * 4], bytes[i * 4 + 1], bytes[i * 4 + 2], bytes[i * 4 + 3]]);
        let (command, magic) = (word(0), word(5));
        if magic != command ^ 0xffff_ffff {
            return Err(HeaderError::BadMagic { command, magic });
        }
        Ok(Self { command, arg0: word(1), arg1: word(2), len: word(3), checksum: word(4) })
    }

    /// True when the command is one of the seven the protocol defines.
    pub fn is_known_command(&self) -> bool {
        COMMANDS.contains(&self.command)
    }
}

/// The payload checksum: the sum of its bytes. Always filled in, because some clients
/// (adb_client) verify it even though modern hosts do not.
pub fn checksum(payload: &[u8]) -> u32 {
    payload.iter().fold(0u32, |sum, b| sum.wrapping_add(u32::from(*b)))
}

/// Header plus payload, ready for the socket in one write (no Nagle stall between
/// the two).
pub fn encode(command: u32, arg0: u32, arg1: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    let len = u32::try_from(payload.len()).unwrap_or(u32::MAX);
    for word in [command, arg0, arg1, len, checksum(payload), command ^ 0xffff_ffff] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    out.extend_from_slice(payload);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_then_decode_round_trips() {
        let bytes = encode(A_WRTE, 7, 9, b"hello");
        assert_eq!(bytes.len(), 29);
        assert_eq!(&bytes[16..20], &532u32.to_le_bytes());
        let header: [u8; HEADER_LEN] = bytes[..HEADER_LEN].try_into().unwrap();
        let h = Header::decode(&header).unwrap();
        assert_eq!(h, Header { command: A_WRTE, arg0: 7, arg1: 9, len: 5, checksum: 532 });
        assert!(h.is_known_command());
        assert_eq!(&bytes[HEADER_LEN..], b"hello");
    }

    #[test]
    fn a_bad_magic_is_refused() {
        let mut bytes = encode(A_OKAY, 1, 2, &[]);
        bytes[20] ^= 1;
        let header: [u8; HEADER_LEN] = bytes[..HEADER_LEN].try_into().unwrap();
        assert!(matches!(Header::decode(&header), Err(HeaderError::BadMagic { .. })));
        let unknown = encode(0x1234_5678, 0, 0, &[]);
        let header: [u8; HEADER_LEN] = unknown[..HEADER_LEN].try_into().unwrap();
        assert!(!Header::decode(&header).unwrap().is_known_command());
    }
}
