//! One stream of a connection, as a service sees it: read what the host writes,
//! write back with one WRTE in flight at a time, close exactly once.
//!
//! The connection (`connection.rs`) routes the host's messages to streams; services
//! (`services.rs`, `sync.rs`) only see a [`StreamIo`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{Notify, mpsc};

use super::message::{A_CLSE, A_WRTE, Message};

/// The half of a stream the connection keeps, to route the host's messages to it.
pub(crate) struct StreamRoute {
    pub(crate) remote: u32,
    pub(crate) inbox: mpsc::UnboundedSender<Vec<u8>>,
    pub(crate) acks: mpsc::UnboundedSender<()>,
}

pub(crate) type Routes = Arc<Mutex<HashMap<u32, StreamRoute>>>;

pub(crate) fn lock_routes(routes: &Routes) -> std::sync::MutexGuard<'_, HashMap<u32, StreamRoute>> {
    // A poisoned map still holds valid routes: keep serving.
    routes.lock().unwrap_or_else(|e| e.into_inner())
}

/// What every stream of one connection shares with it: the writer, the routes, and
/// the switch that tears the connection down.
pub(crate) struct ConnectionLink {
    pub(crate) out: mpsc::UnboundedSender<Message>,
    pub(crate) routes: Routes,
    pub(crate) kill: Arc<Notify>,
}

/// The receiving ends of one stream's route: the host's data and its OKAYs.
pub(crate) struct Inbox {
    pub(crate) data: mpsc::UnboundedReceiver<Vec<u8>>,
    pub(crate) acks: mpsc::UnboundedReceiver<()>,
}

/// Why a stream can no longer be written to.
#[derive(Debug, thiserror::Error)]
#[error("the host closed the stream")]
pub(crate) struct StreamClosed;

/// A service's view of its stream: read what the host writes, write back with one
/// WRTE in flight at a time, close once.
pub(crate) struct StreamIo {
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
    /// A stream the connection just opened as `local` for the host's `remote` (its
    /// route is registered already).
    pub(crate) fn new(local: u32, remote: u32, max_payload: usize, link: &ConnectionLink, inbox: Inbox) -> Self {
        Self {
            local,
            remote,
            max_payload,
            out: link.out.clone(),
            inbox: inbox.data,
            acks: inbox.acks,
            routes: link.routes.clone(),
            kill: link.kill.clone(),
            awaiting_ack: false,
            killed: false,
        }
    }

    /// Sends `data` in WRTEs no larger than the negotiated payload, waiting for the
    /// host's OKAY after each.
    pub(crate) async fn write(&mut self, data: &[u8]) -> Result<(), StreamClosed> {
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
    pub(crate) async fn write_one(&mut self, chunk: Vec<u8>) -> Result<(), StreamClosed> {
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
    pub(crate) fn max_payload(&self) -> usize {
        self.max_payload
    }

    /// The next bytes the host wrote; `None` once it closed the stream.
    pub(crate) async fn read(&mut self) -> Option<Vec<u8>> {
        self.inbox.recv().await
    }

    /// Tears the whole connection down, as a device that drops off the bus does.
    pub(crate) fn kill_connection(&mut self) {
        self.killed = true;
        self.kill.notify_one();
    }

    /// Closes the stream (same as dropping it).
    pub(crate) fn close(self) {}
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
