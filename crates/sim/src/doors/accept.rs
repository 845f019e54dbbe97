//! How each of the phone's doors takes TCP connections: at most
//! [`MOST_CONNECTIONS`] at once, and never more than a quarter of the process's
//! descriptors (a phone has few clients; more are closed at once, so a flood
//! cannot take every descriptor of the process it runs in), and
//! a short back-off when accepting fails (out of descriptors) instead of a spin.
//! Each door bounds what a connection may hold on its own (a handshake's time, its
//! streams, a request's head). Not the protocols.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::net::{TcpListener, TcpStream};

/// How long an HTTP door waits for a request's head.
pub(crate) const HEADER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The most connections one door keeps open at once.
pub(crate) const MOST_CONNECTIONS: usize = 256;

/// A connection counted among a door's open ones until it is dropped.
pub(crate) struct Admitted(Arc<AtomicUsize>);

impl Drop for Admitted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The most connections a door keeps open in this process.
fn cap() -> usize {
    let soft = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE).map_or(1024, |(s, _)| s);
    usize::try_from(soft / 4).unwrap_or(MOST_CONNECTIONS).clamp(8, MOST_CONNECTIONS)
}

/// The next connection the door may take, counted in `open`.
pub(crate) async fn next(listener: &TcpListener, open: &Arc<AtomicUsize>, door: &str) -> (TcpStream, Admitted) {
    let cap = cap();
    loop {
        match listener.accept().await {
            Ok((socket, _)) => {
                if open.fetch_add(1, Ordering::SeqCst) >= cap {
                    open.fetch_sub(1, Ordering::SeqCst);
                    tracing::warn!("{door}: {cap} connections are open already; one more was closed");
                    continue;
                }
                return (socket, Admitted(open.clone()));
            }
            Err(e) => {
                // Out of file descriptors and the like: back off instead of spinning.
                tracing::warn!("{door}: accept failed: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        }
    }
}
