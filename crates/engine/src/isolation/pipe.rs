//! Length-prefixed frames over a pair of pipes, read with a short spin before
//! blocking. On a small virtual machine a blocked reader takes 115–155 µs to wake
//! (measured: a 64-byte ping-pong between two processes), against 2 µs for one that
//! spins on a non-blocking read; a tool call crosses twice, so waits that are
//! usually short (a tool's reply, a snippet's next call) spin first and then sleep
//! in `poll`, and a long wait costs one core only for the spin.
//!
//! The spin gives the CPU away on each turn (`sched_yield`) rather than holding
//! it: a pipe write wakes a sleeping reader on the writer's own CPU, expecting the
//! writer to sleep next, so a writer that spins there starves the very process
//! it waits for. After 20 ms idle (an agent's snippet comes after the model's
//! answer) a busy spin made a 10-call snippet cost 1.29 ms; yielding, 0.43 ms,
//! and back to back the same 44 µs (`benches/snippet.rs`, the cold group).
//!
//! Knows bytes and time only; what a frame means is `frames.rs`'s business.

use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::time::{Duration, Instant};

use nix::fcntl::{FcntlArg, OFlag, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

/// The largest frame either side accepts: the biggest value a limit allows (a
/// 64 MiB string) with room for its envelope.
pub const MAX_FRAME: usize = 80 * 1024 * 1024;

/// Why a frame could not be moved.
#[derive(Debug, thiserror::Error)]
pub enum PipeError {
    #[error("the other side closed the pipe")]
    Closed,
    #[error("a frame of {0} bytes is larger than allowed")]
    TooLarge(usize),
    #[error("pipe input/output failed")]
    Io(#[source] std::io::Error),
}

/// The reading end: frames come out whole.
#[derive(Debug)]
pub struct FrameReader {
    file: File,
    buf: Vec<u8>,
    /// Where the unread bytes in `buf` start.
    start: usize,
    /// What one read takes in, allocated once: the reader is asked again and again
    /// while it spins, and zeroing a fresh 64 KiB each time was most of a round trip.
    chunk: Box<[u8]>,
}

/// The most one read takes in.
const CHUNK: usize = 64 * 1024;

impl FrameReader {
    /// Takes `fd` and makes it non-blocking.
    pub fn new(fd: OwnedFd) -> Result<Self, PipeError> {
        let flags = fcntl(fd.as_fd(), FcntlArg::F_GETFL).map_err(|e| PipeError::Io(e.into()))?;
        let flags = OFlag::from_bits_truncate(flags) | OFlag::O_NONBLOCK;
        fcntl(fd.as_fd(), FcntlArg::F_SETFL(flags)).map_err(|e| PipeError::Io(e.into()))?;
        Ok(Self { file: File::from(fd), buf: Vec::with_capacity(CHUNK), start: 0, chunk: vec![0; CHUNK].into() })
    }

    /// A whole frame already read, taken out.
    fn frame_ready(&mut self) -> Result<Option<Vec<u8>>, PipeError> {
        let unread = &self.buf[self.start..];
        if unread.len() < 4 {
            return Ok(None);
        }
        let len = u32::from_le_bytes([unread[0], unread[1], unread[2], unread[3]]) as usize;
        if len > MAX_FRAME {
            return Err(PipeError::TooLarge(len));
        }
        if unread.len() < 4 + len {
            return Ok(None);
        }
        let frame = unread[4..4 + len].to_vec();
        self.start += 4 + len;
        if self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        }
        Ok(Some(frame))
    }

    /// Reads what the pipe holds now; `false` when it held nothing.
    fn fill(&mut self) -> Result<bool, PipeError> {
        if self.start > 0 && self.start * 2 > self.buf.len() {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        match self.file.read(&mut self.chunk) {
            Ok(0) => Err(PipeError::Closed),
            Ok(n) => {
                self.buf.extend_from_slice(&self.chunk[..n]);
                Ok(true)
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => Ok(false),
            Err(e) if e.kind() == ErrorKind::Interrupted => Ok(true),
            Err(e) => Err(PipeError::Io(e)),
        }
    }

    /// The next frame: spins for `spin`, then sleeps until one comes or `wait`
    /// (from now; `None`: for ever) is over, when it returns `Ok(None)`.
    pub fn next(&mut self, spin: Duration, wait: Option<Duration>) -> Result<Option<Vec<u8>>, PipeError> {
        let started = Instant::now();
        let until = wait.map(|w| started + w);
        loop {
            if let Some(frame) = self.frame_ready()? {
                return Ok(Some(frame));
            }
            if self.fill()? {
                continue;
            }
            let now = Instant::now();
            if now - started < spin && until.is_none_or(|u| now < u) {
                // A peer woken on this CPU runs now instead of after the spin.
                std::thread::yield_now();
                continue;
            }
            let timeout = match until {
                None => PollTimeout::NONE,
                Some(u) if now >= u => return Ok(None),
                // Whole milliseconds, at least one: poll cannot sleep for less.
                Some(u) => {
                    let ms = (u - now).as_millis().clamp(1, i32::MAX as u128) as i32;
                    PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX)
                }
            };
            let mut fds = [PollFd::new(self.file.as_fd(), PollFlags::POLLIN)];
            match poll(&mut fds, timeout) {
                Ok(_) | Err(nix::errno::Errno::EINTR) => {}
                Err(e) => return Err(PipeError::Io(e.into())),
            }
        }
    }

    /// A whole frame, when the pipe holds one now: never waits (a running snippet
    /// looks for a cancel this way now and then).
    pub fn poll_frame(&mut self) -> Result<Option<Vec<u8>>, PipeError> {
        if let Some(frame) = self.frame_ready()? {
            return Ok(Some(frame));
        }
        while self.fill()? {
            if let Some(frame) = self.frame_ready()? {
                return Ok(Some(frame));
            }
        }
        Ok(None)
    }
}

/// The writing end (blocking: a full pipe waits for the reader).
#[derive(Debug)]
pub struct FrameWriter {
    file: File,
}

impl FrameWriter {
    pub fn new(fd: OwnedFd) -> Self {
        Self { file: File::from(fd) }
    }

    pub fn send(&mut self, payload: &[u8]) -> Result<(), PipeError> {
        if payload.len() > MAX_FRAME {
            return Err(PipeError::TooLarge(payload.len()));
        }
        let mut frame = Vec::with_capacity(4 + payload.len());
        frame.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        frame.extend_from_slice(payload);
        self.file.write_all(&frame).map_err(|e| match e.kind() {
            ErrorKind::BrokenPipe => PipeError::Closed,
            _ => PipeError::Io(e),
        })
    }
}
