//! What the tools share within a session: the device, the snapshot `ui_state`
//! indexes into (and whether an action may have changed the screen since), the
//! newest observation, remembered facts, the options, and what the running call
//! captured for its action record.
//!
//! The session hands it the observation a snippet runs on; the tools read and act.
//! Beside it: the acts (`acting.rs`), the screen as the tools see it
//! (`screen_view.rs`, `settling.rs`, `indices.rs`, `state.rs`), the running call's
//! record and effect (`call_record.rs`, `effect.rs`), notes and typing. Not the gate
//! and the watchers (`guard/`), locating (`locating/`), or the tools (`catalog/`).

pub(crate) mod call_record;
pub(crate) mod effect;
pub(crate) mod indices;
mod lent;
pub(crate) mod notes;
pub(crate) mod screen_view;
pub(crate) mod settling;
pub(crate) mod state;
pub(crate) mod typing;
mod watching;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rhai::Dynamic;

use crate::acting::{self, DeviceAct, DeviceReads};
use crate::arguments::coord;
use crate::consent::Consent;
use crate::declaration::Gate;
use crate::error::ToolError;
use crate::guard::watcher_state::WatcherState;
use crate::options::{Recording, ToolOptions};
use crate::select::Selector;
use call_record::CallRecord;
use codeact_engine::sandbox::{Screen, Shared};
use codeact_platform::device::{Device, DeviceError, Observation, ShellOutput};
use codeact_platform::ui::Element;
use effect::{describe_printed, state_print, toggled};
use notes::Notes;
use screen_view::ScreenView;

/// `remember()` keeps this many facts (the oldest go first), each at most this long:
/// memory is shown to the LLM every step, so it must stay small.
pub const MEMORY_ITEMS: usize = 20;
pub const MEMORY_ITEM_BYTES: usize = 1000;
/// `answer()` keeps at most this many bytes.
pub(crate) const ANSWER_BYTES: usize = 4096;

/// The tools' shared state, by concern: what `ui_state` shows ([`ScreenView`]),
/// what the running call records ([`CallRecord`]), the watchers ([`WatcherState`]),
/// who consents to sensitive actions ([`Consent`]), and what scripts keep
/// ([`Notes`]).
pub struct ToolContext {
    device: Box<dyn Device>,
    screen: ScreenView,
    call: CallRecord,
    watch: WatcherState,
    consent: Consent,
    notes: Notes,
    options: ToolOptions,
    /// When the running call must end: device calls and waits are bounded by it.
    deadline: Instant,
    /// The running snippet's clock and stop signal.
    shared: Arc<Shared>,
    /// The vision model `#{ai: ...}` and `locate()` ask, and its answers.
    locator: crate::locator_state::Locator,
    /// How the script's own watchers are tried (the catalog's, lent at install).
    script_watch: ScriptWatch,
}

/// How the script's own watchers are tried on a screen: `Ok` when none is due,
/// else the due one kept in the context (`watching.rs`) and `ToolError::WatcherDue`.
/// The catalog's locates as its tools do; the context is lent it (`lend_script_watch`)
/// and knows nothing above it.
pub type ScriptWatch = fn(&mut ToolContext, &Observation) -> Result<(), ToolError>;

/// Until the catalog lends its own: no script watcher is tried.
fn no_script_watch(_: &mut ToolContext, _: &Observation) -> Result<(), ToolError> {
    Ok(())
}

pub type SharedContext = Arc<Mutex<ToolContext>>;

pub fn lock(ctx: &SharedContext) -> MutexGuard<'_, ToolContext> {
    ctx.lock().unwrap_or_else(|e| e.into_inner())
}

impl ToolContext {
    pub fn new(device: Box<dyn Device>, options: ToolOptions, shared: Arc<Shared>) -> SharedContext {
        Arc::new(Mutex::new(Self {
            device,
            screen: ScreenView { follow: true, ..ScreenView::default() },
            call: CallRecord::default(),
            watch: WatcherState::default(),
            consent: Consent::default(),
            notes: Notes::default(),
            options,
            deadline: Instant::now(),
            shared,
            locator: crate::locator_state::Locator::default(),
            script_watch: no_script_watch,
        }))
    }

    /// How the tools behave (settling, recording, watchers, the sensitive rules).
    pub fn options(&self) -> &ToolOptions {
        &self.options
    }

    /// What the running call records: its effect lines, what it aimed at, what it
    /// captures for the replay.
    pub(crate) fn call_record(&mut self) -> &mut CallRecord {
        &mut self.call
    }

    /// What scripts keep: `remember`'s notes, `answer`'s text.
    pub(crate) fn notes_mut(&mut self) -> &mut Notes {
        &mut self.notes
    }

    /// The vision model `#{ai: ...}` and `locate()` ask, and its answers.
    pub(crate) fn locator_mut(&mut self) -> &mut crate::locator_state::Locator {
        &mut self.locator
    }

    /// The running snippet's clock and stop signal.
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// What the last `answer(text)` gave.
    pub fn answer(&self) -> Option<&str> {
        self.notes.answer()
    }

    /// The facts `remember()` kept, oldest first.
    pub fn facts(&self) -> &[String] {
        self.notes.facts()
    }

    /// The vision model `#{ai: ...}` and `locate()` ask from now on (`None`: none).
    pub fn set_locator(&mut self, vision: Option<codeact_platform::locate::ai::Vision>) {
        self.locator.vision = vision;
    }

    /// Whether a locator model is configured and the persona lets it be asked.
    pub fn can_ask_locator(&self) -> bool {
        self.locator.allowed && self.locator.vision.is_some()
    }

    /// Whether the persona lets selectors ask the locator model (it lists `locate`).
    pub fn allow_locating(&mut self, allowed: bool) {
        self.locator.allowed = allowed;
    }

    /// When the running call must end.
    pub(crate) fn call_deadline(&self) -> Instant {
        self.deadline
    }

    /// Lends the secret `name` to `type_secret` (see [`SecretStore::lend`](codeact_base::secrets::SecretStore::lend)).
    pub fn lend_secret(&mut self, name: &str, value: &str) -> bool {
        self.options.secrets.lend(name, value)
    }

    /// Masks a client's sensitive words in every record while the session lives
    /// (see [`SecretStore::mask_all`](codeact_base::secrets::SecretStore::mask_all)).
    pub fn mask_secrets(&mut self, many: &[&str]) -> bool {
        self.options.secrets.mask_all(many)
    }

    /// Who answers questions and consents from now on.
    pub fn set_human(&mut self, human: Option<crate::human::Human>) {
        self.consent.human = human;
    }

    /// Forgets what scripts kept (facts, the answer, their watchers); the next
    /// `ui_state` is read fresh.
    pub fn forget_scripts(&mut self) {
        self.notes = Notes::default();
        self.watch.forget_script_watchers();
        self.set_snapshot(None);
    }

    /// The device as a tool reads it; acting goes through [`act`](Self::act).
    pub(crate) fn reads(&mut self) -> DeviceReads<'_> {
        DeviceReads(self.device.as_mut())
    }

    /// The whole device, for the runtime's own commands (setting up the virtual
    /// phone, resetting it, a screenshot for the caller): never for a script's.
    pub fn runtime_device(&mut self) -> &mut dyn Device {
        self.device.as_mut()
    }

    pub fn device_name(&self) -> &str {
        self.device.name()
    }

    /// Makes `obs` what `ui_state` and `phone_state` show (`None`: read the screen
    /// when a snippet first asks). Indices are fresh again.
    pub fn set_snapshot(&mut self, obs: Option<Arc<Observation>>) {
        self.screen.set_snapshot(obs);
    }

    /// Observes and makes that observation what `ui_state`/`phone_state` show.
    pub(crate) fn refresh(&mut self) -> Result<Arc<Observation>, DeviceError> {
        let obs = Arc::new(self.device.observe()?);
        self.set_snapshot(Some(obs.clone()));
        Ok(obs)
    }

    /// The observation `ui_state` shows (observing first if there is none yet).
    pub(crate) fn snapshot(&mut self) -> Result<Arc<Observation>, DeviceError> {
        match &self.screen.snapshot {
            Some(obs) => Ok(obs.clone()),
            None => self.refresh(),
        }
    }

    /// Which snapshot `ui_state` shows (it changes with every new snapshot).
    pub(crate) fn generation(&self) -> u64 {
        self.screen.generation
    }

    /// Whether `ui_state` follows the screen (scripts, the REPL) or stays what the
    /// model saw (the agent).
    /// The session's: `obs`, read by the caller a moment ago, is what the next
    /// lookup finds on, instead of reading the screen again (`Screen::JustRead`).
    pub fn offer_read(&mut self, obs: Arc<Observation>) {
        self.screen.offer_read(obs);
    }

    pub fn set_following(&mut self, follow: bool) {
        self.screen.follow = follow;
    }

    /// True when the next read of `ui_state` must look at the screen again.
    pub(crate) fn must_reread(&self) -> bool {
        self.screen.follow && self.screen.dirty
    }

    /// `ui_state` as a Rhai value (built once per snapshot; read again first when it
    /// follows the screen and an action ran).
    pub(crate) fn ui_value(&mut self) -> Result<Dynamic, DeviceError> {
        if self.must_reread() {
            self.refresh()?;
        }
        let snapshot = self.snapshot()?;
        Ok(self.screen.ui_value.get_or_insert_with(|| state::ui_state(&snapshot)).clone())
    }

    /// `phone_state` as a Rhai value. Indices belong to the snapshot; the phone's
    /// state has none, so it shows the newest observation (the one an action
    /// settled on).
    pub(crate) fn phone_value(&mut self) -> Result<Dynamic, DeviceError> {
        let snapshot = self.snapshot()?;
        Ok(state::phone_state(self.screen.latest.as_deref().unwrap_or(&snapshot)))
    }

    /// Runs `f` with the device bound to `deadline`: no device call inside may
    /// outlast the snippet.
    pub fn bounded<T>(&mut self, deadline: Instant, f: impl FnOnce(&mut Self) -> T) -> T {
        self.deadline = deadline;
        self.device.set_deadline(Some(deadline));
        let out = f(self);
        self.device.set_deadline(None);
        out
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
    /// yet: then it becomes the snapshot). The read settling just made stands for
    /// a new one, once (`settling.rs`).
    pub(crate) fn look(&mut self) -> Result<Arc<Observation>, DeviceError> {
        self.screen.look(self.device.as_mut())
    }

    /// The screen was shown to whoever writes the next snippet (the REPL's `:state`):
    /// its indices are known again.
    pub fn mark_seen(&mut self) {
        self.screen.acted_unseen = false;
    }

    /// Makes sure the screen after the last action has been read (settling reads it;
    /// with settling off, this does).
    pub(crate) fn settled_screen(&mut self) -> Result<(), DeviceError> {
        if self.screen.latest.is_none() {
            self.look()?;
        }
        Ok(())
    }

    /// The element that has focus on the screen as last read, if one does.
    pub(crate) fn focused_field(&self) -> Option<&Element> {
        self.screen.focused_field()
    }

    /// The screen as last read: the newest observation, else the snapshot.
    pub(crate) fn live(&self) -> Option<&Observation> {
        self.screen.live()
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
        if let Some((needs, what)) = acting::checks_needed(&act)
            && !needs.iter().any(|g| self.call.gates.contains(g))
        {
            let declared: Vec<String> = self.call.gates.iter().map(|g| format!("{g:?}").to_lowercase()).collect();
            let declared = if declared.is_empty() { "no gate".to_string() } else { declared.join(", ") };
            return Err(ToolError::Undeclared { tool: self.call.tool.to_string(), act: what, declared });
        }
        if act.meets_the_screen()
            && let Some(obs) = self.live_arc()
        {
            self.watchers_before(obs)?;
        }
        self.judge(&act)?;
        // Stopped while it looked, asked or waited: the act is not made.
        if self.shared.cancelled() {
            return Err(ToolError::Stopped);
        }
        let out = act.perform(self.device.as_mut())?;
        if act.changes_the_screen() {
            self.after_action();
        }
        Ok(out)
    }

    /// The call about to run starts afresh: no effect measured, no target.
    pub(crate) fn begin_call(&mut self, tool: &'static str, gates: &'static [Gate]) {
        self.call.begin(tool, gates);
        self.consent.this_call = false;
    }

    /// Whether watchers may fire now: not on a call made from a script watcher's
    /// own function.
    pub(crate) fn watchers_may_fire(&self) -> bool {
        self.watch.on
    }

    /// Whether an action ran and nothing checked its outcome since.
    pub fn outcome_unchecked(&self) -> bool {
        self.screen.outcome_unchecked
    }

    /// An assertion or a wait looked at the screen after the last action.
    pub(crate) fn outcome_checked(&mut self) {
        self.screen.outcome_unchecked = false;
    }

    /// The next action's effect is measured from the screen as it is now (not from
    /// before the scrolling or keyboard hiding that led up to it).
    pub(crate) fn measure_effect_from_here(&mut self) {
        self.call.effect_before = None;
    }

    /// The screen as last read, shared.
    pub fn live_arc(&self) -> Option<Arc<Observation>> {
        self.screen.live_arc()
    }

    /// After an action: wait for the screen to settle, say what the action changed
    /// (against the screen before the call's first action, from observations
    /// already made), then capture what the options ask to record.
    pub(crate) fn after_action(&mut self) {
        let before = self.live_arc();
        if self.call.effect_before.is_none() {
            self.call.effect_before = before;
        }
        self.screen.dirty = true;
        self.screen.acted_unseen = true;
        self.screen.outcome_unchecked = true;
        self.screen.latest = None;
        self.settle();
        if self.screen.latest.is_none() && self.options.record != Recording::None {
            self.screen.latest = self.device.observe().ok().map(Arc::new);
        }
        if let (Some(before), Some(after)) = (self.call.effect_before.clone(), self.screen.latest.clone()) {
            let moved = self.print_of(&before) != self.print_of(&after);
            let effect = describe_printed(&before, &after, self.call.effect_target.as_ref(), moved);
            self.call.capture.effect = Some(self.call.effect_line(&effect.text));
            self.call.capture.toggled = toggled(&after.ui, &effect.flipped);
            self.call.last_effect = Some(effect);
        }
        if let Some(after) = &self.screen.latest {
            let phone = &after.phone;
            self.call.capture.screen = Some(Screen { app: phone.package.clone(), activity: phone.activity.clone() });
            self.call.capture.fallback = after.fallback.clone();
        }
        if self.options.record == Recording::None {
            return;
        }
        self.call.capture.ui_xml = self.screen.latest.as_ref().map(|o| Arc::from(o.dump.as_str()));
        let secret_shown = self.screen.latest.as_ref().is_some_and(|o| o.ui.shows_secret());
        if self.options.record == Recording::All && !secret_shown {
            self.call.capture.screenshot = self.device.screenshot().ok().map(Arc::from);
        }
    }

    /// The state print of `obs`, kept for the last observation printed: an action's
    /// "after" is the next one's "before".
    pub(crate) fn print_of(&mut self, obs: &Arc<Observation>) -> u64 {
        if let Some((kept, print)) = &self.screen.printed
            && Arc::ptr_eq(kept, obs)
        {
            return *print;
        }
        let print = state_print(&obs.ui);
        self.screen.printed = Some((obs.clone(), print));
        print
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
        let index = self.screen.snapshot.as_ref().map_or(-1, |snap| {
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
        if self.screen.installed.is_none() {
            self.screen.installed = Some(self.device.list_packages(true)?);
        }
        Ok(self.screen.installed.as_deref().unwrap_or_default())
    }

    /// Keeps a screenshot for the action record and returns it.
    /// The screen as last read, replaced by `obs` (the same screen with what was
    /// found on its screenshot added).
    pub(crate) fn replace_latest(&mut self, obs: Arc<Observation>) {
        self.screen.latest = Some(obs);
    }

    pub(crate) fn capture_screenshot(&mut self) -> Result<Arc<[u8]>, DeviceError> {
        if self.live().is_some_and(|o| o.ui.shows_secret()) {
            return Err(DeviceError::SecretOnScreen);
        }
        let png: Arc<[u8]> = Arc::from(self.device.screenshot()?);
        self.call.capture.screenshot = Some(png.clone());
        Ok(png)
    }
}
