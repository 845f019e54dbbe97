//! One host connection to the virtual adbd: handshake, stream bookkeeping and flow control.
//!
//! A reader task turns socket bytes into messages, a writer task serialises everything
//! sent back, and each opened stream runs its service as its own task with a
//! [`StreamIo`]. What the services do is in `services.rs`; framing is in `message.rs`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::{Notify, mpsc};
use tokio::task::JoinSet;

use super::message::*;
use crate::sim::device::SimDevice;

/// The half of a stream the connection keeps, to route the host's messages to it.
struct StreamRoute {
    remote: u32,
    inbox: mpsc::UnboundedSender<Vec<u8>>,
    acks: mpsc::UnboundedSender<()>,
}

type Routes = Arc<Mutex<HashMap<u32, StreamRoute>>>;

fn lock_routes(routes: &Routes) -> std::sync::MutexGuard<'_, HashMap<u32, StreamRoute>> {
    // A poisoned map still holds valid routes: keep serving.
    routes.lock().unwrap_or_else(|e| e.into_inner())
}

/// Why a stream can no longer be written to.
#[derive(Debug, thiserror::Error)]
#[error("the host closed the stream")]
pub struct StreamClosed;

/// A service's view of its stream: read what the host writes, write back with one
/// WRTE in flight at a time, close once.
pub struct StreamIo {
    local: u32,
    remote: u32,
    max_payload: usize,
    out: mpsc::UnboundedSender<Message>,
    inbox: mpsc::UnboundedReceiver<Vec<u8>>,
    acks: mpsc::UnboundedReceiver<()>,
    routes: Routes,
    kill: Arc<Notify>,
    /// A WRTE was sent and its OKAY has not arrived yet.
    awaiting_ack: bool,
    /// The connection is being torn down by a fault: send nothing more.
    killed: bool,
}

impl StreamIo {
    /// Sends `data` in WRTEs no larger than the negotiated payload, waiting for the
    /// host's OKAY after each.
    pub async fn write(&mut self, data: &[u8]) -> Result<(), StreamClosed> {
        for chunk in data.chunks(self.max_payload.max(1)) {
            self.write_one(chunk.to_vec()).await?;
        }
        Ok(())
    }

    /// Sends exactly one WRTE carrying `chunk` (the caller keeps it within the limit).
    ///
    /// Waits for the OKAY of the previous WRTE first, not for this one's: adb_client
    /// never acknowledges the last reply of a sync transaction, and waiting for it
    /// would deadlock the QUIT that follows.
    pub async fn write_one(&mut self, chunk: Vec<u8>) -> Result<(), StreamClosed> {
        if self.awaiting_ack {
            self.acks.recv().await.ok_or(StreamClosed)?;
            // Some hosts acknowledge more than they were sent; stale OKAYs must not
            // let later WRTEs run ahead of the host.
            while self.acks.try_recv().is_ok() {}
        }
        self.out.send(Message::new(A_WRTE, self.local, self.remote, chunk)).map_err(|_| StreamClosed)?;
        self.awaiting_ack = true;
        Ok(())
    }

    /// The largest payload one WRTE may carry on this connection.
    pub fn max_payload(&self) -> usize {
        self.max_payload
    }

    /// The next bytes the host wrote; `None` once it closed the stream.
    pub async fn read(&mut self) -> Option<Vec<u8>> {
        self.inbox.recv().await
    }

    /// Tears the whole connection down, as a device that drops off the bus does.
    pub fn kill_connection(&mut self) {
        self.killed = true;
        self.kill.notify_one();
    }

    /// Closes the stream (same as dropping it).
    pub fn close(self) {}
}

impl Drop for StreamIo {
    /// Sends CLSE unless the host closed the stream first or the connection is being
    /// dropped, so a stream is closed exactly once even if its service panicked.
    fn drop(&mut self) {
        let still_open = lock_routes(&self.routes).remove(&self.local).is_some();
        if still_open && !self.killed {
            let _ = self.out.send(Message::new(A_CLSE, self.local, self.remote, Vec::new()));
        }
    }
}

/// Turns off delayed ACKs for what was just read. Hosts such as adb_client write a
/// header and its payload as two small segments without TCP_NODELAY; with a delayed
/// ACK here, Nagle holds the second one back ~40 ms on every message. Linux resets the
/// flag after each ACK, so it is set again after every read.
fn acknowledge_at_once(reader: &tokio::net::tcp::OwnedReadHalf) {
    #[cfg(target_os = "linux")]
    {
        let _ = socket2::SockRef::from(reader.as_ref()).set_tcp_quickack(true);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = reader;
}

/// Serves one TCP connection until the host disconnects, sends garbage, or a fault
/// drops it. Never panics on anything the host sends.
pub async fn serve(socket: TcpStream, device: Arc<SimDevice>) {
    let peer = socket.peer_addr().map(|a| a.to_string()).unwrap_or_else(|_| "?".into());
    let _ = socket.set_nodelay(true);
    let (mut reader, mut writer) = socket.into_split();
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Message>();
    let writer_task = tokio::spawn(async move {
        while let Some(msg) = out_rx.recv().await {
            if writer.write_all(&msg.encode()).await.is_err() {
                break;
            }
        }
        let _ = writer.shutdown().await;
    });

    let kill = Arc::new(Notify::new());
    let routes: Routes = Arc::new(Mutex::new(HashMap::new()));
    let mut services = JoinSet::new();
    let next_id = Arc::new(AtomicU32::new(1));
    let mut max_payload = MAX_PAYLOAD_V1;
    let mut connected = false;

    let reason = loop {
        let msg = tokio::select! {
            read = Message::read(&mut reader, MAX_PAYLOAD) => read,
            _ = kill.notified() => break "dropped by a simctl fault".to_string(),
        };
        let msg = match msg {
            Ok(msg) => msg,
            Err(e) => break e.to_string(),
        };
        acknowledge_at_once(&reader);
        match msg.command {
            A_CNXN => {
                let version = msg.arg0.clamp(A_VERSION_MIN, A_VERSION);
                // The host's limit, capped at ours; at least one header's worth.
                max_payload = (msg.arg1 as usize).clamp(64, MAX_PAYLOAD);
                connected = true;
                let banner = device.banner();
                let _ = out_tx.send(Message::new(A_CNXN, version, max_payload as u32, banner.into_bytes()));
            }
            A_OPEN if connected => {
                let service = String::from_utf8_lossy(&msg.payload).trim_end_matches('\0').to_string();
                let remote = msg.arg0;
                let Some(kind) = super::services::Service::parse(&service) else {
                    tracing::debug!(%peer, %service, "unknown service refused");
                    let _ = out_tx.send(Message::new(A_CLSE, 0, remote, Vec::new()));
                    continue;
                };
                let local = next_id.fetch_add(1, Ordering::Relaxed);
                let (inbox_tx, inbox) = mpsc::unbounded_channel();
                let (acks_tx, acks) = mpsc::unbounded_channel();
                lock_routes(&routes).insert(local, StreamRoute { remote, inbox: inbox_tx, acks: acks_tx });
                let _ = out_tx.send(Message::new(A_OKAY, local, remote, Vec::new()));
                let io = StreamIo {
                    local,
                    remote,
                    max_payload,
                    out: out_tx.clone(),
                    inbox,
                    acks,
                    routes: routes.clone(),
                    kill: kill.clone(),
                    awaiting_ack: false,
                    killed: false,
                };
                services.spawn(kind.run(io, device.clone()));
            }
            A_OKAY => {
                if let Some(route) = lock_routes(&routes).get(&msg.arg1) {
                    let _ = route.acks.send(());
                }
            }
            A_WRTE => {
                let routes = lock_routes(&routes);
                if let Some(route) = routes.get(&msg.arg1) {
                    let _ = out_tx.send(Message::new(A_OKAY, msg.arg1, route.remote, Vec::new()));
                    let _ = route.inbox.send(msg.payload);
                }
            }
            A_CLSE => {
                // Dropping the route ends the service's reads and writes; a CLSE is
                // never answered with a CLSE.
                lock_routes(&routes).remove(&msg.arg1);
            }
            // AUTH and STLS are never requested by this device; OPEN before CNXN is ignored.
            _ => {}
        }
        // Reap finished services so a long-lived connection does not accumulate them.
        while services.try_join_next().is_some() {}
    };
    tracing::debug!(%peer, %reason, "connection closed");
    // Unregister streams before cancelling services, so a cancelled service cannot
    // send a CLSE that makes a dropped device look cleanly closed.
    lock_routes(&routes).clear();
    services.abort_all();
    drop(out_tx);
    writer_task.abort();
}
