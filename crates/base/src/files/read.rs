//! Reading a file a person named (a script, a config, a task file, a memory
//! export), capped: `/dev/zero`, a FIFO that never ends or a file of gigabytes is an
//! error that says so, never an allocation that aborts the process. A drop-in for
//! `std::fs::read_to_string`: the error is an `io::Error`, so every caller's
//! "cannot read PATH" stays as it is.
//! Not here: where files are written (`write.rs`).

use std::io::{self, Read};
use std::path::Path;

/// The most a text input (a script, a config, a persona, answers, secrets, a task
/// file) may hold.
pub const TEXT_BYTES: usize = 16 * 1024 * 1024;

/// The most a data input (a memory export, a results file, a run's events) may hold.
pub const DATA_BYTES: usize = 256 * 1024 * 1024;

/// The text of `path`, if it holds at most `max` bytes of UTF-8.
pub fn read_text(path: &Path, max: usize) -> io::Result<String> {
    read_text_from(open(path)?, max)
}

/// The bytes of `path`, if at most `max`.
pub fn read_bytes(path: &Path, max: usize) -> io::Result<Vec<u8>> {
    read_bytes_from(open(path)?, max)
}

/// `path` opened for reading without waiting: a FIFO nobody writes to would block
/// the open for ever (opened without blocking, then read as usual, it ends at once).
fn open(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new().read(true).custom_flags(nix::libc::O_NONBLOCK).open(path)?;
    let flags = nix::fcntl::fcntl(&file, nix::fcntl::FcntlArg::F_GETFL).map_err(io::Error::from)?;
    let blocking = nix::fcntl::OFlag::from_bits_truncate(flags) - nix::fcntl::OFlag::O_NONBLOCK;
    nix::fcntl::fcntl(&file, nix::fcntl::FcntlArg::F_SETFL(blocking)).map_err(io::Error::from)?;
    Ok(file)
}

/// The text `reader` gives (standard input, say), if at most `max` bytes of UTF-8.
pub fn read_text_from(reader: impl Read, max: usize) -> io::Result<String> {
    let bytes = read_bytes_from(reader, max)?;
    String::from_utf8(bytes).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "it is not UTF-8 text"))
}

/// The bytes `reader` gives, if at most `max`.
pub fn read_bytes_from(reader: impl Read, max: usize) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(max as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > max {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("it holds more than {} (is it the right file?)", size(max)),
        ));
    }
    Ok(bytes)
}

/// `n` bytes in words: `16 MiB`, `512 KiB`.
fn size(n: usize) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_input_is_an_error_not_an_abort() {
        let err = read_text(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(err.to_string(), "it holds more than 1 MiB (is it the right file?)");
        assert_eq!(read_text_from(&b"ok"[..], 2).unwrap(), "ok");
        // A FIFO nobody writes to: read at once as empty, never a hang at the open.
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        assert_eq!(read_text(&fifo, 10).unwrap(), "");
        assert!(read_text_from(&[0xff_u8][..], 2).unwrap_err().to_string().contains("UTF-8"));
    }
}
