//! Which of the phone's device ports listen, and why: uiautomator2's server on
//! 9008 while an `app_process` run of it is live; and how its agents misbehave when
//! a test asks (`simctl fault agent …`). State only; serving a port is `mod.rs`'s.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// uiautomator2's server port.
pub(crate) const U2_PORT: u16 = 9008;

/// What runs on the phone besides its apps.
#[derive(Debug, Default)]
pub(crate) struct Agents {
    /// How many `app_process` runs of uiautomator2's server are live (the port
    /// listens while one is).
    u2_servers: AtomicUsize,
    fault: Mutex<AgentFault>,
}

/// How the agents misbehave, as real ones are known to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum AgentFault {
    #[default]
    None,
    /// The hierarchy is the one held when the fault was set (a stale
    /// accessibility cache): this XML, whatever the screen shows now.
    Stale(String),
    /// The hierarchy has no nodes (no window reached).
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
            Self::Stale(_) => "stale",
            Self::Empty => "empty",
            Self::Garbage => "garbage",
            Self::Hang => "hang",
        })
    }
}

impl Agents {
    /// Whether something listens on device port `port`.
    pub(crate) fn listening(&self, port: u16) -> bool {
        port == U2_PORT && self.u2_servers.load(Ordering::SeqCst) > 0
    }

    /// The agents' fault now.
    pub(crate) fn fault(&self) -> MutexGuard<'_, AgentFault> {
        self.fault.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
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
