//! How every server codeact starts (the studio, `serve --webdriver`, `mcp --http`)
//! takes its connections: HTTP/1.1 on the loopback listener, a request's head read
//! within [`HEADER_TIMEOUT`] or the connection closed, and at most a number of
//! connections at once (a quarter of the process's descriptors, within
//! [`FEWEST_CONNECTIONS`]..=[`MOST_CONNECTIONS`]). When they are all taken — or
//! the descriptors run out — the connection idle the longest (no request in
//! flight, and none for the longest time: a half-open one before a client's
//! keep-alive one between its requests) is closed to make room, so idle sockets
//! never lock a real client out; one whose answer is still streaming is never
//! taken. A body must come within [`BODY_TIMEOUT`] (each server reads it with
//! [`read_body`]). Stopping lets requests in flight finish (briefly).
//! Every one listens through [`bind_loopback`]: on 127.0.0.1, never another address.
//! Not who may come in (`door.rs`, each server's token check) or the routes.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::body::Body;
use http_body_util::BodyExt as _;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio_util::sync::CancellationToken;
use tower::ServiceExt as _;

/// How long a client may take to send a request's head (per request).
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// The fewest and the most connections a server keeps open at once.
pub const FEWEST_CONNECTIONS: usize = 16;
pub const MOST_CONNECTIONS: usize = 512;
/// How long a client may take to send a request's body.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long stopping waits for requests in flight.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// One open connection: when it last did something (opened, began or finished a
/// request), how many requests it has in flight (an answer counts until its body
/// is sent), and how to close it at once.
struct Open {
    busy: Arc<Activity>,
    evict: CancellationToken,
}

/// A connection's requests in flight and its last activity (ms since the server began).
#[derive(Default)]
struct Activity {
    in_flight: AtomicUsize,
    last_ms: AtomicU64,
}

type Table = Arc<Mutex<HashMap<u64, Open>>>;

fn lock(table: &Table) -> MutexGuard<'_, HashMap<u64, Open>> {
    table.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// When the server began: activity is counted from it.
static EPOCH: std::sync::LazyLock<Instant> = std::sync::LazyLock::new(Instant::now);

fn now_ms() -> u64 {
    u64::try_from(EPOCH.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// A request in flight on its connection, until it is dropped (with the answer's body).
struct Busy(Arc<Activity>);

impl Busy {
    fn new(activity: &Arc<Activity>) -> Self {
        activity.in_flight.fetch_add(1, Ordering::SeqCst);
        activity.last_ms.store(now_ms(), Ordering::SeqCst);
        Busy(activity.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.last_ms.store(now_ms(), Ordering::SeqCst);
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The most connections at once: a quarter of the descriptors this process may
/// open, within bounds (the rest serve phones, files and the sandbox).
pub fn connection_cap() -> usize {
    let soft = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE).map_or(1024, |(s, _)| s);
    usize::try_from(soft / 4).unwrap_or(MOST_CONNECTIONS).clamp(FEWEST_CONNECTIONS, MOST_CONNECTIONS)
}

/// Closes the connection idle the longest (taken off the table at once, so the
/// next look does not pick it again); whether there was one.
fn evict_idle(table: &Table) -> bool {
    let mut open = lock(table);
    let oldest = open
        .iter()
        .filter(|(_, c)| c.busy.in_flight.load(Ordering::SeqCst) == 0)
        .min_by_key(|(_, c)| c.busy.last_ms.load(Ordering::SeqCst))
        .map(|(id, _)| *id);
    match oldest.and_then(|id| open.remove(&id)) {
        Some(c) => {
            c.evict.cancel();
            true
        }
        None => false,
    }
}

/// Whether accepting failed for want of descriptors (then an idle one is freed).
fn out_of_descriptors(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(code) if code == nix::libc::EMFILE || code == nix::libc::ENFILE)
}

/// Serves `router` on `listener` until `stop` is cancelled.
/// Why a server could not listen; `flag` is the option that picks its port.
#[derive(Debug, thiserror::Error)]
#[error("could not listen on 127.0.0.1:{port}: pick another {flag}, or 0 for any free one")]
pub struct BindError {
    pub port: u16,
    pub flag: &'static str,
    #[source]
    pub source: std::io::Error,
}

/// A listener on 127.0.0.1:`port` (0: any free port) and the address it got.
pub async fn bind_loopback(
    port: u16,
    flag: &'static str,
) -> Result<(tokio::net::TcpListener, std::net::SocketAddr), BindError> {
    let failed = |source| BindError { port, flag, source };
    let listener = tokio::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, port)).await.map_err(failed)?;
    let address = listener.local_addr().map_err(failed)?;
    Ok((listener, address))
}

pub async fn serve(listener: tokio::net::TcpListener, router: axum::Router, stop: CancellationToken) {
    let cap = connection_cap();
    let table: Table = Arc::default();
    let mut next = 0u64;
    loop {
        let accepted = tokio::select! {
            _ = stop.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of descriptors: make room, and let the closed one go before
                // trying again (a connection gone before it was taken is no reason).
                if out_of_descriptors(&e) {
                    evict_idle(&table);
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let (full, room) = {
            let open = lock(&table).len();
            (open >= cap, open < cap || evict_idle(&table))
        };
        if full && !room {
            // Every connection is answering: this one is turned away at once.
            drop(stream);
            continue;
        }
        let _ = stream.set_nodelay(true);
        next += 1;
        let id = next;
        let busy = Arc::new(Activity::default());
        busy.last_ms.store(now_ms(), Ordering::SeqCst);
        let evict = CancellationToken::new();
        lock(&table).insert(id, Open { busy: busy.clone(), evict: evict.clone() });
        let (router, table, stop) = (router.clone(), table.clone(), stop.clone());
        tokio::spawn(async move {
            connection(stream, router, busy, evict, stop).await;
            lock(&table).remove(&id);
        });
    }
    // Stopped: each connection finishes what is in flight, within the grace time.
    let deadline = Instant::now() + STOP_GRACE;
    while !lock(&table).is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// One connection, until the client goes, it is evicted, or the server stops.
async fn connection(
    stream: tokio::net::TcpStream,
    router: axum::Router,
    busy: Arc<Activity>,
    evict: CancellationToken,
    stop: CancellationToken,
) {
    let service = hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
        let guard = Busy::new(&busy);
        let router = router.clone();
        async move {
            let response = match router.oneshot(request.map(Body::new)).await {
                Ok(response) => response,
                Err(never) => match never {},
            };
            // The request stays in flight until its answer's body is sent (a stream).
            Ok::<_, Infallible>(response.map(|body| {
                Body::new(body.map_frame(move |frame| {
                    let _in_flight = &guard;
                    frame
                }))
            }))
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(HEADER_TIMEOUT).keep_alive(true);
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    let mut conn = std::pin::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => {}
        _ = evict.cancelled() => {}
        _ = stop.cancelled() => {
            conn.as_mut().graceful_shutdown();
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = tokio::time::sleep(STOP_GRACE) => {}
                _ = evict.cancelled() => {}
            }
        }
    }
}

/// A request's body, read within [`BODY_TIMEOUT`] and up to `most` bytes; `None`
/// when it is larger, cut off, or too slow.
pub async fn read_body(body: Body, most: usize) -> Option<axum::body::Bytes> {
    tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, most)).await.ok()?.ok()
}
