//! A stream kept open on a connection of its own, for a command that runs as long
//! as its stream does (an on-device agent's server started with `app_process`):
//! a thread reads what the command prints, keeps the first few KiB for messages,
//! and notes when the device closes the stream. Dropping the handle shuts the
//! socket, which ends the stream and, on the device, the command. Not the
//! exchanges of single commands (`direct.rs`, `server.rs`).

use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// How much of the command's output is kept.
const KEPT_OUTPUT: usize = 8 * 1024;

/// A live stream and what its command printed so far.
pub struct HeldStream {
    socket: TcpStream,
    ended: Arc<AtomicBool>,
    output: Arc<Mutex<Vec<u8>>>,
}

impl HeldStream {
    /// Starts `reader` on its own thread; it gets a sink for what the stream
    /// carries and returns when the stream ends. `socket` is shut when the handle
    /// drops.
    pub(super) fn start(socket: TcpStream, reader: impl FnOnce(&mut dyn FnMut(&[u8])) + Send + 'static) -> Self {
        let ended = Arc::new(AtomicBool::new(false));
        let output = Arc::new(Mutex::new(Vec::new()));
        let (thread_ended, thread_output) = (ended.clone(), output.clone());
        let spawned = std::thread::Builder::new().name("codeact-held-stream".into()).spawn(move || {
            let mut sink = |bytes: &[u8]| {
                if let Ok(mut kept) = thread_output.lock() {
                    let room = KEPT_OUTPUT.saturating_sub(kept.len());
                    kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
                }
            };
            reader(&mut sink);
            thread_ended.store(true, Ordering::SeqCst);
        });
        if spawned.is_err() {
            // No thread, no reader: the stream counts as ended at once.
            ended.store(true, Ordering::SeqCst);
        }
        Self { socket, ended, output }
    }

    /// Whether the device closed the stream (the command ended).
    pub fn ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }

    /// What the command printed so far (its first few KiB), as text.
    pub fn output(&self) -> String {
        self.output.lock().map(|o| String::from_utf8_lossy(&o).into_owned()).unwrap_or_default()
    }
}

impl Drop for HeldStream {
    fn drop(&mut self) {
        let _ = self.socket.shutdown(Shutdown::Both);
    }
}
