//! Which of the phone's device ports listen, and why: uiautomator2's server on
//! 9008 while an `app_process` run of it is live, the Portal on 8080 while its
//! accessibility service is enabled (with its token, when one is set); and how its agents misbehave when
//! a test asks (`simctl fault agent …`). State only; serving a port is `mod.rs`'s.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// uiautomator2's server port.
pub(crate) const U2_PORT: u16 = 9008;
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
    pub(crate) fn u2_started(self: &Arc<Self>) -> U2Running {
        self.u2_servers.fetch_add(1, Ordering::SeqCst);
        U2Running(self.clone())
    }
}

/// A live run of uiautomator2's server.
pub(crate) struct U2Running(Arc<Agents>);

impl Drop for U2Running {
    fn drop(&mut self) {
        self.0.u2_servers.fetch_sub(1, Ordering::SeqCst);
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
