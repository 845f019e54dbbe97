//! Which of the phone's device ports listen, and why: uiautomator2's server on
//! 9008 while an `app_process` run of it is live, Appium's UiAutomator2 server on
//! 6790 while its `am instrument` runs (and its session's state, which dies with
//! it), the Portal on 8080 while its
//! accessibility service is enabled (with its token, when one is set); and how its agents misbehave when
//! a test asks (`simctl fault agent …`). State only; serving a port is `doors/agents/mod.rs`'s.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// uiautomator2's server port.
pub(crate) const U2_PORT: u16 = 9008;
/// Appium's UiAutomator2 server's port (the driver forwards a host port to it).
pub(crate) const UIA2_PORT: u16 = 6790;
/// The mobilerun Portal's HTTP port.
pub(crate) const PORTAL_PORT: u16 = 8080;
/// The Portal's package: its accessibility service runs (and port 8080 listens)
/// while `enabled_accessibility_services` names a service of this package.
pub(crate) const PORTAL_PACKAGE: &str = "com.droidrun.portal";

/// What runs on the phone besides its apps.
#[derive(Debug, Default)]
pub(crate) struct Agents {
    /// How many `app_process` runs of uiautomator2's server are live (the port
    /// listens while one is).
    u2_servers: AtomicUsize,
    /// How many `am instrument` runs of Appium's UiAutomator2 server are live.
    uia2_servers: AtomicUsize,
    /// Bumped to stop every live run of Appium's server (`am force-stop` of its
    /// packages, `kill` of its pid, or its session deleted).
    uia2_stops: AtomicU64,
    /// Appium's server's session and the elements it handed out.
    pub(crate) uia2: super::uia2_state::ServerState,
    fault: Mutex<AgentFault>,
    /// `settings put secure enabled_accessibility_services …`: the Portal's service
    /// runs while this names one of its package's.
    accessibility_services: Mutex<String>,
    /// The Portal's auth token; none (no auth, as Portals before 0.4 had) by default.
    portal_token: Mutex<Option<String>>,
}

/// How the agents misbehave, as real ones are known to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum AgentFault {
    #[default]
    None,
    /// The tree is the one held when the fault was set (a stale accessibility
    /// cache), whatever the screen shows now: uiautomator2's hierarchy XML and the
    /// Portal's full tree.
    Stale { u2: String, portal: Option<serde_json::Value> },
    /// The tree has no nodes (no window reached; the Portal says "No active window").
    Empty,
    /// Every connection gets bytes that are not HTTP, then is closed.
    Garbage,
    /// Requests are read and never answered.
    Hang,
}

impl AgentFault {
    pub(crate) fn name(&self) -> Option<&'static str> {
        Some(match self {
            Self::None => return None,
            Self::Stale { .. } => "stale",
            Self::Empty => "empty",
            Self::Garbage => "garbage",
            Self::Hang => "hang",
        })
    }
}

impl Agents {
    /// Whether something listens on device port `port`.
    pub(crate) fn listening(&self, port: u16) -> bool {
        match port {
            U2_PORT => self.u2_servers.load(Ordering::SeqCst) > 0,
            UIA2_PORT => self.uia2_running(),
            PORTAL_PORT => self.portal_running(),
            _ => false,
        }
    }

    /// Whether the Portal's accessibility service is enabled (and so runs).
    pub(crate) fn portal_running(&self) -> bool {
        lock(&self.accessibility_services).split(':').any(|s| s.starts_with(&format!("{PORTAL_PACKAGE}/")))
    }

    /// `enabled_accessibility_services` as `settings get` prints it (`null` unset).
    pub(crate) fn accessibility_services(&self) -> String {
        let services = lock(&self.accessibility_services).clone();
        if services.is_empty() { "null".into() } else { services }
    }

    pub(crate) fn set_accessibility_services(&self, services: &str) {
        *lock(&self.accessibility_services) = if services == "null" { String::new() } else { services.to_string() };
    }

    pub(crate) fn portal_token(&self) -> Option<String> {
        lock(&self.portal_token).clone()
    }

    pub(crate) fn set_portal_token(&self, token: Option<String>) {
        *lock(&self.portal_token) = token;
    }

    /// Back to a new phone's agents: none enabled, no token, no fault.
    pub(crate) fn reset(&self) {
        self.set_accessibility_services("");
        self.set_portal_token(None);
        *self.fault() = AgentFault::None;
    }

    /// The agents' fault now.
    pub(crate) fn fault(&self) -> MutexGuard<'_, AgentFault> {
        lock(&self.fault)
    }

    /// uiautomator2's server started; it stops when the returned guard drops.
    pub(crate) fn u2_started(self: &Arc<Self>) -> Running {
        self.u2_servers.fetch_add(1, Ordering::SeqCst);
        Running { agents: self.clone(), server: Server::U2 }
    }

    /// Appium's UiAutomator2 server started; it stops when the returned guard drops
    /// (its session and elements with it). Also the stop count now, to ask
    /// [`Agents::uia2_stopped_since`] whether it was told to stop.
    pub(crate) fn uia2_started(self: &Arc<Self>) -> (Running, u64) {
        self.uia2_servers.fetch_add(1, Ordering::SeqCst);
        (Running { agents: self.clone(), server: Server::Uia2 }, self.uia2_stops.load(Ordering::SeqCst))
    }

    /// Whether Appium's UiAutomator2 server runs (its process is in `ps`).
    pub(crate) fn uia2_running(&self) -> bool {
        self.uia2_servers.load(Ordering::SeqCst) > 0
    }

    /// Stops every live run of Appium's UiAutomator2 server.
    pub(crate) fn stop_uia2(&self) {
        self.uia2_stops.fetch_add(1, Ordering::SeqCst);
    }

    /// Whether a run that started at stop count `at` was told to stop since.
    pub(crate) fn uia2_stopped_since(&self, at: u64) -> bool {
        self.uia2_stops.load(Ordering::SeqCst) != at
    }
}

/// Which agent's server a [`Running`] guard keeps up.
enum Server {
    U2,
    Uia2,
}

/// A live run of an agent's server.
pub(crate) struct Running {
    agents: Arc<Agents>,
    server: Server,
}

impl Drop for Running {
    fn drop(&mut self) {
        match self.server {
            Server::U2 => {
                self.agents.u2_servers.fetch_sub(1, Ordering::SeqCst);
            }
            Server::Uia2 => {
                // The last run gone: its session and elements die with its process.
                if self.agents.uia2_servers.fetch_sub(1, Ordering::SeqCst) == 1 {
                    self.agents.uia2.forget();
                }
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
