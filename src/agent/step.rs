//! One run of the loop and one step of it. A step observes what the persona needs,
//! asks the model with the history of earlier [`StepRecord`]s, runs the snippet it
//! wrote on the very observation it saw, and records the step once; its events are
//! written as it goes, so a killed run loses at most the step in flight.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::loop_guard::{LoopGuard, Repetition};
use super::outcome::Ending;
use super::prompt::{self, Now, Prompt};
use super::reflect;
use super::roles::{Models, Role, RoleUsages};
use super::{AgentError, AgentOptions, Progress, SaveMode, Summary};
use crate::device::Observation;
use crate::error_text::full_message;
use crate::llm::{Message, Reply, Usage, extract};
use crate::persona::Persona;
use crate::session::Session;
use crate::trajectory::{
    self, Event, SharedTrajectory, StepOutcome, StepRecord, StepTiming, Trajectory, export, new_run_dir,
};

/// How replaying one remembered step went.
pub(super) enum Replayed {
    /// It ran without an error (with the completion it made, if any).
    Done(Option<crate::sandbox::Completion>),
    /// It could not be replayed: why (a precondition, or its error).
    Diverged(String),
}

/// Whether the loop goes on after a step.
pub(super) enum StepEnd {
    Continue,
    Stop(Ending),
}

/// A run in progress.
/// What memory lends a run's prompts.
#[derive(Debug, Default)]
pub(super) struct LentMemory {
    /// Worked examples of similar tasks.
    pub examples: Option<String>,
    /// Reviewers' notes on earlier runs of this task.
    pub lessons: Vec<String>,
    /// The app cards, by package (shown for the app in front).
    pub cards: Vec<(String, String)>,
    pub widgets: crate::memory::WidgetHints,
}

pub(super) struct Run<'a> {
    session: &'a mut Session,
    models: &'a Models,
    persona: &'a Persona,
    options: &'a AgentOptions,
    interrupt: &'a CancellationToken,
    trajectory: SharedTrajectory,
    /// `report.html`, rewritten after each step.
    report: crate::report::RunReport,
    /// The step the action sink files actions under.
    step_now: Arc<AtomicUsize>,
    /// Wakes a snippet waiting on the device when Ctrl-C comes.
    waker: tokio::task::JoinHandle<()>,
    prompt: Prompt,
    guard: LoopGuard,
    /// The steps of the phase in hand (the prompt's history).
    records: Vec<StepRecord>,
    /// The steps of earlier phases (a hierarchical run's other sub-agents).
    earlier: Vec<StepRecord>,
    /// What the reflector wrote, oldest first.
    reflections: Vec<String>,
    /// Actions since the last reflection.
    actions_since_reflection: usize,
    /// Each role's calls and tokens.
    roles: RoleUsages,
    started: Instant,
    /// Steps in a row that ended in an error or changed nothing on screen.
    stalled: usize,
    /// Completions the gate held (each gives the model one step more).
    held: usize,
    /// The completion gate may hold completions now (a replay's healing step for
    /// an intermediate step turns it off: the next step's precondition checks).
    gate_on: bool,
    /// What memory did, for the summary.
    memory_note: Option<String>,
    /// The user's app cards (memory), by package.
    cards: std::collections::HashMap<String, String>,
    /// What acting on elements did in earlier runs (memory).
    widgets: crate::memory::WidgetHints,
}

/// Whether the selector `anchor` (Rhai source, as recorded) matches on `seen`; an
/// anchor that is not a selector literal is refused (it is read as data, never run).
fn anchor_visible(anchor: &str, seen: &Observation) -> Result<bool, crate::tools::select::SelectorError> {
    Ok(!crate::tools::select::Selector::from_source(anchor)?.find_all(&seen.ui).is_empty())
}

/// A run's id in traces (`gen_ai.conversation.id`): its directory's name.
fn run_id(dir: &std::path::Path) -> String {
    dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// How much of a precondition a divergence message quotes.
const ANCHOR_SHOWN: usize = 300;

/// How many completions the gate holds in one run at most.
const MAX_HELD: usize = 2;

/// What the model is told when the gate holds its completion.
const HELD: &str = "You called complete(true, ...) right after acting, without looking at what the actions did. \
     The screen below is the result: if the task is really done, call complete(true, \"...\") again without acting; \
     otherwise continue.";

impl<'a> Run<'a> {
    /// Opens the run directory, writes `run_start`, and prepares what every request
    /// shares (the system prompt, the apps the model may open).
    pub(super) fn start(
        session: &'a mut Session,
        models: &'a Models,
        persona: &'a Persona,
        options: &'a AgentOptions,
        interrupt: &'a CancellationToken,
        progress: &mut (dyn FnMut(Progress) + Send),
    ) -> Result<Self, AgentError> {
        let started = Instant::now();
        let run_dir = new_run_dir(&options.out_dir, &options.task);
        let mut written = Trajectory::create(&run_dir)?;
        if let Some(traces) = &options.traces {
            written.set_observer(Box::new(traces.spans_for(&run_id(&run_dir))));
        }
        let trajectory = Arc::new(Mutex::new(written));
        progress(Progress::Started { run_dir: &run_dir });
        let config = models.actor.config();
        let device = session.device_name();
        trajectory::lock(&trajectory).append(&Event::RunStart {
            task: &options.task,
            persona: &persona.name,
            model: &config.model,
            provider: &config.provider(),
            device: &device,
            max_steps: options.max_steps,
            vision: options.vision,
            save: options.save.as_str(),
        });
        let step_now = Arc::new(AtomicUsize::new(0));
        let step = step_now.clone();
        // Per-action files only in `action` mode: step files use the same names.
        let keep = options.save == SaveMode::Action;
        let sink = trajectory::action_sink(trajectory.clone(), Arc::new(move || step.load(Ordering::SeqCst)), keep);
        session.set_action_sink(Some(sink));
        // Ctrl-C stops the snippet that runs (and any that would start), and wakes it
        // from a wait on the device.
        session.stop_on(interrupt.clone());
        let waker = {
            let (interrupt, handle) = (interrupt.clone(), session.cancel_handle());
            tokio::spawn(async move {
                interrupt.cancelled().await;
                handle.cancel();
            })
        };
        let packages = if persona.wants("packages") {
            tokio::task::block_in_place(|| session.apps_worth_naming()).ok()
        } else {
            None
        };
        let prompt = Prompt {
            system: prompt::system(persona, session.coordinate_scale()),
            task: options.task.clone(),
            max_steps: options.max_steps,
            packages,
            focus: None,
            examples: None,
            lessons: Vec::new(),
        };
        Ok(Self {
            session,
            models,
            persona,
            options,
            interrupt,
            report: crate::report::RunReport::new(&run_dir, options.report),
            trajectory,
            step_now,
            waker,
            prompt,
            guard: LoopGuard::new(options.loop_limit),
            records: Vec::new(),
            earlier: Vec::new(),
            reflections: Vec::new(),
            actions_since_reflection: 0,
            roles: RoleUsages::new(),
            started,
            stalled: 0,
            held: 0,
            gate_on: true,
            memory_note: None,
            cards: std::collections::HashMap::new(),
            widgets: crate::memory::WidgetHints::default(),
        })
    }

    pub(super) fn steps_taken(&self) -> usize {
        self.step_now.load(Ordering::SeqCst)
    }

    /// Steps beyond `--max-steps` the completion gate granted.
    pub(super) fn extra_steps(&self) -> usize {
        self.held
    }

    pub(super) fn event(&self, event: &Event) {
        trajectory::lock(&self.trajectory).append(event);
    }

    pub(super) fn options(&self) -> &AgentOptions {
        self.options
    }

    pub(super) fn interrupted(&self) -> bool {
        self.interrupt.is_cancelled()
    }

    /// Steps in a row that ended in an error or changed nothing on screen.
    pub(super) fn stalled_steps(&self) -> usize {
        self.stalled
    }

    /// What the actor reads beside its task from now on (the plan, with its item
    /// marked), or nothing.
    pub(super) fn set_focus(&mut self, focus: Option<String>) {
        self.prompt.focus = focus;
    }

    /// A new phase: `persona` acts on `task` with a history of its own (a
    /// hierarchical run's next sub-agent). The step count, the budget and the
    /// reflections go on.
    pub(super) fn begin_phase(&mut self, persona: &'a Persona, task: String) {
        self.persona = persona;
        self.prompt.system = prompt::system(persona, self.session.coordinate_scale());
        self.prompt.task = task;
        if persona.wants("packages") && self.prompt.packages.is_none() {
            self.prompt.packages = tokio::task::block_in_place(|| self.session.apps_worth_naming()).ok();
        }
        self.earlier.append(&mut self.records);
        self.guard = LoopGuard::new(self.options.loop_limit);
        self.stalled = 0;
        self.event(&Event::Phase { step: self.steps_taken(), persona: &persona.name, task: &self.prompt.task });
    }

    /// Requests to any role's model so far.
    pub(super) fn llm_calls(&self) -> usize {
        self.roles.values().map(|r| r.calls).sum()
    }

    /// What memory lends the actor's prompt: worked examples of similar tasks, and
    /// the app cards (shown for the app in front).
    pub(super) fn lend_memory(&mut self, lent: LentMemory) {
        self.prompt.examples = lent.examples;
        self.prompt.lessons = lent.lessons;
        self.cards = lent.cards.into_iter().collect();
        self.widgets = lent.widgets;
    }

    /// What the reviewer said during the run.
    pub(super) fn reflections(&self) -> &[String] {
        &self.reflections
    }

    /// What acting on elements did during the run, for widget knowledge.
    pub(super) fn widget_facts(&self) -> Vec<crate::memory::WidgetFact> {
        crate::memory::facts_from_records(&self.all_records())
    }

    /// What memory did, for the summary.
    pub(super) fn set_memory_note(&mut self, note: String) {
        self.memory_note = Some(note);
    }

    /// Lets the completion gate hold completions (`true`, the default) or not.
    pub(super) fn hold_completions(&mut self, on: bool) {
        self.gate_on = on;
    }

    /// The run so far as a memory experience (its replayable steps).
    pub(super) fn experience(&self) -> crate::memory::Experience {
        crate::memory::Experience::from_records(&self.options.task, &self.all_records())
    }

    /// Every step of the run, every phase's, in order. Only the last step's
    /// completion ended the run: earlier ones ended a plan item or a sub-agent, so
    /// a replay goes on past them.
    fn all_records(&self) -> Vec<StepRecord> {
        let mut records = self.earlier.clone();
        records.extend(self.records.iter().cloned());
        let last = records.len().saturating_sub(1);
        for r in &mut records[..last] {
            if r.ran().is_some_and(|ran| ran.completion.is_some()) {
                r.completion_held = true;
            }
        }
        records
    }

    /// Replays remembered step `index` without the LLM, when its precondition holds
    /// on the screen as it is: the app in front, and its anchor visible. A step that
    /// runs is a step of the run (recorded, with its events); one whose
    /// precondition fails takes no step.
    pub(super) fn replay_step(
        &mut self,
        step: &crate::memory::ReplayStep,
        index: usize,
        headline: &str,
        progress: &mut (dyn FnMut(Progress) + Send),
    ) -> Result<Replayed, Ending> {
        let t = Instant::now();
        let seen = match tokio::task::block_in_place(|| self.session.observe(false)) {
            Ok(seen) => seen,
            Err(e) => return Err(Ending::DeviceLost(full_message(&e))),
        };
        if !step.app.is_empty() && seen.phone.package != step.app {
            return Ok(Replayed::Diverged(format!("{} is in front, not {}", seen.phone.package, step.app)));
        }
        if let Some(anchor) = &step.anchor {
            let shown = crate::clip::clip(anchor, ANCHOR_SHOWN);
            match anchor_visible(anchor, &seen) {
                Ok(true) => {}
                Ok(false) => return Ok(Replayed::Diverged(format!("nothing on screen matches {shown}"))),
                Err(e) => return Ok(Replayed::Diverged(format!("its precondition {shown} is refused: {e}"))),
            }
        }
        let number = self.step_now.fetch_add(1, Ordering::SeqCst) + 1;
        let started = Instant::now();
        self.event(&Event::StepStart { step: number });
        progress(Progress::Step { step: number, max: self.options.max_steps });
        self.keep_observation(number, &seen, t.elapsed());
        progress(Progress::Reply { step: number, headline, usage: Usage::default(), llm_ms: 0.0 });
        let outcome = self.execute(number, Some(&step.code), &seen, progress);
        self.event(&Event::Replayed { step: number, of: index + 1 });
        let action_ms: f64 = match &outcome {
            StepOutcome::Ran(r) => r.actions.iter().map(|a| a.duration_ms).sum(),
            _ => 0.0,
        };
        let wall = started.elapsed().as_secs_f64() * 1000.0;
        let timing =
            StepTiming { wall_ms: wall, llm_ms: 0.0, device_ms: action_ms, overhead_ms: (wall - action_ms).max(0.0) };
        let result = match &outcome {
            StepOutcome::Ran(r) => match &r.error {
                Some(e) => Replayed::Diverged(format!("its code failed: {}", e.message)),
                None => Replayed::Done(r.completion.clone()),
            },
            StepOutcome::NotParsed(e) => Replayed::Diverged(format!("its code does not parse: {}", e.message)),
            StepOutcome::NoCode => Replayed::Diverged("it has no code".into()),
        };
        let record = StepRecord {
            number,
            reply: String::new(),
            thought: step.intent.clone(),
            code: Some(step.code.clone()),
            outcome,
            usage: Usage::default(),
            timing,
            repeated: false,
            notes: Vec::new(),
            completion_held: false,
            seen: Some((seen.phone.package.clone(), seen.phone.activity.clone())),
        };
        if record.ran().is_some() {
            progress(Progress::Ran { step: number, record: &record });
        }
        // A replayed step that erred stays in the history: the model sees what it did.
        self.records.push(record);
        self.update_report();
        Ok(result)
    }

    /// Starts the count of steps that went nowhere afresh (a new plan).
    pub(super) fn reset_stall(&mut self) {
        self.stalled = 0;
    }

    /// The session, for a strategy's own reads (the variables a sub-agent left).
    pub(super) fn session(&mut self) -> &mut Session {
        self.session
    }

    /// The screen as a planner reads it (no step of its own, no files), and the
    /// installed apps worth naming.
    pub(super) fn screen_for_planning(&mut self) -> Result<(String, Vec<String>), StepEnd> {
        let seen = tokio::task::block_in_place(|| self.session.observe(false));
        let seen = match seen {
            Ok(seen) => seen,
            Err(e) => {
                let message = full_message(&e);
                self.event(&Event::DeviceError { step: self.steps_taken(), message: message.clone() });
                return Err(StepEnd::Stop(Ending::DeviceLost(message)));
            }
        };
        let apps = match &self.prompt.packages {
            Some(p) => p.clone(),
            None => tokio::task::block_in_place(|| self.session.apps_worth_naming()).unwrap_or_default(),
        };
        Ok((seen.screen_text(), apps))
    }

    /// Asks `role`'s model, with the request and the reply in the events and the
    /// role's count; a failure ends the run (the actor and the planner cannot do
    /// without an answer).
    pub(super) async fn ask_model(&mut self, role: Role, messages: &[Message]) -> Result<Reply, StepEnd> {
        let step = self.steps_taken();
        let client = self.models.client(role);
        let model = client.config().model.clone();
        let images = messages.iter().filter(|m| m.image_png.is_some()).count();
        {
            let mut t = trajectory::lock(&self.trajectory);
            t.prompt(messages);
            t.append(&Event::LlmRequest { step, role: role.as_str(), model: &model, messages: messages.len(), images });
        }
        let reply = tokio::select! {
            r = client.complete(messages) => r,
            () = self.interrupt.cancelled() => {
                return Err(StepEnd::Stop(Ending::Interrupted { during: " while waiting for the model" }));
            }
        };
        match reply {
            Ok(reply) => {
                self.event(&Event::LlmReply {
                    step,
                    role: role.as_str(),
                    text: &reply.text,
                    prompt_tokens: reply.usage.prompt_tokens,
                    completion_tokens: reply.usage.completion_tokens,
                    total_tokens: reply.usage.total_tokens,
                    ms: reply.elapsed.as_secs_f64() * 1000.0,
                    attempts: reply.attempts,
                });
                let usage = self.roles.entry(role.as_str()).or_default();
                usage.model = model;
                usage.calls += 1;
                usage.tokens += reply.usage;
                Ok(reply)
            }
            Err(e) => {
                let message = full_message(&e);
                self.event(&Event::LlmError { step, message: message.clone() });
                Err(StepEnd::Stop(Ending::LlmFailed(message)))
            }
        }
    }

    /// The reflector's turn after a step the run goes on from (a strategy calls it
    /// after a step that ended a plan item), when one is due: its critique joins the
    /// actor's prompt. A reflector that fails is noted and skipped: the run goes on.
    pub(super) async fn reflect_if_due(&mut self, progress: &mut (dyn FnMut(Progress) + Send)) {
        let Some(record) = self.records.last() else { return };
        self.actions_since_reflection += record.ran().map_or(0, |r| r.actions.len() + r.more_actions);
        if !reflect::due(self.options.reflect_every, self.actions_since_reflection, record) {
            return;
        }
        self.actions_since_reflection = 0;
        let number = record.number;
        let messages = reflect::messages(&self.prompt.task, self.prompt.focus.as_deref(), &self.records);
        let Ok(reply) = self.ask_model(Role::Reflector, &messages).await else { return };
        let text = reflect::trimmed(&reply.text);
        if text.is_empty() {
            return;
        }
        self.event(&Event::Reflection { step: number, text: &text });
        progress(Progress::Note { step: number, text: &format!("reflection: {text}") });
        self.reflections.push(text);
    }

    /// One step: observe, ask, run, record.
    pub(super) async fn step(&mut self, progress: &mut (dyn FnMut(Progress) + Send)) -> StepEnd {
        let number = self.step_now.fetch_add(1, Ordering::SeqCst) + 1;
        let started = Instant::now();
        self.event(&Event::StepStart { step: number });
        progress(Progress::Step { step: number, max: self.options.max_steps });
        let (seen, observe_time) = match self.look(number) {
            Ok(seen) => seen,
            Err(end) => return end,
        };
        let happened: Vec<String> = self
            .session
            .take_watcher_firings()
            .into_iter()
            .map(|f| format!("a watcher cleared a blocker: {f}"))
            .collect();
        let mut notes: Vec<String> = Vec::new();
        let screen_text = seen.screen_text();
        let reply = match self.ask(number, &seen, &screen_text, &happened).await {
            Ok(reply) => reply,
            Err(end) => return end,
        };
        let extracted = extract::extract(&reply.text);
        let llm_ms = reply.elapsed.as_secs_f64() * 1000.0;
        progress(Progress::Reply { step: number, headline: extracted.headline(), usage: reply.usage, llm_ms });
        let outcome = self.execute(number, extracted.code.as_deref(), &seen, progress);

        let action_ms: f64 = match &outcome {
            StepOutcome::Ran(r) => r.actions.iter().map(|a| a.duration_ms).sum(),
            _ => 0.0,
        };
        let device = observe_time + Duration::from_secs_f64(action_ms / 1000.0);
        let wall = started.elapsed();
        let timing = StepTiming {
            wall_ms: wall.as_secs_f64() * 1000.0,
            llm_ms,
            device_ms: device.as_secs_f64() * 1000.0,
            overhead_ms: wall.saturating_sub(reply.elapsed + device).as_secs_f64() * 1000.0,
        };
        self.event(&Event::StepEnd {
            step: number,
            wall_ms: timing.wall_ms,
            llm_ms: timing.llm_ms,
            device_ms: timing.device_ms,
            overhead_ms: timing.overhead_ms,
            more_actions: match &outcome {
                StepOutcome::Ran(r) => r.more_actions,
                _ => 0,
            },
        });
        let repetition = match (&outcome, &extracted.code) {
            (StepOutcome::Ran(_), Some(code)) => self.guard.note(code, &screen_text),
            _ => Repetition::Fresh,
        };
        let held = self.hold_completion(&outcome);
        if held {
            notes.push(HELD.to_string());
        }
        let mut record = StepRecord {
            number,
            reply: reply.text,
            thought: extracted.thought,
            code: extracted.code,
            outcome,
            usage: reply.usage,
            timing,
            repeated: repetition == Repetition::Repeated,
            notes,
            completion_held: held,
            seen: Some((seen.phone.package.clone(), seen.phone.activity.clone())),
        };
        let stall_end = self.note_stall(&mut record);
        if record.ran().is_some() {
            progress(Progress::Ran { step: number, record: &record });
        }
        if held {
            progress(Progress::Note { step: number, text: "completion held: the model sees the final screen first" });
        }
        // A completion ends the run whatever came before it; a stall ends it otherwise.
        let end = match (self.decide(&record, repetition, held), stall_end) {
            (StepEnd::Stop(Ending::Completed(c)), _) => StepEnd::Stop(Ending::Completed(c)),
            (_, Some(stalled)) => StepEnd::Stop(stalled),
            (end, None) => end,
        };
        self.records.push(record);
        self.update_report();
        if matches!(end, StepEnd::Continue) {
            self.reflect_if_due(progress).await;
        }
        end
    }

    /// Observes the phone for step `number` (with a screenshot when the model sees
    /// one or the run keeps one), and how long that took.
    fn look(&mut self, number: usize) -> Result<(Arc<Observation>, Duration), StepEnd> {
        let t = Instant::now();
        let screenshot = self.options.vision || self.options.save == SaveMode::Step;
        let seen = tokio::task::block_in_place(|| self.session.observe(screenshot));
        let took = t.elapsed();
        match seen {
            Ok(seen) => {
                self.keep_observation(number, &seen, took);
                Ok((seen, took))
            }
            Err(e) => {
                let message = full_message(&e);
                self.event(&Event::DeviceError { step: number, message: message.clone() });
                Err(StepEnd::Stop(Ending::DeviceLost(message)))
            }
        }
    }

    /// Asks the model about `seen`, with the history of the steps before.
    async fn ask(
        &mut self,
        number: usize,
        seen: &Observation,
        screen_text: &str,
        happened: &[String],
    ) -> Result<Reply, StepEnd> {
        let memory = if self.persona.wants("memory") { self.session.memory() } else { Vec::new() };
        let image = seen.screenshot.as_ref().filter(|_| self.options.vision);
        let shown = self.reflections.len().saturating_sub(reflect::SHOWN);
        let widget_hints = self.widgets.for_screen(&seen.phone.package, &seen.phone.activity, screen_text);
        let now = Now {
            step: number,
            screen_text,
            image,
            memory: &memory,
            happened,
            reflections: &self.reflections[shown..],
            app_card: self.cards.get(&seen.phone.package).map(String::as_str),
            widget_hints: &widget_hints,
        };
        let messages = self.prompt.messages(&self.records, now);
        self.ask_model(Role::Actor, &messages).await
    }

    /// Runs the reply's code on the observation the model saw; no code, or code that
    /// does not parse, runs nothing.
    fn execute(
        &mut self,
        number: usize,
        code: Option<&str>,
        seen: &Arc<Observation>,
        progress: &mut (dyn FnMut(Progress) + Send),
    ) -> StepOutcome {
        let Some(code) = code else {
            self.event(&Event::NoCode { step: number });
            progress(Progress::Note { step: number, text: "no code in the reply; asked again" });
            return StepOutcome::NoCode;
        };
        self.event(&Event::Code { step: number, code });
        // Parsed and run in one hand-over to the engine's process.
        let result = match tokio::task::block_in_place(|| self.session.run_source(code, seen)) {
            Ok(result) => result,
            Err(error) => {
                self.event(&Event::ParseError { step: number, error: &error });
                progress(Progress::Note { step: number, text: "the code does not parse; nothing ran" });
                return StepOutcome::NotParsed(error);
            }
        };
        if !result.output.is_empty() || result.value.is_some() {
            self.event(&Event::Output { step: number, output: &result.output, value: result.value.as_deref() });
        }
        if let Some(error) = &result.error {
            self.event(&Event::Error { step: number, error });
        }
        StepOutcome::Ran(result)
    }

    /// The completion gate: whether to hold a successful completion made right
    /// after acting, with nothing checking what the actions did.
    fn hold_completion(&mut self, outcome: &StepOutcome) -> bool {
        let StepOutcome::Ran(result) = outcome else { return false };
        let completed = result.completion.as_ref().is_some_and(|c| c.success);
        if !completed || !self.options.verify_completion || !self.gate_on || self.held >= MAX_HELD {
            return false;
        }
        if !self.session.outcome_unchecked() {
            return false;
        }
        self.held += 1;
        let reason = result.completion.as_ref().map_or("", |c| c.reason.as_str());
        self.event(&Event::CompletionHeld { step: self.steps_taken(), reason });
        true
    }

    /// The error threshold: counts steps in a row that went nowhere, tells the model
    /// to change approach at the threshold, and ends the run at twice it.
    fn note_stall(&mut self, record: &mut StepRecord) -> Option<Ending> {
        let threshold = self.options.error_threshold;
        match record.stalled() {
            Some(true) => self.stalled += 1,
            Some(false) => self.stalled = 0,
            None => {}
        }
        if threshold == 0 || self.stalled < threshold || record.stalled() != Some(true) {
            return None;
        }
        let ending = self.stalled >= 2 * threshold;
        self.event(&Event::Stalled { step: record.number, stalled: self.stalled, ending });
        if ending {
            return Some(Ending::Stalled { steps: self.stalled });
        }
        record.notes.push(format!(
            "the last {} steps ended in an error or changed nothing on screen. Change approach: read ui_state again, \
             try another element or another way to the goal (a different screen, scrolling, the app's search); \
             {} more steps like these end the run.",
            self.stalled,
            2 * threshold - self.stalled
        ));
        None
    }

    /// Whether the run goes on after `record` (`held`: the gate held its completion).
    fn decide(&self, record: &StepRecord, repetition: Repetition, held: bool) -> StepEnd {
        let Some(result) = record.ran() else { return StepEnd::Continue };
        if let Some(c) = result.completion.as_ref().filter(|_| !held) {
            self.event(&Event::Completion { step: record.number, success: c.success, reason: &c.reason });
            return StepEnd::Stop(Ending::Completed(c.clone()));
        }
        if self.interrupt.is_cancelled() {
            return StepEnd::Stop(Ending::Interrupted { during: " while a snippet ran" });
        }
        match repetition {
            Repetition::Looping(times) => StepEnd::Stop(Ending::Looped { times }),
            _ => StepEnd::Continue,
        }
    }

    /// Rewrites `report.html` with the steps so far, so a killed run still has one.
    /// A failure here does not stop the run: the last write, at the end, decides
    /// what the summary says.
    fn update_report(&mut self) {
        let _ = self.report.write();
    }

    /// The observation's event, and its files when the run keeps them per step.
    fn keep_observation(&self, step: usize, seen: &Observation, took: Duration) {
        let mut t = trajectory::lock(&self.trajectory);
        let (mut ui, mut screenshot) = (None, None);
        if self.options.save == SaveMode::Step {
            let name = format!("ui/{step:04}.xml");
            t.write_file(&name, seen.dump.as_bytes());
            ui = Some(name);
            if let Some(png) = &seen.screenshot {
                let name = format!("screenshots/{step:04}.png");
                t.write_file(&name, png);
                screenshot = Some(name);
            }
        }
        t.append(&Event::Observation {
            step,
            ms: took.as_secs_f64() * 1000.0,
            ui,
            screenshot,
            screenshot_error: seen.screenshot_error.as_deref().map(|e| full_message(e)),
        });
    }

    /// Writes the scripts, the summary and `run_end`; the run directory is complete.
    pub(super) fn finish(mut self, ending: Ending) -> Result<Summary, AgentError> {
        self.waker.abort();
        self.session.set_action_sink(None);
        let (outcome, reason) = ending.outcome();
        let steps = self.steps_taken();
        let config = self.models.actor.config();
        let records = self.all_records();
        let device = self.session.device_name();
        // A replay runs all steps as one snippet: give it the time all of them had.
        let replay_ms = self.session.limits().timeout_ms.saturating_mul(steps.max(1) as u64);
        let run_dir = trajectory::lock(&self.trajectory).dir().to_path_buf();
        let report_page = run_dir.join("report.html");
        let replay = format!(
            "codeact exec {} --device {} --limit timeout_ms={replay_ms}",
            run_dir.join("script.selectors.rhai").display(),
            self.options.device_spec.as_deref().unwrap_or("DEVICE")
        );
        let header = format!(
            "codeact run {:?}\npersona {}, model {}, device {device}; outcome {outcome:?}: {reason}\n\
             Replay from the screen the run started on: {replay}",
            self.options.task, self.persona.name, config.model
        );
        let mut tokens = Usage::default();
        for usage in self.roles.values() {
            tokens += usage.tokens;
        }
        let total = |f: fn(&StepTiming) -> f64| records.iter().map(|r| f(&r.timing)).sum::<f64>();
        let summary = Summary {
            task: self.options.task.clone(),
            persona: self.persona.name.clone(),
            model: config.model.clone(),
            provider: config.provider(),
            device,
            outcome,
            reason,
            steps,
            tokens,
            prompt_tokens_per_step: records.iter().map(|r| r.usage.prompt_tokens).collect(),
            strategy: self.options.strategy.as_str().to_string(),
            roles: self.roles.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
            memory: self.memory_note.take(),
            wall_ms: self.started.elapsed().as_secs_f64() * 1000.0,
            llm_ms: total(|t| t.llm_ms),
            device_ms: total(|t| t.device_ms),
            overhead_ms_per_step: if steps == 0 { 0.0 } else { total(|t| t.overhead_ms) / steps as f64 },
            run_dir,
            replay,
            // Written last (it shows the summary); a failure replaces this below.
            report: Ok(report_page),
        };
        let mut t = trajectory::lock(&self.trajectory);
        t.write_file("script.rhai", export::script(&header, &records).as_bytes());
        t.write_file("script.selectors.rhai", export::selector_script(&header, &records).as_bytes());
        let value = serde_json::to_value(&summary).unwrap_or_default();
        t.append(&Event::RunEnd(&value));
        t.finish(&value)?;
        drop(t);
        let mut summary = summary;
        if let Err(e) = self.report.write() {
            summary.report = Err(full_message(&e));
        }
        Ok(summary)
    }
}
