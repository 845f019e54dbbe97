//! A run's life, apart from its steps: open the run directory and write
//! `run_start`, prepare what every request shares, ask a role's model (counting its
//! calls and tokens), begin a sub-agent's phase, and finish: the replay scripts, the
//! summary and the final report. The steps themselves are `step.rs`'s; the checks
//! after them `checks.rs`'s.

use std::sync::Arc;
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use super::checks::{Checks, StepEnd};
use super::error::AgentError;
use super::history::History;
use super::options::{ActionFormat, AgentOptions, SaveMode};
use super::outcome::{Ending, Outcome};
use super::progress::{Progress, ProgressSink};
use super::prompt::{self, Prompt};
use super::recall::LentMemory;
use super::roles::{Models, Role, RoleUsages};
use super::summary::RunSummary;
use codeact_base::error_text::full_message;
use codeact_record::recorder::{Followers, StepRecorder};
use codeact_record::trajectory::{Event, StepTiming, export, new_run_dir};
use codeact_runtime::llm::{Message, Reply, Usage};
use codeact_runtime::persona::Persona;
use codeact_runtime::session::Session;

/// A run in progress.
pub(super) struct Run<'a> {
    pub(super) session: &'a mut Session,
    models: &'a Models,
    pub(super) persona: &'a Persona,
    pub(super) options: &'a AgentOptions,
    interrupt: &'a CancellationToken,
    pub(super) recorder: StepRecorder,
    /// Wakes a snippet waiting on the device when Ctrl-C comes.
    waker: tokio::task::JoinHandle<()>,
    pub(super) history: History,
    pub(super) checks: Checks,
    /// Each role's calls and tokens.
    roles: RoleUsages,
    started: Instant,
    /// What memory lends the actor's prompts (app cards and widget hints here;
    /// examples and lessons went into the prompt).
    pub(super) lent: LentMemory,
    /// The step in hand may answer with sub-goals instead of code (a tree node
    /// above `--tree-depth`).
    pub(super) may_split: bool,
    /// The tree node the steps in hand work for (`1.2 Open Settings`): each step
    /// record carries it, so an exported script keeps the tree as sections.
    pub(super) node: Option<String>,
    /// The functions the actor is offered (`--actions json`; none for code).
    pub(super) offered: Vec<codeact_runtime::llm::FunctionTool>,
}

/// The actor's system prompt for `persona` in the run's action format.
fn system_prompt(persona: &Persona, session: &Session, actions: ActionFormat) -> String {
    match actions {
        ActionFormat::Code => prompt::system(persona, session.coordinate_scale(), &session.script_tools().describe()),
        ActionFormat::Json => super::json_prompt::system(persona, session.coordinate_scale()),
    }
}

/// The functions the actor is offered: none when it writes code.
fn offered(persona: &Persona, session: &Session, actions: ActionFormat) -> Vec<codeact_runtime::llm::FunctionTool> {
    match actions {
        ActionFormat::Code => Vec::new(),
        ActionFormat::Json => super::json_prompt::offered(persona, session.script_tools()),
    }
}

impl<'a> Run<'a> {
    /// Opens the run directory, writes `run_start`, and prepares what every request
    /// shares (the system prompt, the apps the model may open).
    pub(super) fn start(
        session: &'a mut Session,
        models: &'a Models,
        persona: &'a Persona,
        options: &'a AgentOptions,
        interrupt: &'a CancellationToken,
        progress: &mut ProgressSink<'_>,
    ) -> Result<Self, AgentError> {
        let started = Instant::now();
        let run_dir = new_run_dir(&options.out_dir, &options.task);
        let followers = Followers {
            report: Some(options.report),
            traces: options.traces.as_deref(),
            keep_step_files: options.save == SaveMode::Step,
        };
        let recorder = StepRecorder::create(&run_dir, followers)?;
        progress(Progress::Started { run_dir: &run_dir });
        let config = models.actor.config();
        let device = session.device_name();
        recorder.event(&Event::RunStart {
            task: options.task.as_str().into(),
            persona: persona.name.as_str().into(),
            model: config.model.as_str().into(),
            provider: config.provider().into(),
            device: device.as_str().into(),
            max_steps: options.max_steps,
            vision: options.vision,
            save: options.save.as_str().into(),
            action_format: Some(options.actions.as_str().into()),
        });
        // Per-action files only in `action` mode: step files use the same names.
        session.set_action_sink(Some(recorder.action_sink(options.save == SaveMode::Action)));
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
            system: system_prompt(persona, session, options.actions),
            actions: options.actions,
            task: options.task.clone(),
            max_steps: options.max_steps,
            packages,
            focus: None,
            examples: None,
            lessons: Vec::new(),
        };
        let offered = offered(persona, session, options.actions);
        Ok(Self {
            session,
            models,
            persona,
            options,
            interrupt,
            recorder,
            waker,
            history: History::new(prompt),
            checks: Checks::new(options.loop_limit),
            roles: RoleUsages::new(),
            started,
            lent: LentMemory::default(),
            may_split: false,
            node: None,
            offered,
        })
    }

    pub(super) fn steps_taken(&self) -> usize {
        self.recorder.steps_taken()
    }

    /// Whether the step budget (`--max-steps` and the steps the completion gate
    /// granted) is spent.
    pub(super) fn budget_spent(&self) -> bool {
        self.steps_taken() >= self.options.max_steps + self.checks.held()
    }

    pub(super) fn event(&self, event: &Event) {
        self.recorder.event(event);
    }

    pub(super) fn interrupted(&self) -> bool {
        self.interrupt.is_cancelled()
    }

    /// The sub-goals the last step's reply split its goal into, when it held no
    /// code but `{"subgoals": [...]}` (the tree strategy); that step's feedback says
    /// so, not that code was missing, and it does not count as going nowhere.
    pub(super) fn last_reply_splits(&mut self) -> Option<Vec<codeact_record::trajectory::PlanItem>> {
        let last = self.history.records.last_mut()?;
        if !matches!(last.outcome, codeact_record::trajectory::StepOutcome::NoCode) {
            return None;
        }
        let items = super::plan_text::subgoals(&last.reply)?;
        last.notes.push(format!("{} {} sub-goals; they are done one by one.", super::prompt::SPLIT, items.len()));
        self.checks.reset_stall();
        Some(items)
    }

    /// What the actor reads beside its task from now on (the plan, with its item
    /// marked), or nothing.
    pub(super) fn set_focus(&mut self, focus: Option<String>) {
        self.history.prompt.focus = focus;
    }

    /// A new phase: `persona` acts on `task` with a history of its own (a
    /// hierarchical run's next sub-agent). The step count, the budget and the
    /// reflections go on.
    pub(super) fn begin_phase(&mut self, persona: &'a Persona, task: String) {
        self.persona = persona;
        let prompt = &mut self.history.prompt;
        prompt.system = system_prompt(persona, self.session, self.options.actions);
        self.offered = offered(persona, self.session, self.options.actions);
        prompt.task = task;
        if persona.wants("packages") && prompt.packages.is_none() {
            prompt.packages = tokio::task::block_in_place(|| self.session.apps_worth_naming()).ok();
        }
        self.history.new_phase();
        self.checks.new_phase();
        let step = self.steps_taken();
        self.event(&Event::Phase {
            step,
            persona: persona.name.as_str().into(),
            task: self.history.prompt.task.as_str().into(),
        });
    }

    /// Requests any role's model answered so far.
    pub(super) fn llm_calls(&self) -> usize {
        self.roles.values().map(|r| r.calls).sum()
    }

    /// What memory lends the actor's prompts: worked examples of similar tasks and
    /// reviewers' lessons go into the prompt; the app cards and widget knowledge are
    /// shown for the screen in front.
    pub(super) fn lend_memory(&mut self, mut lent: LentMemory) {
        self.history.prompt.examples = lent.examples.take();
        self.history.prompt.lessons = std::mem::take(&mut lent.lessons);
        self.lent = lent;
    }

    /// The run so far as a memory experience (its replayable steps).
    pub(super) fn experience(&self) -> codeact_record::memory::Experience {
        codeact_record::memory::Experience::from_records(&self.options.task, &self.history.all_records())
    }

    /// What acting on elements did during the run, for widget knowledge.
    pub(super) fn widget_facts(&self) -> Vec<codeact_record::memory::WidgetFact> {
        codeact_record::memory::facts_from_records(&self.history.all_records())
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
        self.history.cleared.extend(seen.cleared.iter().cloned());
        let apps = match &self.history.prompt.packages {
            Some(p) => p.clone(),
            None => tokio::task::block_in_place(|| self.session.apps_worth_naming()).unwrap_or_default(),
        };
        Ok((seen.screen_text(), apps))
    }

    /// Whether `role` has a model of its own (else it asks the actor's).
    pub(super) fn has_own_model(&self, role: Role) -> bool {
        match role {
            Role::Actor => true,
            Role::Planner => self.models.planner.is_some(),
            Role::Reflector => self.models.reflector.is_some(),
        }
    }

    /// Asks `role`'s model, with the request and the reply in the events and the
    /// role's count; a failure ends the run (the actor and the planner cannot do
    /// without an answer).
    pub(super) async fn ask_model(&mut self, role: Role, messages: &[Message]) -> Result<Reply, StepEnd> {
        let step = self.steps_taken();
        let client = self.models.client(role);
        let model = client.config().model.clone();
        let images = messages.iter().filter(|m| m.image_png.is_some()).count();
        let request = Event::LlmRequest {
            step,
            role: role.as_str().into(),
            model: model.as_str().into(),
            messages: messages.len(),
            images,
        };
        self.recorder.request(messages, &request);
        // Only the actor acts; the planner and the reflector answer in words.
        let tools: &[codeact_runtime::llm::FunctionTool] = if role == Role::Actor { &self.offered } else { &[] };
        let reply = tokio::select! {
            r = client.complete_with_tools(messages, tools) => r,
            () = self.interrupt.cancelled() => {
                return Err(StepEnd::Stop(Ending::Interrupted { during: " while waiting for the model" }));
            }
        };
        match reply {
            Ok(reply) => {
                self.event(&Event::LlmReply {
                    step,
                    role: role.as_str().into(),
                    text: reply.text.as_str().into(),
                    prompt_tokens: reply.usage.prompt_tokens,
                    completion_tokens: reply.usage.completion_tokens,
                    total_tokens: reply.usage.total_tokens,
                    ms: reply.elapsed.as_secs_f64() * 1000.0,
                    attempts: reply.attempts,
                    calls: reply.calls.clone(),
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
                // This role's model never answered in the run: a wrong address, model
                // or key (another role's model may have its own, working one).
                let never_answered = self.roles.get(role.as_str()).is_none_or(|u| u.calls == 0);
                Err(StepEnd::Stop(Ending::LlmFailed { message, never_answered }))
            }
        }
    }

    /// Writes the scripts, the summary and `run_end`; the run directory is complete.
    /// `memory` is what memory did, for the summary.
    pub(super) fn finish(mut self, ending: Ending, memory: Option<String>) -> Result<RunSummary, AgentError> {
        self.waker.abort();
        self.session.set_action_sink(None);
        let (outcome, reason) = ending.outcome();
        let steps = self.steps_taken();
        let config = self.models.actor.config();
        let records = self.history.all_records();
        let device = self.session.device_name();
        // A replay runs all steps as one snippet: give it the time all of them had.
        let replay_ms = self.session.limits().timeout_ms.saturating_mul(steps.max(1) as u64);
        let run_dir = self.recorder.dir();
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
        let mut summary = RunSummary {
            task: self.options.task.clone(),
            persona: self.persona.name.clone(),
            model: config.model.clone(),
            provider: config.provider(),
            device,
            ending,
            outcome,
            reason,
            steps,
            actions: records.iter().filter_map(|r| r.ran()).map(|r| r.actions.len() + r.more_actions).sum(),
            tokens,
            prompt_tokens_per_step: records.iter().map(|r| r.usage.prompt_tokens).collect(),
            strategy: self.options.strategy.as_str().to_string(),
            action_format: self.options.actions.as_str().to_string(),
            roles: self.roles.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
            memory,
            wall_ms: self.started.elapsed().as_secs_f64() * 1000.0,
            llm_ms: total(|t| t.llm_ms),
            device_ms: total(|t| t.device_ms),
            overhead_ms_per_step: if steps == 0 { 0.0 } else { total(|t| t.overhead_ms) / steps as f64 },
            run_dir: run_dir.clone(),
            replay,
            // Written last (it shows the summary); a failure replaces this below.
            report: Ok(run_dir.join("report.html")),
            flow: None,
        };
        let failed = (summary.outcome != Outcome::Success).then_some(summary.reason.as_str());
        let scripts = [
            ("script.rhai", export::script(&header, &records, failed)),
            ("script.selectors.rhai", export::selector_script(&header, &records, failed)),
        ];
        let value = serde_json::to_value(&summary).unwrap_or_default();
        if let Some(Err(e)) = self.recorder.finish(&scripts, &value)? {
            summary.report = Err(Arc::new(e));
        }
        if self.options.export_flow {
            summary.flow = Some(Arc::new(codeact_flows::maestro::export::write_flow_of(&run_dir, &summary.task)));
        }
        Ok(summary)
    }
}
