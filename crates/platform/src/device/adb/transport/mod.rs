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

mod wire;

pub use crate::device::shell::ShellOutput;

pub use crate::device::errors::transport::TransportError;
pub use direct::DirectConnection;
pub use held::HeldStream;
pub use server::{ListedDevice, ServerConnection};
pub use wire::Deadline;
#[cfg(test)]
mod tests {
    use super::wire::output_of_v2;
    use super::*;
    use adb_wire::shell_v2;

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
