//! What `ui_state` shows and how fresh it is: the snapshot its indices belong to,
//! the value scripts read (built once per snapshot), whether an action ran since
//! (indices must be checked) or ran unseen (an index then names nothing anyone has
//! seen), whether it follows the screen (scripts, the REPL) or stays what the model
//! saw (the agent), the newest observation settling made, whether anything checked
//! the outcome of the last action, and the installed apps read for this snapshot.
//! Part of the [`ToolContext`](crate::ToolContext), and lent alone (with the
//! device) to the sensitive-action gate, which reads the screen through it.

use std::sync::Arc;
use std::time::Duration;

use rhai::Dynamic;

use codeact_platform::device::{Device, DeviceError, Observation};
use codeact_platform::ui::Element;

/// How long after settling its read may stand for a lookup's: the time a script
/// takes between one statement and the next, not the time a model or a person
/// takes between snippets or lines (those look again).
pub(crate) const REUSE_WITHIN: Duration = Duration::from_millis(250);

#[derive(Default)]
pub(crate) struct ScreenView {
    /// The observation `ui_state` shows.
    pub(crate) snapshot: Option<Arc<Observation>>,
    /// `ui_state` as scripts see it, built from the snapshot when first read.
    pub(crate) ui_value: Option<Dynamic>,
    /// An action ran since the snapshot: indices must be checked before use.
    pub(crate) dirty: bool,
    /// An action ran and no snapshot was taken (nor the screen shown) since: an
    /// index then names nothing anyone has seen, and is refused. Survives the
    /// snippet's end (a REPL line that acted, then one that taps an index).
    pub(crate) acted_unseen: bool,
    /// Scripts and the REPL: `ui_state` is the screen now, read again after an
    /// action. The agent: `ui_state` stays the screen the model saw (its indices are
    /// the ones it wrote) until `refresh()`. Set from the start by the context.
    pub(crate) follow: bool,
    /// Counts the snapshots (a worker keeps `ui_state` until this changes).
    pub(crate) generation: u64,
    /// The newest observation made while settling (what the screen showed last).
    pub(crate) latest: Option<Arc<Observation>>,
    /// The read that showed the screen settled, which the next lookup may use
    /// instead of reading again (`settling.rs`).
    pub(crate) settled: Option<SettledRead>,
    /// The last observation whose state print was taken, with it.
    pub(crate) printed: Option<(Arc<Observation>, u64)>,
    /// An action ran and nothing checked its outcome since (no assertion, wait or
    /// `refresh()`): the agent's completion gate reads it.
    pub(crate) outcome_unchecked: bool,
    /// Installed packages, read once per snapshot by `open_app`.
    pub(crate) installed: Option<Vec<String>>,
}

/// The read that showed the screen settled, and when it was made (`settling.rs`
/// decides when a lookup may use it).
#[derive(Clone)]
pub(crate) struct SettledRead {
    pub(crate) obs: Arc<Observation>,
    pub(crate) at: std::time::Instant,
}

impl ScreenView {
    /// Makes `obs` what `ui_state` and `phone_state` show (`None`: read the screen
    /// when a snippet first asks). Indices are fresh again.
    pub fn set_snapshot(&mut self, obs: Option<Arc<Observation>>) {
        if obs.is_some() {
            self.acted_unseen = false;
            self.outcome_unchecked = false;
        }
        self.snapshot = obs;
        self.generation += 1;
        self.installed = None;
        self.ui_value = None;
        self.latest = None;
        self.dirty = false;
    }

    /// Reads the live screen without touching the snapshot (unless there was none
    /// yet: then it becomes the snapshot). The read settling just made stands for
    /// a new one, once (`settling.rs`).
    pub(crate) fn look(&mut self, device: &mut dyn Device) -> Result<Arc<Observation>, DeviceError> {
        let obs = match self.take_settled_read() {
            Some(settled) => settled,
            None => Arc::new(device.observe()?),
        };
        if self.snapshot.is_none() {
            self.set_snapshot(Some(obs.clone()));
        }
        self.latest = Some(obs.clone());
        Ok(obs)
    }

    /// `obs`, which its caller read a moment ago, stands for the next lookup's read
    /// as a settled one does (once, within `REUSE_WITHIN`): a door that looked,
    /// resolved an element and acts on it reads the screen once.
    pub(crate) fn offer_read(&mut self, obs: Arc<Observation>) {
        self.latest = Some(obs.clone());
        self.settled = Some(SettledRead { obs, at: std::time::Instant::now() });
    }

    /// The read settling made, when it is the newest and recent enough to stand
    /// for a new one (taken: it stands in once).
    pub(crate) fn take_settled_read(&mut self) -> Option<Arc<Observation>> {
        let settled = self.settled.take()?;
        let newest = self.latest.as_ref().is_some_and(|l| Arc::ptr_eq(l, &settled.obs));
        (newest && settled.at.elapsed() < REUSE_WITHIN).then_some(settled.obs)
    }

    /// Whether the screen as last read may be out of date: an action ran since,
    /// and nothing read the screen after it.
    pub(crate) fn needs_look(&self) -> bool {
        self.latest.is_none() && (self.dirty || self.snapshot.is_none())
    }

    /// The screen as last read: the newest observation, else the snapshot.
    pub(crate) fn live(&self) -> Option<&Observation> {
        self.latest.as_deref().or(self.snapshot.as_deref())
    }

    /// The screen as last read, shared.
    pub fn live_arc(&self) -> Option<Arc<Observation>> {
        self.latest.clone().or_else(|| self.snapshot.clone())
    }

    /// The element that has focus on the screen as last read, if one does.
    pub(crate) fn focused_field(&self) -> Option<&Element> {
        let obs = self.live()?;
        obs.phone.focused.and_then(|f| obs.ui.get(f))
    }
}
