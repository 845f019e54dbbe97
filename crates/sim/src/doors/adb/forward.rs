//! The `tcp:PORT` service: one stream from the host bridged, as one HTTP/1.1
//! connection, to the router of the on-phone agent that listens on that device port
//! (the phone's and the agents' faults first). Not the agents' servers (`doors/agents/`).

use std::sync::Arc;

use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::StreamIo;
use crate::device::SimDevice;
use crate::device::agents::{AgentFault, PORTAL_PORT, U2_PORT, UIA2_PORT};
use crate::doors::agents::{portal, u2, uia2};

/// Serves one `tcp:PORT` stream as an HTTP connection to the agent on `port`.
pub(crate) async fn serve_port(port: u16, mut io: StreamIo, device: Arc<SimDevice>) {
    // The phone's faults first, as for a shell command: each stream is one request.
    let dev = device.clone();
    match tokio::task::spawn_blocking(move || dev.at_door()).await {
        Ok(Some(crate::device::LineOutcome::Drop)) => return io.kill_connection(),
        Ok(Some(_)) => {
            // Hung: everything read, nothing answered, until the host gives up.
            while io.read().await.is_some() {}
            return;
        }
        _ => {}
    }
    let fault = device.agents().fault().clone();
    match fault {
        // Bytes no HTTP client can read, then the close.
        AgentFault::Garbage => {
            let _ = io.write(b"\x00\x17\xffgarbage \xfe{\"not\": http}\r\n").await;
            return;
        }
        // Everything read, nothing answered, until the host gives up.
        AgentFault::Hang => {
            while io.read().await.is_some() {}
            return;
        }
        _ => {}
    }
    let router = match port {
        U2_PORT => u2::router(device),
        UIA2_PORT => uia2::router(device),
        PORTAL_PORT => portal::router(device),
        _ => return,
    };
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let server = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(crate::doors::accept::HEADER_TIMEOUT)
        .serve_connection(TokioIo::new(theirs), TowerToHyperService::new(router));
    let server = tokio::spawn(server);
    let (mut from_server, mut to_server) = tokio::io::split(ours);
    let mut buf = vec![0u8; io.max_payload().max(1024)];
    let mut host_open = true;
    loop {
        tokio::select! {
            data = io.read(), if host_open => match data {
                Some(data) => {
                    if to_server.write_all(&data).await.is_err() {
                        break;
                    }
                }
                // The host is done sending; the answer in flight still goes back.
                None => {
                    host_open = false;
                    let _ = to_server.shutdown().await;
                }
            },
            read = from_server.read(&mut buf) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if io.write(&buf[..n]).await.is_err() {
                        break;
                    }
                }
            },
        }
    }
    server.abort();
}
