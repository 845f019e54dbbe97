//! The iOS door's connections: each TCP connection served on its own task, so that
//! the phone's faults act on it as they act on an ADB connection — `simctl fault
//! drop` closes the very connection a request came on, `hang` leaves the request
//! unanswered, `latency` delays it — for every request but the test hooks
//! (`/codeact/simctl`), which must always answer. Not the routes (`mod.rs`).

use std::sync::Arc;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Notify;

use crate::device::{LineOutcome, SimDevice};

/// Serves `device`'s WebDriverAgent on `listener` until the task is dropped.
pub(crate) async fn accept_forever(listener: TcpListener, device: Arc<SimDevice>) {
    let routes = super::router(device.clone());
    let open = Arc::default();
    loop {
        let (socket, admitted) = crate::doors::accept::next(&listener, &open, "WebDriverAgent door").await;
        let drop_it = Arc::new(Notify::new());
        let (device, dropper) = (device.clone(), drop_it.clone());
        let routes = routes.clone().layer(axum::middleware::from_fn(move |request: Request, next: Next| {
            faulted(request, next, device.clone(), dropper.clone())
        }));
        tokio::spawn(async move {
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(crate::doors::accept::HEADER_TIMEOUT)
                .serve_connection(TokioIo::new(socket), TowerToHyperService::new(routes));
            tokio::select! {
                _ = connection => {}
                // A dropped connection: the socket closes with the task, mid-request.
                () = drop_it.notified() => {}
            }
            drop(admitted);
        });
    }
}

/// One request through the phone's faults first (the test hooks excepted).
async fn faulted(request: Request, next: Next, device: Arc<SimDevice>, drop_it: Arc<Notify>) -> Response {
    if request.uri().path().trim_end_matches('/').ends_with("/codeact/simctl") {
        return next.run(request).await;
    }
    let at_door = device.clone();
    match tokio::task::spawn_blocking(move || at_door.at_door()).await {
        Ok(Some(LineOutcome::Drop)) => {
            drop_it.notify_one();
            std::future::pending().await
        }
        Ok(Some(_)) => std::future::pending().await,
        _ => next.run(request).await,
    }
}
