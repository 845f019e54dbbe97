//! `codeact-sim`: a virtual Android 14 phone behind an adbd on loopback, which the
//! stock `adb`, adb_client and codeact's own client drive exactly as they drive a
//! phone. codeact's tests, examples and benchmarks run against it, and `codeact run
//! --device sim` starts one in-process.
//!
//! The public surface is small on purpose: [`SimConfig`] says what the phone is,
//! [`VirtualDevice`] runs one on its own threads, and [`serve`] runs one inside a tokio
//! runtime you already have. Everything else is reached the way a phone is reached:
//! over ADB (`adb shell simctl state` prints the whole world as JSON).
//!
//! Inside, as the runtime's own house: `doors/` are the ways in — `adb/` speaks
//! adb's wire protocol, `hdc/` is the HarmonyOS door (an hdc server whose shell
//! runs HarmonyOS's tools), `wda/` the iOS one (a WebDriverAgent HTTP server),
//! `agents/` the on-phone agents' servers (uiautomator2, the mobilerun Portal);
//! `page_source/` writes the screen as each platform's dump (`uiautomator`,
//! `uitest`, `xcui`); `shell/` runs command lines; `commands/` are the Android and
//! HarmonyOS tools; `world/` is the app model (from the data files in `data/`);
//! `keyboard` is the on-screen keyboard's geometry; `render/` draws the screen.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod apk;
mod commands;
mod config;
mod device;
mod doors;
mod emblem;
mod keyboard;
mod page_source;
mod render;
mod screen;
mod shell;
mod world;

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;

pub use config::{SimConfig, SimPlatform, random_token};
use device::SimDevice;
pub use world::{MAX_VARIANT, SpecError};

/// The default `codeact sim` port: outside 5555–5585, which the adb server probes
/// for emulators at start-up.
pub const DEFAULT_PORT: u16 = 15037;

/// Why the virtual device could not start.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("the world's data files are invalid")]
    World(#[from] SpecError),
    #[error("cannot listen on {addr}")]
    Bind {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot start the virtual device's runtime")]
    Runtime(#[source] std::io::Error),
}

/// Loads the world (bundled, or from `config.world`) and builds the phone.
fn build_device(config: SimConfig) -> Result<Arc<SimDevice>, SimError> {
    let catalog = match &config.world {
        Some(dir) => world::Catalog::from_dir(dir)?,
        None => world::Catalog::bundled()?,
    };
    Ok(Arc::new(SimDevice::new(config, catalog)))
}

/// Serves a phone described by `config` on `listener` until the task is dropped,
/// each connection on its own task. Errors only when the world cannot be loaded.
pub async fn serve(listener: TcpListener, config: SimConfig) -> Result<(), SimError> {
    let platform = config.platform;
    let device = build_device(config)?;
    open_door(listener, device, platform).await;
    Ok(())
}

/// Serves `device` on `listener` as `platform` does, until the task is dropped.
async fn open_door(listener: TcpListener, device: Arc<SimDevice>, platform: SimPlatform) {
    match platform {
        SimPlatform::Android => accept_forever(listener, device).await,
        SimPlatform::Harmony => doors::hdc::accept_forever(listener, device).await,
        SimPlatform::Ios => doors::wda::serve::accept_forever(listener, device).await,
    }
}

async fn accept_forever(listener: TcpListener, device: Arc<SimDevice>) {
    let open = Arc::default();
    loop {
        let (socket, admitted) = doors::accept::next(&listener, &open, "adb door").await;
        let device = device.clone();
        tokio::spawn(async move {
            doors::adb::connection::serve(socket, device).await;
            drop(admitted);
        });
    }
}

/// A virtual device running in this process on its own threads, for `--device sim`,
/// `codeact sim`, benchmarks, examples and tests. Stops when dropped.
pub struct VirtualDevice {
    addr: SocketAddr,
    runtime: Option<tokio::runtime::Runtime>,
}

impl VirtualDevice {
    /// Starts a phone on a free loopback port.
    pub fn start(config: SimConfig) -> Result<Self, SimError> {
        Self::start_at(config, SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    /// Starts a phone listening on `addr` (port 0 picks a free one).
    pub fn start_at(config: SimConfig, addr: SocketAddr) -> Result<Self, SimError> {
        let platform = config.platform;
        let device = build_device(config)?;
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
        runtime.spawn(open_door(listener, device, platform));
        Ok(Self { addr, runtime: Some(runtime) })
    }

    /// Where to connect: `adb connect {addr}`, adb_client's TCP device, or codeact's
    /// `--device {addr}`.
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
