//! The virtual phone behind the adbd: its world, files, properties and injected
//! faults. Every service ends up here with a command line or a framebuffer request.
//!
//! It is reached only through the ADB wire protocol (see `adb/`); tests never call
//! it directly. The Android tools that run its command lines are in `commands/`. Faults apply to every command except `simctl` itself, so a test can
//! always read state and clear them. What its agents keep (which ports listen, Appium
//! server's session) is in `agents.rs` and `uia2_state.rs` (serving them is
//! `doors/agents/`'s); putting an APK on the phone is `install.rs`.

pub(crate) mod agents;
pub(crate) mod install;
pub(crate) mod uia2_state;

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::config::SimConfig;
use crate::render::{self, Frame};
use crate::shell::{self, MemFs, Output, ShellEnv};
use crate::world::{Catalog, Geometry, World};

/// Faults injected with `simctl fault ...`.
#[derive(Debug, Default, Clone)]
pub(crate) struct Faults {
    /// Added before every command.
    pub(crate) latency: Duration,
    /// After this many more commands, the next one drops its connection.
    pub(crate) drop_after: Option<u32>,
    /// After this many more commands, the next one never answers.
    pub(crate) hang_after: Option<u32>,
    /// `uiautomator dump` takes at least this long.
    pub(crate) dump_latency: Duration,
}

/// How a command line ended, as the transport must see it.
#[derive(Debug)]
pub(crate) enum LineOutcome {
    Done(Output),
    /// Close the whole connection without answering.
    Drop,
    /// Never answer.
    Hang,
}

/// Sets the flag when dropped: a door's task that is cancelled (its connection went
/// away) stops the command it started, as SIGHUP does on a phone.
pub(crate) struct CancelOnDrop(pub(crate) Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

pub(crate) struct SimDevice {
    /// Command lines served, simctl excluded (`simctl stats`): lets tests count round trips.
    commands: std::sync::atomic::AtomicU64,
    config: SimConfig,
    world: Mutex<World>,
    fs: Arc<MemFs>,
    faults: Mutex<Faults>,
    /// The apps as written; the world runs [`Self::variant`] of them.
    base: Arc<Catalog>,
    variant: Mutex<u32>,
    /// What runs beside the apps and listens on device ports.
    agents: Arc<agents::Agents>,
}

/// Puts every app's APK where `pm path` says it is. A failure leaves that app
/// without a file (logged): the phone still boots.
fn install_apks(fs: &MemFs, catalog: &Catalog) {
    let apps = catalog.apps.iter().map(|app| (app.package.as_str(), app.system, crate::apk::build(app)));
    let bare = catalog.world.system_packages.iter().map(|p| (p.as_str(), true, crate::apk::build_bare(p)));
    for (package, system, built) in apps.chain(bare) {
        let installed = built.map_err(|e| e.to_string()).and_then(|bytes| {
            fs.install_system_file(&crate::apk::path_of(package, system), &bytes).map_err(|e| e.to_string())
        });
        if let Err(e) = installed {
            tracing::warn!("the APK of {package} is missing: {e}");
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // The state behind a poisoned lock is still consistent enough to serve.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl SimDevice {
    pub(crate) fn new(config: SimConfig, catalog: Catalog) -> Self {
        let look = crate::screen::Look {
            dark: config.dark,
            font_scale: if config.font_scale.is_finite() { config.font_scale.clamp(0.5, 2.0) } else { 1.0 },
        };
        let geometry = Geometry { width: config.width, height: config.height, density: config.density, look };
        let fs = Arc::new(MemFs::new());
        let base = Arc::new(catalog);
        let variant = config.variant.min(crate::world::variant::MAX_VARIANT);
        let running = if variant == 0 { base.clone() } else { Arc::new(base.variant(variant)) };
        let world = World::new(running.clone(), geometry, fs.clone());
        install_apks(&fs, &running);
        Self {
            commands: std::sync::atomic::AtomicU64::new(0),
            config,
            world: Mutex::new(world),
            fs,
            faults: Mutex::new(Faults::default()),
            base,
            variant: Mutex::new(variant),
            agents: Arc::default(),
        }
    }

    /// What runs beside the apps (uiautomator2's server) and listens on device ports.
    pub(crate) fn agents(&self) -> &Arc<agents::Agents> {
        &self.agents
    }

    /// The layout variant the apps show now.
    pub(crate) fn variant(&self) -> u32 {
        *lock(&self.variant)
    }

    /// Shows the apps as layout variant `n`, as an update installs them: the data
    /// stays, every app is closed, the home screen shows.
    pub(crate) fn set_variant(&self, n: u32) {
        let n = n.min(crate::world::variant::MAX_VARIANT);
        *lock(&self.variant) = n;
        let catalog = Arc::new(self.base.variant(n));
        let mut world = self.world();
        let state = std::mem::take(&mut world.state);
        let collections = std::mem::take(&mut world.collections);
        let (crash_on, log) = (std::mem::take(&mut world.crash_on), std::mem::take(&mut world.log));
        let fresh = World::new(catalog.clone(), world.geometry, self.fs.clone());
        install_apks(&self.fs, &catalog);
        *world = fresh;
        // The update's own state keys (a dialog seen or not) start fresh; the rest is kept.
        for (k, v) in state {
            world.state.insert(k, v);
        }
        world.collections = collections;
        world.crash_on = crash_on;
        world.log = log;
    }

    pub(crate) fn config(&self) -> &SimConfig {
        &self.config
    }

    pub(crate) fn fs(&self) -> &MemFs {
        &self.fs
    }

    pub(crate) fn world(&self) -> MutexGuard<'_, World> {
        lock(&self.world)
    }

    pub(crate) fn faults(&self) -> MutexGuard<'_, Faults> {
        lock(&self.faults)
    }

    /// The CNXN banner: what `adb devices -l` shows.
    pub(crate) fn banner(&self) -> String {
        format!(
            "device::ro.product.name={};ro.product.model={};ro.product.device={};features=shell_v2,cmd,fixed_push_mkdir",
            self.config.product, self.config.model, self.config.product
        )
    }

    /// The screen as pixels (framebuffer and raw screencap share this).
    pub(crate) fn frame(&self) -> Frame {
        let screen = self.world().screen();
        render::render(&screen)
    }

    /// Runs one shell command line, applying injected faults first (except to a
    /// line that starts with `simctl`, so tests can always read state and clear
    /// them). Sleeps and the rest of the script stop once `cancel` is set (the host
    /// closed the stream, as SIGHUP does on a phone).
    pub(crate) fn run_line(&self, line: &str, cancel: Option<Arc<AtomicBool>>) -> LineOutcome {
        let is_simctl = line.split_whitespace().next().is_some_and(|w| w.trim_matches('\'') == "simctl");
        if !is_simctl {
            self.commands.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if let Some(outcome) = self.apply_faults() {
                return outcome;
            }
        }
        let env = ShellEnv { fs: &self.fs, commands: self, deadline: None, cancel };
        LineOutcome::Done(shell::run_script(line, &env))
    }

    /// A request at any door but the shell's (a screen grab, a file transfer, an
    /// on-device agent's request, a WebDriverAgent call) through the same faults as
    /// a command line, so that fault tests test what users run (`simctl stats`
    /// still counts command lines only).
    pub(crate) fn at_door(&self) -> Option<LineOutcome> {
        self.apply_faults()
    }

    /// Counts one command against the drop/hang faults and waits out the injected
    /// latency; `Some` when this command must be dropped or hung instead.
    pub(crate) fn apply_faults(&self) -> Option<LineOutcome> {
        {
            let mut faults = self.faults();
            let f = &mut *faults;
            for (slot, outcome) in [(&mut f.drop_after, LineOutcome::Drop), (&mut f.hang_after, LineOutcome::Hang)] {
                match slot {
                    Some(0) => {
                        *slot = None;
                        return Some(outcome);
                    }
                    Some(n) => *n -= 1,
                    None => {}
                }
            }
        }
        // Sleep in slices and re-read the setting, so `simctl fault clear` also
        // releases commands already waiting.
        let started = std::time::Instant::now();
        loop {
            let latency = self.faults().latency;
            let left = latency.saturating_sub(started.elapsed());
            if left.is_zero() {
                return None;
            }
            std::thread::sleep(left.min(Duration::from_millis(50)));
        }
    }

    /// How many command lines (simctl excluded) the device has served.
    pub(crate) fn commands_served(&self) -> u64 {
        self.commands.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Back to a new device: initial world, empty files, no faults.
    pub(crate) fn reset(&self) {
        self.world().reset();
        self.fs.clear_writable();
        self.clear_faults();
        self.agents.reset();
    }

    pub(crate) fn clear_faults(&self) {
        *self.faults() = Faults::default();
        let mut world = self.world();
        world.fault_dialog_armed = None;
        world.slow_ui = Duration::ZERO;
        world.crash_on.clear();
        drop(world);
        *self.agents.fault() = agents::AgentFault::None;
    }
}
