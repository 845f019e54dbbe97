//! One host connection to the virtual adbd: handshake, stream bookkeeping and flow control.
//!
//! A reader task turns socket bytes into messages, a writer task serialises everything
//! sent back, and each opened stream runs its service as its own task with a
//! [`StreamIo`] (`stream.rs`). What the services do is in `services.rs`; framing is in
//! `message.rs`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::{Notify, mpsc};
use tokio::task::JoinSet;

use super::message::{
    A_CLSE, A_CNXN, A_OKAY, A_OPEN, A_VERSION, A_VERSION_MIN, A_WRTE, MAX_PAYLOAD, MAX_PAYLOAD_V1, Message,
};
use super::services::Service;
use super::stream::{ConnectionLink, Inbox, Routes, StreamIo, StreamRoute, lock_routes};
use crate::device::SimDevice;

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

/// How long a new connection may take to send its CNXN.
const HANDSHAKE: std::time::Duration = std::time::Duration::from_secs(10);
/// The most streams one connection may hold open.
const MOST_STREAMS: usize = 1024;

/// Serves one TCP connection until the host disconnects, sends garbage, or a fault
/// drops it. Never panics on anything the host sends.
pub(crate) async fn serve(socket: TcpStream, device: Arc<SimDevice>) {
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
    let link = ConnectionLink { out: out_tx.clone(), routes: routes.clone(), kill: kill.clone() };
    let mut services = JoinSet::new();
    let next_id = Arc::new(AtomicU32::new(1));
    let mut max_payload = MAX_PAYLOAD_V1;
    let mut connected = false;

    // A host says who it is (CNXN) at once, or the connection is closed.
    let handshake_by = tokio::time::Instant::now() + HANDSHAKE;
    let reason = loop {
        let msg = tokio::select! {
            read = Message::read(&mut reader, MAX_PAYLOAD) => read,
            _ = kill.notified() => break "dropped by a simctl fault".to_string(),
            _ = tokio::time::sleep_until(handshake_by), if !connected => {
                break format!("no CNXN within {} s", HANDSHAKE.as_secs());
            }
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
                let Some(kind) = Service::parse(&service) else {
                    tracing::debug!(%peer, %service, "unknown service refused");
                    let _ = out_tx.send(Message::new(A_CLSE, 0, remote, Vec::new()));
                    continue;
                };
                // Nothing listens there: refused, as adbd refuses a port no socket is bound to.
                if let Service::Tcp { port } = kind
                    && !device.agents().listening(port)
                {
                    let _ = out_tx.send(Message::new(A_CLSE, 0, remote, Vec::new()));
                    continue;
                }
                // A host opens a handful of streams at once; a flood of them is refused.
                if lock_routes(&routes).len() >= MOST_STREAMS {
                    let _ = out_tx.send(Message::new(A_CLSE, 0, remote, Vec::new()));
                    continue;
                }
                let local = next_id.fetch_add(1, Ordering::Relaxed);
                let (inbox_tx, inbox) = mpsc::unbounded_channel();
                let (acks_tx, acks) = mpsc::unbounded_channel();
                lock_routes(&routes).insert(local, StreamRoute { remote, inbox: inbox_tx, acks: acks_tx });
                let _ = out_tx.send(Message::new(A_OKAY, local, remote, Vec::new()));
                let io = StreamIo::new(local, remote, max_payload, &link, Inbox { data: inbox, acks });
                services.spawn(kind.serve(io, device.clone()));
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
