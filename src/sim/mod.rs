//! The virtual Android device: an adbd on loopback that the stock `adb` and
//! adb_client drive exactly as they drive a phone.
//!
//! `adb/` speaks the wire protocol, `shell/` runs command lines, `commands/` are the
//! Android tools, `world/` is the app model (from data files), `render/` draws it.
//! Tests and the runtime reach it only through ADB.

pub mod adb;
pub mod commands;
pub mod device;
pub mod render;
pub mod screen;
pub mod shell;
pub mod world;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use tokio::net::TcpListener;

pub use device::{SimConfig, SimDevice};
pub use world::{Catalog, SpecError};

/// The default `codeact sim` port: outside 5555–5585, which the adb server probes
/// for emulators at start-up.
pub const DEFAULT_PORT: u16 = 15037;

/// Why the virtual device could not start.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("the world's data files are invalid")]
    World(#[from] SpecError),
    #[error("cannot listen on {addr}")]
    Bind { addr: SocketAddr, source: std::io::Error },
    #[error("cannot start the virtual device's runtime")]
    Runtime(#[source] std::io::Error),
}

/// Loads the world (bundled, or from `world_dir`) and builds the device.
pub fn build_device(config: SimConfig, world_dir: Option<&Path>) -> Result<Arc<SimDevice>, SimError> {
    let catalog = match world_dir {
        Some(dir) => Catalog::from_dir(dir)?,
        None => Catalog::bundled()?,
    };
    Ok(Arc::new(SimDevice::new(config, catalog)))
}

/// Binds `addr`; `port 0` picks a free port.
pub async fn bind(addr: SocketAddr) -> Result<TcpListener, SimError> {
    TcpListener::bind(addr).await.map_err(|source| SimError::Bind { addr, source })
}

/// Accepts connections forever, each served on its own task.
pub async fn serve(listener: TcpListener, device: Arc<SimDevice>) {
    loop {
        match listener.accept().await {
            Ok((socket, _)) => {
                tokio::spawn(adb::connection::serve(socket, device.clone()));
            }
            Err(e) => {
                // Out of file descriptors and the like: back off instead of spinning.
                tracing::warn!("accept failed: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        }
    }
}

/// A virtual device running in this process on its own threads, for `--device sim`,
/// benchmarks, examples and tests. Stops when dropped.
pub struct VirtualDevice {
    addr: SocketAddr,
    runtime: Option<tokio::runtime::Runtime>,
}

impl VirtualDevice {
    /// Starts the bundled world on a free loopback port.
    pub fn start(config: SimConfig) -> Result<Self, SimError> {
        Self::start_with(config, None, SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    pub fn start_with(config: SimConfig, world_dir: Option<&Path>, addr: SocketAddr) -> Result<Self, SimError> {
        let device = build_device(config, world_dir)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("codeact-sim")
            .enable_all()
            .build()
            .map_err(SimError::Runtime)?;
        // Bound without `block_on`, so this also works when called from inside
        // another tokio runtime (the agent loop).
        let bind_err = |source| SimError::Bind { addr, source };
        let std_listener = std::net::TcpListener::bind(addr).map_err(bind_err)?;
        std_listener.set_nonblocking(true).map_err(bind_err)?;
        let addr = std_listener.local_addr().map_err(bind_err)?;
        let listener = {
            let _entered = runtime.enter();
            TcpListener::from_std(std_listener).map_err(bind_err)?
        };
        runtime.spawn(serve(listener, device));
        Ok(Self { addr, runtime: Some(runtime) })
    }

    /// Where to connect: `adb connect {addr}` or adb_client's TCP device.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for VirtualDevice {
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}
