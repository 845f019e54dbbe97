//! What `ui_state` shows and how fresh it is: the snapshot its indices belong to,
//! the value scripts read (built once per snapshot), whether an action ran since
//! (indices must be checked) or ran unseen (an index then names nothing anyone has
//! seen), whether it follows the screen (scripts, the REPL) or stays what the model
//! saw (the agent), and the newest observation settling made. Part of the
//! [`ToolContext`](crate::tools::ToolContext); the methods that use it are there.

use std::sync::Arc;

use rhai::Dynamic;

use codeact_platform::device::Observation;

#[derive(Default)]
pub(crate) struct ScreenView {
    /// The observation `ui_state` shows.
    pub(in crate::tools) snapshot: Option<Arc<Observation>>,
    /// `ui_state` as scripts see it, built from the snapshot when first read.
    pub(in crate::tools) ui_value: Option<Dynamic>,
    /// An action ran since the snapshot: indices must be checked before use.
    pub(in crate::tools) dirty: bool,
    /// An action ran and no snapshot was taken (nor the screen shown) since: an
    /// index then names nothing anyone has seen, and is refused. Survives the
    /// snippet's end (a REPL line that acted, then one that taps an index).
    pub(in crate::tools) acted_unseen: bool,
    /// Scripts and the REPL: `ui_state` is the screen now, read again after an
    /// action. The agent: `ui_state` stays the screen the model saw (its indices are
    /// the ones it wrote) until `refresh()`. Set from the start by the context.
    pub(in crate::tools) follow: bool,
    /// Counts the snapshots (a worker keeps `ui_state` until this changes).
    pub(in crate::tools) generation: u64,
    /// The newest observation made while settling (what the screen showed last).
    pub(in crate::tools) latest: Option<Arc<Observation>>,
    /// The read that showed the screen settled, which the next lookup may use
    /// instead of reading again (`settling.rs`).
    pub(in crate::tools) settled: Option<SettledRead>,
    /// The last observation whose state print was taken, with it.
    pub(in crate::tools) printed: Option<(Arc<Observation>, u64)>,
}

/// The read that showed the screen settled, and when it was made (`settling.rs`
/// decides when a lookup may use it).
#[derive(Clone)]
pub(crate) struct SettledRead {
    pub(in crate::tools) obs: Arc<Observation>,
    pub(in crate::tools) at: std::time::Instant,
}
