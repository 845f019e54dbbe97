//! Shell protocol v2: inside a `shell,v2,...:` stream, bytes travel in packets of
//! one id byte, a little-endian u32 length and the payload. Stdout, stderr and the
//! exit code arrive apart; stdin can be closed without closing the stream.
//!
//! [`packet`] frames one packet; [`PacketBuffer`] cuts a byte stream into packets
//! as it arrives, whatever the chunking; [`Collected`] gathers a command's output.

/// Data the host types into the command.
pub const STDIN: u8 = 0;
/// The command's standard output.
pub const STDOUT: u8 = 1;
/// The command's standard error.
pub const STDERR: u8 = 2;
/// The exit code (one byte): the command is over.
pub const EXIT: u8 = 3;
/// The host will type nothing more (EOF on the command's stdin).
pub const CLOSE_STDIN: u8 = 4;
/// The terminal changed size (interactive shells).
pub const WINDOW_SIZE_CHANGE: u8 = 5;

/// Bytes before a packet's payload.
pub const PACKET_HEADER_LEN: usize = 5;

/// One packet: `id` and its payload.
pub fn packet(id: u8, payload: &[u8]) -> Vec<u8> {
    let mut p = Vec::with_capacity(PACKET_HEADER_LEN + payload.len());
    p.push(id);
    p.extend_from_slice(&u32::try_from(payload.len()).unwrap_or(u32::MAX).to_le_bytes());
    p.extend_from_slice(payload);
    p
}

/// A packet cut out of the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    pub id: u8,
    pub payload: Vec<u8>,
}

/// Bytes as they arrive, handed out as whole packets.
#[derive(Debug, Default)]
pub struct PacketBuffer {
    pending: Vec<u8>,
}

impl PacketBuffer {
    pub fn push(&mut self, bytes: &[u8]) {
        self.pending.extend_from_slice(bytes);
    }

    /// The next whole packet, or `None` until more bytes arrive.
    pub fn next_packet(&mut self) -> Option<Packet> {
        let header = self.pending.get(..PACKET_HEADER_LEN)?;
        let len = u32::from_le_bytes([header[1], header[2], header[3], header[4]]) as usize;
        let end = PACKET_HEADER_LEN.checked_add(len)?;
        if self.pending.len() < end {
            return None;
        }
        let id = self.pending[0];
        let payload = self.pending[PACKET_HEADER_LEN..end].to_vec();
        self.pending.drain(..end);
        Some(Packet { id, payload })
    }

    /// Bytes received that do not make a whole packet yet.
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }
}

/// A command's output as it is collected from its packets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Collected {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Set once the exit packet arrived: the command is over.
    pub exit: Option<u8>,
}

impl Collected {
    /// Takes one packet into the output; ids a host does not send back are ignored.
    pub fn take(&mut self, packet: Packet) {
        match packet.id {
            STDOUT => self.stdout.extend_from_slice(&packet.payload),
            STDERR => self.stderr.extend_from_slice(&packet.payload),
            EXIT => self.exit = Some(packet.payload.first().copied().unwrap_or(0)),
            _ => {}
        }
    }

    /// The output of a whole stream. Trailing bytes that do not make a packet mean the
    /// stream was cut short; a missing exit packet means the command never finished
    /// (the caller decides what that says about the device).
    pub fn from_stream(bytes: &[u8]) -> Result<Self, CutShort> {
        let mut buffer = PacketBuffer::default();
        buffer.push(bytes);
        let mut out = Self::default();
        while let Some(p) = buffer.next_packet() {
            out.take(p);
        }
        if buffer.pending_len() > 0 {
            return Err(CutShort);
        }
        Ok(out)
    }
}

/// A shell v2 stream that ends inside a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a shell packet is cut short")]
pub struct CutShort;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_are_cut_whatever_the_chunking() {
        let mut stream = packet(STDOUT, b"abc");
        stream.extend(packet(STDERR, b"e"));
        stream.extend(packet(EXIT, &[127]));
        let whole = Collected::from_stream(&stream).unwrap();
        assert_eq!(
            whole,
            Collected { stdout: b"abc".to_vec(), stderr: b"e".to_vec(), exit: Some(127) },
            "stdout, stderr and the exit code arrive apart"
        );
        let mut buffer = PacketBuffer::default();
        let mut chunked = Collected::default();
        for byte in &stream {
            buffer.push(&[*byte]);
            while let Some(p) = buffer.next_packet() {
                chunked.take(p);
            }
        }
        assert_eq!(chunked, whole, "one byte at a time gives the same packets");
        assert_eq!(Collected::from_stream(&stream[..stream.len() - 1]), Err(CutShort));
        let no_exit = Collected::from_stream(&packet(STDOUT, b"x")).unwrap();
        assert_eq!(no_exit.exit, None, "the caller sees the command never finished");
    }
}
