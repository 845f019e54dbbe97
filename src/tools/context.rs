//! What the tools share within a session: the device, the snapshot `ui_state`
//! indexes into (and whether an action may have changed the screen since), the
//! newest observation, remembered facts, the options, and what the running call
//! captured for its action record.
//!
//! The session hands it the observation a snippet runs on; the tools read and act.
//! This module settles the screen after actions and checks indices; the tools
//! themselves are in the catalog files.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rhai::Dynamic;

use super::acting::{DeviceAct, DeviceReads};
use super::arguments::coord;
use super::closest::described as described_el;
use super::declaration::Gate;
use super::effect::{ActionEffect, describe_printed, state_print};
use super::error::ToolError;
use super::options::{Recording, ToolOptions};
use super::select::Selector;
use super::state;
use super::unique_selector::selector_for;
use super::watchers::find_blocker;
use crate::device::{Device, DeviceError, Observation, ShellOutput};
use crate::sandbox::{Capture, Resolved, Shared};
use crate::ui::Element;

/// `remember()` keeps this many facts (the oldest go first), each at most this long:
/// memory is shown to the LLM every step, so it must stay small.
pub const MEMORY_ITEMS: usize = 20;
pub const MEMORY_ITEM_BYTES: usize = 1000;
/// `answer()` keeps at most this many bytes.
pub(crate) const ANSWER_BYTES: usize = 4096;

/// What a blocker watcher did: the line that says so, and where it tapped.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fired {
    pub line: String,
    pub button: (i32, i32),
}

/// The tools' shared state.
pub struct ToolContext {
    device: Box<dyn Device>,
    /// The observation `ui_state` shows.
    snapshot: Option<Arc<Observation>>,
    /// `ui_state` as scripts see it, built from the snapshot when first read.
    ui_value: Option<Dynamic>,
    /// An action ran since the snapshot: indices must be checked before use.
    dirty: bool,
    /// An action ran and no snapshot was taken (nor the screen shown) since: an
    /// index then names nothing anyone has seen, and is refused. Survives the
    /// snippet's end (a REPL line that acted, then one that taps an index).
    acted_unseen: bool,
    /// Scripts and the REPL: `ui_state` is the screen now, read again after an
    /// action. The agent: `ui_state` stays the screen the model saw (its indices are
    /// the ones it wrote) until `refresh()`.
    follow_screen: bool,
    /// Counts the snapshots (a worker keeps `ui_state` until this changes).
    generation: u64,
    /// The newest observation made while settling (what the screen showed last).
    latest: Option<Arc<Observation>>,
    pub(crate) memory: Vec<String>,
    /// What `answer(text)` gave last: the reply to a question task.
    pub(crate) answer: Option<String>,
    pub(crate) options: ToolOptions,
    /// What the running tool captured for its action record.
    pub(crate) capture: Capture,
    /// Installed packages, read once per snippet by `open_app`.
    installed: Option<Vec<String>>,
    /// When the running call must end: device calls and waits are bounded by it.
    deadline: Instant,
    /// The screen before the running call's first action (what its effect is
    /// measured against), and the element it aimed at.
    effect_before: Option<Arc<Observation>>,
    pub(crate) effect_target: Option<Element>,
    /// The running call's tool, and the gate's checks its acts may pass.
    call_tool: &'static str,
    call_gates: &'static [Gate],
    /// What the running call's last action did.
    pub(crate) last_effect: Option<ActionEffect>,
    /// An action ran and nothing checked its outcome since (no assertion, wait or
    /// `refresh()`): the agent's completion gate reads it.
    outcome_unchecked: bool,
    /// The script's own watchers (`watch(sel, fn)`), in the order declared.
    pub(crate) script_watchers: Vec<(String, Selector)>,
    /// Watchers may fire (the script's and the built-in ones): not on a call made
    /// from a script watcher's own function, which is handling the screen itself.
    pub(crate) watchers_on: bool,
    /// The script watcher that fired on the running call, and the element it
    /// matched: the session hands them to the worker.
    pub(crate) pending_watch: Option<(String, Dynamic)>,
    /// The observation last found free of blockers (and of the script's watchers):
    /// the same one is not scanned twice.
    unblocked: Option<Arc<Observation>>,
    /// A blocker a watcher's tap did not clear: it is left alone from then on.
    stuck_blocker: Option<super::watchers::Blocker>,
    /// The last observation whose state print was taken, with it.
    printed: Option<(Arc<Observation>, u64)>,
    /// What the watchers cleared while the session observed for someone (one line
    /// each), until they are told.
    pub(crate) observe_firings: Vec<String>,
    /// The screen a permission request was last left alone on (`permission=ask`),
    /// so it is reported once, not before every action.
    reported_blocker: Option<u64>,
    /// Who answers `ask_user`, `take_over` and sensitive-action confirmations
    /// (`None`: nobody; questions fail and sensitive actions are refused).
    pub(crate) human: Option<crate::human::Human>,
    /// A person said yes to a sensitive action in the running call.
    pub(crate) consented_call: bool,
    /// Sensitive rules a person answered "always" for, this session.
    pub(crate) consented_rules: Vec<String>,
    /// The running snippet's clock and stop signal.
    pub(crate) shared: Arc<Shared>,
}

pub type SharedContext = Arc<Mutex<ToolContext>>;

pub(crate) fn lock(ctx: &SharedContext) -> MutexGuard<'_, ToolContext> {
    ctx.lock().unwrap_or_else(|e| e.into_inner())
}

impl ToolContext {
    pub fn new(device: Box<dyn Device>, options: ToolOptions, shared: Arc<Shared>) -> SharedContext {
        Arc::new(Mutex::new(Self {
            device,
            snapshot: None,
            ui_value: None,
            dirty: false,
            acted_unseen: false,
            follow_screen: true,
            generation: 0,
            latest: None,
            memory: Vec::new(),
            answer: None,
            options,
            capture: Capture::default(),
            installed: None,
            deadline: Instant::now(),
            effect_before: None,
            effect_target: None,
            call_tool: "",
            call_gates: &[],
            last_effect: None,
            outcome_unchecked: false,
            reported_blocker: None,
            observe_firings: Vec::new(),
            unblocked: None,
            printed: None,
            stuck_blocker: None,
            script_watchers: Vec::new(),
            watchers_on: true,
            pending_watch: None,
            human: None,
            consented_call: false,
            consented_rules: Vec::new(),
            shared,
        }))
    }

    /// The device as a tool reads it; acting goes through [`act`](Self::act).
    pub(crate) fn reads(&mut self) -> DeviceReads<'_> {
        DeviceReads(self.device.as_mut())
    }

    /// The whole device, for the runtime's own commands (setting up the virtual
    /// phone, resetting it, a screenshot for the caller): never for a script's.
    pub(crate) fn runtime_device(&mut self) -> &mut dyn Device {
        self.device.as_mut()
    }

    pub(crate) fn device_name(&self) -> &str {
        self.device.name()
    }

    /// Makes `obs` what `ui_state` and `phone_state` show (`None`: read the screen
    /// when a snippet first asks). Indices are fresh again.
    pub(crate) fn set_snapshot(&mut self, obs: Option<Arc<Observation>>) {
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

    /// Observes and makes that observation what `ui_state`/`phone_state` show.
    pub(crate) fn refresh(&mut self) -> Result<Arc<Observation>, DeviceError> {
        let obs = Arc::new(self.device.observe()?);
        self.set_snapshot(Some(obs.clone()));
        Ok(obs)
    }

    /// The observation `ui_state` shows (observing first if there is none yet).
    pub(crate) fn snapshot(&mut self) -> Result<Arc<Observation>, DeviceError> {
        match &self.snapshot {
            Some(obs) => Ok(obs.clone()),
            None => self.refresh(),
        }
    }

    /// Which snapshot `ui_state` shows (it changes with every new snapshot).
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// Whether `ui_state` follows the screen (scripts, the REPL) or stays what the
    /// model saw (the agent).
    pub(crate) fn set_following(&mut self, follow: bool) {
        self.follow_screen = follow;
    }

    /// True when the next read of `ui_state` must look at the screen again.
    pub(crate) fn must_reread(&self) -> bool {
        self.follow_screen && self.dirty
    }

    /// `ui_state` as a Rhai value (built once per snapshot; read again first when it
    /// follows the screen and an action ran).
    pub(crate) fn ui_value(&mut self) -> Result<Dynamic, DeviceError> {
        if self.must_reread() {
            self.refresh()?;
        }
        let snapshot = self.snapshot()?;
        Ok(self.ui_value.get_or_insert_with(|| state::ui_state(&snapshot)).clone())
    }

    /// `phone_state` as a Rhai value. Indices belong to the snapshot; the phone's
    /// state has none, so it shows the newest observation (the one an action
    /// settled on).
    pub(crate) fn phone_value(&mut self) -> Result<Dynamic, DeviceError> {
        let snapshot = self.snapshot()?;
        Ok(state::phone_state(self.latest.as_deref().unwrap_or(&snapshot)))
    }

    /// Runs `f` with the device bound to `deadline`: no device call inside may
    /// outlast the snippet.
    pub(crate) fn bounded<T>(&mut self, deadline: Instant, f: impl FnOnce(&mut Self) -> T) -> T {
        self.deadline = deadline;
        self.device.set_deadline(Some(deadline));
        let out = f(self);
        self.device.set_deadline(None);
        out
    }

    /// Moves the running call's deadline (and the snippet's) `by` later: the time a
    /// person took to answer is not the snippet's.
    pub(crate) fn extend_deadline(&mut self, by: Duration) {
        self.shared.extend_deadline(by);
        self.deadline += by;
        self.device.set_deadline(Some(self.deadline));
    }

    /// Compiles a selector a script handed this call, within the call's deadline.
    pub(crate) fn selector(&self, value: &Dynamic) -> Result<Selector, ToolError> {
        Ok(Selector::from_dynamic_until(value, self.deadline)?)
    }

    /// The time the running call has left.
    pub(crate) fn left(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// Reads the live screen without touching the snapshot (unless there was none
    /// yet: then it becomes the snapshot).
    pub(crate) fn look(&mut self) -> Result<Arc<Observation>, DeviceError> {
        let obs = Arc::new(self.device.observe()?);
        if self.snapshot.is_none() {
            self.set_snapshot(Some(obs.clone()));
        }
        self.latest = Some(obs.clone());
        Ok(obs)
    }

    /// The screen was shown to whoever writes the next snippet (the REPL's `:state`):
    /// its indices are known again.
    pub(crate) fn mark_seen(&mut self) {
        self.acted_unseen = false;
    }

    /// Makes sure the screen after the last action has been read (settling reads it;
    /// with settling off, this does).
    pub(crate) fn settled_screen(&mut self) -> Result<(), DeviceError> {
        if self.latest.is_none() {
            self.look()?;
        }
        Ok(())
    }

    /// The element that has focus on the screen as last read, if one does.
    pub(crate) fn focused_field(&self) -> Option<&Element> {
        let obs = self.live()?;
        obs.phone.focused.and_then(|f| obs.ui.get(f))
    }

    /// The screen as last read: the newest observation, else the snapshot.
    pub(crate) fn live(&self) -> Option<&Observation> {
        self.latest.as_deref().or(self.snapshot.as_deref())
    }

    /// Acts on the device, then waits for the screen to settle: what every acting
    /// tool does, and the only way a tool acts. A blocker on the screen as last
    /// read (a dialog the last action brought up) is cleared first, by the script's
    /// watchers or the built-in ones; then the sensitive-action gate judges the
    /// call on the screen as it is (`gate.rs`).
    pub(crate) fn act(&mut self, act: DeviceAct<'_>) -> Result<(), ToolError> {
        self.judged_act(act).map(|_| ())
    }

    /// A script's shell command, judged like any action (the input it injects
    /// included); its output.
    pub(crate) fn run_shell(&mut self, command: &str) -> Result<ShellOutput, ToolError> {
        Ok(self.judged_act(DeviceAct::Shell(command))?.unwrap_or_default())
    }

    /// Sets the clipboard (the virtual phone's); what the command said.
    pub(crate) fn set_clipboard(&mut self, text: &str) -> Result<ShellOutput, ToolError> {
        Ok(self.judged_act(DeviceAct::SetClipboard(text))?.unwrap_or_default())
    }

    fn judged_act(&mut self, act: DeviceAct<'_>) -> Result<Option<ShellOutput>, ToolError> {
        if let Some((needs, what)) = super::acting::checks_needed(&act)
            && !needs.iter().any(|g| self.call_gates.contains(g))
        {
            let declared: Vec<String> = self.call_gates.iter().map(|g| format!("{g:?}").to_lowercase()).collect();
            let declared = if declared.is_empty() { "no gate".to_string() } else { declared.join(", ") };
            return Err(ToolError::Undeclared { tool: self.call_tool.to_string(), act: what, declared });
        }
        if act.meets_the_screen()
            && let Some(obs) = self.live_arc()
        {
            self.run_watchers(obs)?;
        }
        self.judge(&act)?;
        let out = act.perform(self.device.as_mut())?;
        if act.changes_the_screen() {
            self.after_action();
        }
        Ok(out)
    }

    /// Whether the screen as last read may be out of date: an action ran since,
    /// and nothing read the screen after it.
    pub(crate) fn needs_look(&self) -> bool {
        self.latest.is_none() && (self.dirty || self.snapshot.is_none())
    }

    /// The call about to run starts afresh: no effect measured, no target.
    pub(crate) fn begin_call(&mut self, tool: &'static str, gates: &'static [Gate]) {
        self.call_tool = tool;
        self.call_gates = gates;
        self.effect_before = None;
        self.effect_target = None;
        self.last_effect = None;
        self.consented_call = false;
    }

    /// Whether an action ran and nothing checked its outcome since.
    pub(crate) fn outcome_unchecked(&self) -> bool {
        self.outcome_unchecked
    }

    /// An assertion or a wait looked at the screen after the last action.
    pub(crate) fn outcome_checked(&mut self) {
        self.outcome_unchecked = false;
    }

    /// The next action's effect is measured from the screen as it is now (not from
    /// before the scrolling or keyboard hiding that led up to it).
    pub(crate) fn measure_effect_from_here(&mut self) {
        self.effect_before = None;
    }

    /// The keyboard watcher: hides the keyboard that covers `what`, recorded as a
    /// firing of its own.
    pub(crate) fn hide_keyboard_for(&mut self, what: &str) -> Result<(), ToolError> {
        let started = Instant::now();
        self.watcher_act(|d| d.press_key("back"))?;
        self.record_watcher("keyboard", started, format!("hid the keyboard covering {what}"));
        Ok(())
    }

    /// A watcher's own action: done, settled and read (it is not the call's action,
    /// so it has no effect of its own and captures nothing for the call).
    fn watcher_act(&mut self, f: impl FnOnce(&mut dyn Device) -> Result<(), DeviceError>) -> Result<(), ToolError> {
        f(self.device.as_mut())?;
        self.dirty = true;
        self.acted_unseen = true;
        self.latest = None;
        self.settle();
        if self.latest.is_none() {
            self.latest = Some(Arc::new(self.device.observe()?));
        }
        Ok(())
    }

    /// The screen as last read, shared.
    pub(crate) fn live_arc(&self) -> Option<Arc<Observation>> {
        self.latest.clone().or_else(|| self.snapshot.clone())
    }

    /// Waits for the screen to settle (two equal consecutive observations, within
    /// the time left); the last observation becomes the newest.
    fn settle(&mut self) {
        if !self.options.settle.enabled {
            return;
        }
        let until = Instant::now() + self.options.settle.timeout.min(self.left());
        let mut last = None;
        while Instant::now() < until {
            let Ok(obs) = self.device.observe() else { break };
            let print = obs.ui.fingerprint();
            let done = last == Some(print);
            last = Some(print);
            self.latest = Some(Arc::new(obs));
            if done {
                break;
            }
        }
    }

    /// After an action: wait for the screen to settle, say what the action changed
    /// (against the screen before the call's first action, from observations
    /// already made), then capture what the options ask to record.
    pub(crate) fn after_action(&mut self) {
        let before = self.live_arc();
        if self.effect_before.is_none() {
            self.effect_before = before;
        }
        self.dirty = true;
        self.acted_unseen = true;
        self.outcome_unchecked = true;
        self.latest = None;
        self.settle();
        if self.latest.is_none() && self.options.record != Recording::None {
            self.latest = self.device.observe().ok().map(Arc::new);
        }
        if let (Some(before), Some(after)) = (self.effect_before.clone(), self.latest.clone()) {
            let moved = self.print_of(&before) != self.print_of(&after);
            let effect = describe_printed(&before, &after, self.effect_target.as_ref(), moved);
            self.capture.effect = Some(effect.text.clone());
            self.last_effect = Some(effect);
        }
        if self.options.record == Recording::None {
            return;
        }
        self.capture.ui_xml = self.latest.as_ref().map(|o| Arc::from(o.dump.as_str()));
        let secret_shown = self.latest.as_ref().is_some_and(|o| crate::secrets::shown_on(&o.ui));
        if self.options.record == Recording::All && !secret_shown {
            self.capture.screenshot = self.device.screenshot().ok().map(Arc::from);
        }
    }

    /// Whether a built-in watcher would act on (or report) something on `obs`.
    pub(crate) fn has_blocker(&self, obs: &Observation) -> bool {
        self.watchers_on && find_blocker(obs, &self.options.watchers).is_some()
    }

    /// Every watcher's turn on `obs`: the script's own first (they say what this
    /// script wants; one that matches ends the call), then the built-in ones.
    /// Returns what the built-in ones did. An observation already found clear is
    /// not scanned again (a selector action looks, then acts on what it looked at).
    pub(crate) fn run_watchers(&mut self, obs: Arc<Observation>) -> Result<Vec<Fired>, ToolError> {
        if !self.watchers_on || self.unblocked.as_ref().is_some_and(|u| Arc::ptr_eq(u, &obs)) {
            return Ok(Vec::new());
        }
        self.fire_script_watcher(&obs)?;
        self.clear_blockers(obs)
    }

    /// Clears the blockers the session's watchers know on `obs` (at most three in a
    /// row), each firing recorded as a `watcher` action. Returns what fired (when
    /// any did, the screen has been read again).
    pub(crate) fn clear_blockers(&mut self, obs: Arc<Observation>) -> Result<Vec<Fired>, ToolError> {
        let mut obs = obs;
        let mut fired = Vec::new();
        if !self.watchers_on {
            return Ok(fired);
        }
        for _ in 0..3 {
            let found = find_blocker(&obs, &self.options.watchers).filter(|b| self.stuck_blocker.as_ref() != Some(b));
            let Some(blocker) = found else {
                self.unblocked = Some(obs);
                break;
            };
            let started = Instant::now();
            let Some((label, (x, y))) = blocker.button.clone() else {
                // Left for the script or the model: said once per screen.
                let print = obs.ui.fingerprint();
                if self.reported_blocker != Some(print) {
                    self.reported_blocker = Some(print);
                    let text = format!("left {:?} for you to answer", blocker.title);
                    self.record_watcher(blocker.watcher, started, text);
                }
                break;
            };
            self.watcher_act(|d| d.tap(x, y))?;
            let what = format!("tapped {label:?} on {:?}", blocker.title);
            fired.push(Fired { line: format!("the {} watcher {what}", blocker.watcher), button: (x, y) });
            self.record_watcher(blocker.watcher, started, what);
            let Some(now) = self.latest.clone() else { break };
            // A "blocker" the tap did not clear is not one to keep tapping: the
            // screen it is on counts as clear from now on.
            if find_blocker(&now, &self.options.watchers).as_ref() == Some(&blocker) {
                self.stuck_blocker = Some(blocker);
                break;
            }
            obs = now;
        }
        Ok(fired)
    }

    /// A script watcher whose selector matches on `obs` ends the call before it
    /// acts: the worker runs its function, then makes the call again. Each watcher
    /// has one turn per call; none fire inside a watcher's own function.
    pub(crate) fn fire_script_watcher(&mut self, obs: &Observation) -> Result<(), ToolError> {
        if !self.watchers_on {
            return Ok(());
        }
        let due = self
            .script_watchers
            .iter()
            .find_map(|(name, sel)| sel.find_all(&obs.ui).first().map(|e| (name.clone(), e.id, described_el(e))));
        let Some((name, id, what)) = due else { return Ok(()) };
        let element = self.element_value(id);
        self.record_watcher(&name, Instant::now(), format!("matched {what}; its function runs first"));
        self.pending_watch = Some((name.clone(), element));
        Err(ToolError::WatcherDue(name))
    }

    /// The state print of `obs`, kept for the last observation printed: an action's
    /// "after" is the next one's "before".
    fn print_of(&mut self, obs: &Arc<Observation>) -> u64 {
        if let Some((kept, print)) = &self.printed
            && Arc::ptr_eq(kept, obs)
        {
            return *print;
        }
        let print = state_print(&obs.ui);
        self.printed = Some((obs.clone(), print));
        print
    }

    /// Records a watcher's firing as an action of its own.
    fn record_watcher(&mut self, watcher: &str, started: Instant, what: String) {
        let mut capture = Capture { effect: Some(what), ..Capture::default() };
        if self.options.record != Recording::None {
            capture.ui_xml = self.latest.as_ref().map(|o| Arc::from(o.dump.as_str()));
        }
        self.shared.record("watcher", vec![format!("{watcher:?}")], Ok(()), started, capture);
    }

    /// The element at `index` in the snapshot, checked against the live screen when
    /// an action may have changed it. Returns its centre, and records the selector
    /// of the element for exported replays.
    pub(crate) fn element_center(&mut self, index: i64) -> Result<(i32, i32), ToolError> {
        if self.snapshot.is_none() && self.acted_unseen {
            return Err(ToolError::Unseen { index });
        }
        let snap = self.snapshot()?;
        let listed = state::listed(&snap.ui);
        let Some(el) = usize::try_from(index).ok().and_then(|i| listed.get(i)) else {
            return Err(ToolError::NoSuchIndex { index, last: listed.len().saturating_sub(1) });
        };
        if !self.dirty {
            self.capture.resolved = Some(Resolved { index: Some(index), center: el.center });
            self.capture.target = selector_for(&snap.ui, el.id);
            self.effect_target = Some((*el).clone());
            return Ok(el.center);
        }
        let live = self.device.observe()?;
        let now = state::listed(&live.ui);
        match now.get(index as usize) {
            Some(e) if e.signature == el.signature => {
                self.capture.resolved = Some(Resolved { index: Some(index), center: e.center });
                self.capture.target = selector_for(&live.ui, e.id);
                self.effect_target = Some((*e).clone());
                Ok(e.center)
            }
            _ => Err(ToolError::Stale { index, label: super::closest::described(el) }),
        }
    }

    /// A point from script coordinates: pixels, fractions (floats in 0..1), or
    /// 0..=N when the session's coordinate scale is N.
    pub(crate) fn point(&mut self, x: &Dynamic, y: &Dynamic) -> Result<(i32, i32), ToolError> {
        let scale = self.options.coordinate_scale;
        let (w, h) = self.snapshot()?.screen;
        Ok((coord(x, w, scale, "x")?, coord(y, h, scale, "y")?))
    }

    /// The element map for element `id` of the live screen. Its `index` is the
    /// element's ui_state index when the snapshot lists the very same element there,
    /// else -1: an index never points at something ui_state does not show.
    pub(crate) fn element_value(&self, id: usize) -> Dynamic {
        let Some(e) = self.live().and_then(|o| o.ui.get(id)) else { return Dynamic::UNIT };
        let index = self.snapshot.as_ref().map_or(-1, |snap| {
            state::listed(&snap.ui)
                .iter()
                .position(|l| l.signature == e.signature && l.bounds == e.bounds)
                .map_or(-1, |i| i as i64)
        });
        let mut m = state::element_map(index.max(0) as usize, e);
        m.insert("index".into(), Dynamic::from(index));
        Dynamic::from(m)
    }

    /// The installed packages (read once per snippet).
    pub(crate) fn installed(&mut self) -> Result<&[String], DeviceError> {
        if self.installed.is_none() {
            self.installed = Some(self.device.list_packages(true)?);
        }
        Ok(self.installed.as_deref().unwrap_or_default())
    }

    /// Keeps a screenshot for the action record and returns it.
    pub(crate) fn capture_screenshot(&mut self) -> Result<Arc<[u8]>, DeviceError> {
        if self.live().is_some_and(|o| crate::secrets::shown_on(&o.ui)) {
            return Err(DeviceError::SecretOnScreen);
        }
        let png: Arc<[u8]> = Arc::from(self.device.screenshot()?);
        self.capture.screenshot = Some(png.clone());
        Ok(png)
    }
}
