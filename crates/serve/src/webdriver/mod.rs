//! `codeact serve --webdriver` as a library call: the W3C WebDriver protocol with
//! Appium's extensions on 127.0.0.1, so the Appium clients of every language drive
//! codeact sessions — and send Rhai through `execute_driver`, which runs in the
//! session's sandbox under every limit. Each WebDriver session is one codeact
//! [`Session`](codeact_runtime::session::Session), opened from the server's
//! settings and the client's capabilities, and recorded like any run.
//!
//! Here: serving. What the server is started with is `options.rs`; the door the
//! crate's `door.rs` (the token is the base path); routing and the envelope
//! `routes.rs` and `wire.rs`; the server's state and its session table
//! `sessions.rs`, capabilities
//! `capabilities.rs`; one session's state and how it runs a line of Rhai
//! `session.rs`; finding `find.rs` (with `xpath.rs`, `uiselector.rs`, and
//! `source.rs` for the page source); elements `element.rs`; W3C actions
//! `actions.rs`; the device's commands and `mobile:` methods `device.rs`;
//! `execute_driver.rs`; what a request marked sensitive masks `sensitive.rs`. Not
//! flags or printing (the binary's `cli/serve.rs`).

mod actions;
mod capabilities;
mod device;
mod element;
mod execute_driver;
mod find;
mod options;
mod routes;
mod sensitive;
mod session;
mod sessions;
pub mod source;
mod uiselector;
mod wire;
mod xpath;

use std::net::SocketAddr;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

pub use options::{MAX_BODY, MOST_IDLE, MOST_IN_FLIGHT, WebdriverOptions};
pub use sessions::Server;

/// Why the server could not serve.
#[derive(Debug, thiserror::Error)]
pub enum WebdriverError {
    #[error(transparent)]
    Bind(#[from] crate::listen::BindError),
}

/// Serves at `http://127.0.0.1:PORT/TOKEN/` (0: any free port) until `stop` is
/// cancelled; `ready` hears the address once it listens. Every session still open
/// then is closed, its records finished.
pub async fn serve(
    options: WebdriverOptions,
    port: u16,
    token: String,
    stop: CancellationToken,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), WebdriverError> {
    let (listener, address) = crate::listen::bind_loopback(port, "--port").await?;
    let server = Arc::new(Server {
        options,
        token,
        port: address.port(),
        sessions: sessions::Sessions::default(),
        in_flight: Arc::new(tokio::sync::Semaphore::new(MOST_IN_FLIGHT)),
    });
    let reaper = tokio::spawn(sessions::reap_idle(server.clone(), stop.clone()));
    let router = routes::router(server.clone());
    ready(address);
    crate::listen::serve(listener, router, stop.clone()).await;
    stop.cancel();
    let _ = reaper.await;
    let closing = server.clone();
    let _ = tokio::task::spawn_blocking(move || closing.sessions.close_all()).await;
    Ok(())
}
