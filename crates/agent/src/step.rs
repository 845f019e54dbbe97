//! One step of a run: look (observe what the persona needs), ask (the model, with
//! the history of earlier [`StepRecord`]s), execute (the snippet it wrote, on the
//! very observation it saw), record (once: `step_end` with its timings, the record
//! in the history, the report). A replayed step (memory, `exec --heal`) runs
//! remembered code instead of asking, and is recorded the same way. Events are
//! written as the step goes, so a killed run loses at most the step in flight.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::checks::{self, HELD, StepEnd};
use super::loop_guard::Repetition;
use super::outcome::Ending;
use super::progress::{Progress, ProgressSink};
use super::prompt::Now;
use super::reflect;
use super::roles::Role;
use super::run::Run;
use codeact_base::error_text::full_message;
use codeact_engine::sandbox::RunResult;
use codeact_platform::device::Observation;
use codeact_record::trajectory::{Event, StepOutcome, StepRecord};
use codeact_runtime::llm::{Reply, ToolCall, Usage, extract};

use super::options::ActionFormat;

/// How the reason a replayed step diverged begins when its own code failed.
pub(super) const CODE_FAILED: &str = "its code failed";

/// How replaying one remembered step went.
pub(super) enum Replayed {
    /// It ran without an error (with the completion it made, if any).
    Done(Option<codeact_engine::sandbox::Completion>),
    /// It could not be replayed: why (a precondition, or its error).
    Diverged(String),
}

/// How much of a precondition a divergence message quotes.
const ANCHOR_SHOWN: usize = 300;

/// Whether the selector `anchor` (Rhai source, as recorded) matches on `seen`; an
/// anchor that is not a selector literal is refused (it is read as data, never run).
fn anchor_visible(anchor: &str, seen: &Observation) -> Result<bool, codeact_tools::select::SelectorError> {
    Ok(!codeact_tools::select::Selector::from_source(anchor)?.find_all(&seen.ui).is_empty())
}

/// Why a remembered step cannot run on `seen`: another app in front, or its
/// anchor not on screen (or not a selector).
fn precondition_fails(step: &codeact_record::memory::ReplayStep, seen: &Observation) -> Option<String> {
    if !step.app.is_empty() && seen.phone.package != step.app {
        return Some(format!("{} is in front, not {}", seen.phone.package, step.app));
    }
    let anchor = step.anchor.as_ref()?;
    let shown = codeact_base::clip::clip(anchor, ANCHOR_SHOWN);
    match anchor_visible(anchor, seen) {
        Ok(true) => None,
        Ok(false) => Some(format!("nothing on screen matches {shown}")),
        Err(e) => Some(format!("its precondition {shown} is refused: {e}")),
    }
}

impl Run<'_> {
    /// One step: look, ask, execute, record; then the checks decide whether the run
    /// goes on.
    pub(super) async fn step(&mut self, progress: &mut ProgressSink<'_>) -> StepEnd {
        let started = Instant::now();
        let number = self.recorder.begin_step();
        progress(Progress::Step { step: number, max: self.options.max_steps });
        let (seen, observed) = match self.look(number) {
            Ok(seen) => seen,
            Err(end) => return end,
        };
        let happened: Vec<String> =
            self.history.cleared.drain(..).map(|f| format!("a watcher cleared a blocker: {f}")).collect();
        let screen_text = seen.screen_text();
        let reply = match self.ask(number, &seen, &screen_text, &happened).await {
            Ok(reply) => reply,
            Err(end) => return end,
        };
        let extracted = extract::extract(&reply.text);
        let llm_ms = reply.elapsed.as_secs_f64() * 1000.0;
        let json = self.options.actions == ActionFormat::Json;
        let called = reply.calls.iter().map(ToolCall::shown).collect::<Vec<_>>().join("; ");
        let headline = if json && extracted.headline().is_empty() { called.as_str() } else { extracted.headline() };
        progress(Progress::Reply { step: number, headline, usage: reply.usage, llm_ms });
        let acts = if json { !reply.calls.is_empty() } else { extracted.code.is_some() };
        let split = if self.may_split && !acts { super::plan_text::subgoals(&reply.text) } else { None };
        let ran = match split {
            // A tree node split its goal: nothing to run, and nothing to ask again.
            Some(items) => {
                self.event(&Event::NoCode { step: number });
                let text = format!("split into: {}", codeact_record::trajectory::PlanItem::one_line(&items));
                progress(Progress::Note { step: number, text: &text });
                None
            }
            None if json => self.execute_calls(number, &reply.calls, &seen, progress),
            None => self.execute(number, extracted.code.as_deref(), &seen, progress),
        };
        // The record: the reply, the code and the timings from the step's events.
        let mut record = self.recorder.end_step(number, started, reply.elapsed, observed, ran);

        let repetition = self.checks.repetition(&record.outcome, record.code.as_deref(), &screen_text);
        record.repeated = repetition == Repetition::Repeated;
        let session = &mut *self.session;
        let verify = self.options.verify_completion;
        let held = self.checks.hold_completion(&self.recorder, &record.outcome, verify, || session.outcome_unchecked());
        if held {
            record.completion_held = true;
            record.notes.push(HELD.to_string());
        }
        let stall_end = self.checks.note_stall(&self.recorder, &mut record, self.options.error_threshold);
        let decided = checks::decide(&self.recorder, &record, repetition, held, self.interrupted());
        self.record_step(record, progress);
        if held {
            progress(Progress::Note { step: number, text: "completion held: the model sees the final screen first" });
        }
        // A completion ends the run whatever came before it; a stall ends it otherwise.
        let end = match (decided, stall_end) {
            (StepEnd::Stop(Ending::Completed(c)), _) => StepEnd::Stop(Ending::Completed(c)),
            (_, Some(stalled)) => StepEnd::Stop(stalled),
            (end, None) => end,
        };
        if matches!(end, StepEnd::Continue) {
            self.reflect_if_due(progress).await;
        }
        end
    }

    /// Replays remembered step `index` without the LLM, when its precondition holds
    /// on the screen as it is: the app in front, and its anchor visible. A step that
    /// runs is a step of the run (recorded like any other, with its events); one
    /// whose precondition fails takes no step.
    pub(super) fn replay_step(
        &mut self,
        step: &codeact_record::memory::ReplayStep,
        index: usize,
        headline: &str,
        progress: &mut ProgressSink<'_>,
    ) -> Result<Replayed, Ending> {
        let started = Instant::now();
        let seen = match tokio::task::block_in_place(|| self.session.observe(false)) {
            Ok(seen) => seen,
            Err(e) => return Err(Ending::DeviceLost(full_message(&e))),
        };
        let observed = started.elapsed();
        self.history.cleared.extend(seen.cleared.iter().cloned());
        if let Some(why) = precondition_fails(step, &seen) {
            return Ok(Replayed::Diverged(why));
        }
        let number = self.recorder.begin_step();
        progress(Progress::Step { step: number, max: self.options.max_steps });
        self.recorder.keep_observation(number, &seen, observed);
        progress(Progress::Reply { step: number, headline, usage: Usage::default(), llm_ms: 0.0 });
        let ran = self.execute(number, Some(&step.code), &seen, progress);
        self.event(&Event::Replayed { step: number, of: index + 1 });
        let mut record = self.recorder.end_step(number, started, Duration::ZERO, observed, ran);
        // No model wrote this step: its thought is the intent memory kept.
        record.thought = step.intent.clone();
        let result = match &record.outcome {
            StepOutcome::Ran(r) => match &r.error {
                Some(e) => Replayed::Diverged(format!("{CODE_FAILED}: {}", e.message)),
                None => Replayed::Done(r.completion.clone()),
            },
            StepOutcome::NotParsed(e) => Replayed::Diverged(format!("its code does not parse: {}", e.message)),
            StepOutcome::NoCode => Replayed::Diverged("it has no code".into()),
        };
        // A replayed step that erred stays in the history: the model sees what it did.
        self.record_step(record, progress);
        Ok(result)
    }

    /// Runs `code` that no model wrote and that needs no look at the screen (the
    /// tree's fire-and-forget sub-goals) as one step of the run, on the phone as it
    /// is: no observation, no model call. Its error, if any.
    pub(super) fn fire(
        &mut self,
        code: &str,
        thought: &str,
        progress: &mut ProgressSink<'_>,
    ) -> Option<codeact_engine::sandbox::RunError> {
        let started = Instant::now();
        let number = self.recorder.begin_step();
        progress(Progress::Step { step: number, max: self.options.max_steps });
        progress(Progress::Reply { step: number, headline: thought, usage: Usage::default(), llm_ms: 0.0 });
        self.event(&Event::Code { step: number, code: code.into() });
        let result = tokio::task::block_in_place(|| self.session.eval(code));
        if let Some(error) = &result.error {
            self.event(&Event::Error { step: number, error: std::borrow::Cow::Borrowed(error) });
        }
        let error = result.error.clone();
        let mut record = self.recorder.end_step(number, started, Duration::ZERO, Duration::ZERO, Some(result));
        record.thought = thought.to_string();
        self.record_step(record, progress);
        error
    }

    /// Files a finished step, asked or replayed: shown as it ran, kept in the
    /// model's history, and in the report (rewritten so a killed run has one).
    fn record_step(&mut self, mut record: StepRecord, progress: &mut ProgressSink<'_>) {
        record.node.clone_from(&self.node);
        if record.ran().is_some() {
            progress(Progress::Ran { step: record.number, record: &record });
        }
        self.history.records.push(record);
        self.recorder.update_report();
    }

    /// Observes the phone for step `number` (with a screenshot when the model sees
    /// one or the run keeps one), and how long that took.
    fn look(&mut self, number: usize) -> Result<(Arc<Observation>, Duration), StepEnd> {
        let t = Instant::now();
        let screenshot = self.options.vision || self.options.save == super::options::SaveMode::Step;
        let seen = tokio::task::block_in_place(|| self.session.observe(screenshot));
        let took = t.elapsed();
        match seen {
            Ok(seen) => {
                self.history.cleared.extend(seen.cleared.iter().cloned());
                self.recorder.keep_observation(number, &seen, took);
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
        let reflections = &self.history.reflections;
        let shown = reflections.len().saturating_sub(reflect::SHOWN);
        let widget_hints = self.lent.widgets.for_screen(&seen.phone.package, &seen.phone.activity, screen_text);
        let sparse = crate::prompt::sparse_tree_hint(&seen.ui, || self.session.locating_ways());
        let now = Now {
            step: number,
            screen_text,
            image,
            memory: &memory,
            happened,
            reflections: &reflections[shown..],
            app_card: self.lent.cards.get(&seen.phone.package).map(String::as_str),
            widget_hints: &widget_hints,
            sparse_tree: sparse.as_deref(),
        };
        let messages = self.history.prompt.messages(&self.history.records, now);
        self.ask_model(Role::Actor, &messages).await
    }

    /// Runs the reply's code on the observation the model saw, and gives its result;
    /// no code, or code that does not parse, runs nothing (and its event says so).
    fn execute(
        &mut self,
        number: usize,
        code: Option<&str>,
        seen: &Arc<Observation>,
        progress: &mut ProgressSink<'_>,
    ) -> Option<RunResult> {
        let Some(code) = code else {
            self.event(&Event::NoCode { step: number });
            progress(Progress::Note { step: number, text: "no code in the reply; asked again" });
            return None;
        };
        self.event(&Event::Code { step: number, code: code.into() });
        // Parsed and run in one hand-over to the engine's process.
        let result = match tokio::task::block_in_place(|| self.session.run_source(code, seen)) {
            Ok(result) => result,
            Err(error) => {
                self.event(&Event::ParseError { step: number, error: std::borrow::Cow::Borrowed(&error) });
                progress(Progress::Note { step: number, text: "the code does not parse; nothing ran" });
                return None;
            }
        };
        if !result.output.is_empty() || result.value.is_some() {
            self.event(&Event::Output {
                step: number,
                output: result.output.as_str().into(),
                value: result.value.as_deref().map(Into::into),
            });
        }
        if let Some(error) = &result.error {
            self.event(&Event::Error { step: number, error: std::borrow::Cow::Borrowed(error) });
        }
        Some(result)
    }

    /// The reflector's turn after a step the run goes on from (a strategy calls it
    /// after a step that ended a plan item), when one is due: its critique joins the
    /// actor's prompt. A reflector that fails is noted and skipped: the run goes on.
    pub(super) async fn reflect_if_due(&mut self, progress: &mut ProgressSink<'_>) {
        let history = &mut self.history;
        let Some(record) = history.records.last() else { return };
        history.actions_since_reflection += record.ran().map_or(0, |r| r.actions.len() + r.more_actions);
        if !reflect::due(self.options.reflect_every, history.actions_since_reflection, record) {
            return;
        }
        history.actions_since_reflection = 0;
        let number = record.number;
        let messages = reflect::messages(&history.prompt.task, history.prompt.focus.as_deref(), &history.records);
        let Ok(reply) = self.ask_model(Role::Reflector, &messages).await else { return };
        let text = reflect::trimmed(&reply.text);
        if text.is_empty() {
            return;
        }
        self.event(&Event::Reflection { step: number, text: text.as_str().into() });
        progress(Progress::Note { step: number, text: &format!("reflection: {text}") });
        self.history.reflections.push(text);
    }
}
