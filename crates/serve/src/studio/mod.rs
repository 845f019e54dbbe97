//! `codeact studio` as a library call: one page on 127.0.0.1 that shows the phone
//! live beside its element tree, says which selectors find the element under a
//! point (each unique or how many it matches, with its lookup time), acts through
//! the session's own tools, records the acts as a Rhai script (or a Maestro flow)
//! that `codeact exec` passes, runs Rhai in the same session, and replays run
//! folders. One [`Session`] serves it all; the live thread and the page's requests
//! take turns on it. Here: the studio's server; its state is `state.rs`, the door
//! the crate's `door.rs`, the routes `routes.rs`, the live view `live.rs` (its thread
//! `watch.rs`), pointing `point.rs`, acting `act.rs`, the recording `record.rs`,
//! the console `console.rs`, replays `replay.rs`, and the page itself `page/`. Not flags or printing (the binary's
//! `cli/studio.rs`).

mod act;
mod console;
mod live;
mod point;
mod record;
mod replay;
mod routes;
mod run;
mod state;
mod watch;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use codeact_runtime::session::Session;
use tokio_util::sync::CancellationToken;

pub use live::FRAMES_PER_SECOND;
pub use state::{Studio, StudioOptions};

/// Why the studio could not serve.
#[derive(Debug, thiserror::Error)]
pub enum StudioError {
    #[error(transparent)]
    Bind(#[from] crate::listen::BindError),
}

/// Serves the studio for `session` at `http://127.0.0.1:PORT/TOKEN/` (0: any free
/// port) until `stop` is cancelled; `ready` hears the address once it listens.
pub async fn serve(
    session: Session,
    options: StudioOptions,
    port: u16,
    token: String,
    stop: CancellationToken,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), StudioError> {
    let (listener, address) = crate::listen::bind_loopback(port, "--port").await?;
    let studio = Arc::new(Studio {
        session: Mutex::new(session),
        live: live::Live::default(),
        recording: Mutex::new(state::Recording::default()),
        options,
        token,
        port: address.port(),
        stop: stop.clone(),
        record: Mutex::new(state::RunFolder::Unopened),
    });
    let watcher = {
        let (studio, stop) = (studio.clone(), stop.clone());
        std::thread::spawn(move || watch::watch(&studio, &stop))
    };
    let router = routes::router(studio.clone());
    ready(address);
    crate::listen::serve(listener, router, stop.clone()).await;
    stop.cancel();
    let _ = tokio::task::spawn_blocking(move || watcher.join()).await;
    Ok(())
}
