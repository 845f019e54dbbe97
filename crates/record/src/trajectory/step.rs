//! One agent step, recorded once: what the model answered, the code it wrote, what
//! became of that code, and how long each part took. It is built from the step's
//! own events as they are written ([`StepRecord::take`]), plus the snippet's result
//! and the screen it ran on, which the events only name; the prompt's history and
//! the exported replay scripts are derived from it.

use super::event::Event;
use codeact_engine::sandbox::{Action, RunError, RunResult};
use codeact_runtime::llm::Usage;
use codeact_tools::{Access, Replay, access_of, replay_of};

/// What became of the code a step's reply held.
#[derive(Debug, Clone)]
pub enum StepOutcome {
    /// The reply held no code: nothing ran.
    NoCode,
    /// The code does not parse: nothing ran.
    NotParsed(RunError),
    /// The code ran.
    Ran(RunResult),
}

/// Where a step's time went.
#[derive(Debug, Clone, Copy, Default)]
pub struct StepTiming {
    pub wall_ms: f64,
    pub llm_ms: f64,
    /// Observing plus acting.
    pub device_ms: f64,
    /// The runtime's own cost: wall minus LLM minus device.
    pub overhead_ms: f64,
}

/// One step of a run.
#[derive(Debug, Clone)]
pub struct StepRecord {
    pub number: usize,
    /// The model's whole reply.
    pub reply: String,
    /// The reply without its code.
    pub thought: String,
    pub code: Option<String>,
    pub outcome: StepOutcome,
    pub usage: Usage,
    pub timing: StepTiming,
    /// The same code ran on an unchanged screen in the step before: the model is
    /// told so.
    pub repeated: bool,
    /// What else the model is told about this step: the completion gate, the error
    /// threshold.
    pub notes: Vec<String>,
    /// The run went on past the step's `complete(..)` (the completion gate held it,
    /// or it ended a plan item or a sub-agent), so a replay must too.
    pub completion_held: bool,
    /// The app and activity in front when the step's screen was observed (the
    /// precondition a replay checks).
    pub seen: Option<(String, String)>,
    /// The `--strategy tree` node the step worked for (`1.2 Open Settings`).
    pub node: Option<String>,
    /// The functions the reply called (`--actions json`), each with what came of it.
    pub calls: Vec<codeact_runtime::llm::ToolCall>,
}

impl StepRecord {
    /// Step `number` as it begins: nothing asked, nothing run yet.
    pub fn new(number: usize) -> Self {
        Self {
            number,
            reply: String::new(),
            thought: String::new(),
            code: None,
            outcome: StepOutcome::NoCode,
            usage: Usage::default(),
            timing: StepTiming::default(),
            repeated: false,
            notes: Vec::new(),
            completion_held: false,
            seen: None,
            node: None,
            calls: Vec::new(),
        }
    }

    /// Folds one of the step's events into the record: the actor's reply (its
    /// thought and tokens), the code it ran, code that did not parse, where the
    /// time went. Other events (a planner's reply, actions, output) leave it as it
    /// is: the snippet's own result comes whole when it ends.
    pub fn take(&mut self, event: &Event) {
        match event {
            Event::LlmReply { role, text, prompt_tokens, completion_tokens, total_tokens, calls, .. }
                if role == "actor" =>
            {
                self.reply = text.to_string();
                self.calls.clone_from(calls);
                self.thought = codeact_runtime::llm::extract::extract(text).thought;
                self.usage = Usage {
                    prompt_tokens: *prompt_tokens,
                    completion_tokens: *completion_tokens,
                    total_tokens: *total_tokens,
                };
            }
            Event::Code { code, .. } => self.code = Some(code.to_string()),
            Event::ToolResult { id, text, .. } => {
                if let Some(call) = self.calls.iter_mut().find(|c| c.id == *id) {
                    call.result = text.to_string();
                }
            }
            Event::NoCode { .. } => self.outcome = StepOutcome::NoCode,
            Event::ParseError { error, .. } => self.outcome = StepOutcome::NotParsed(error.clone().into_owned()),
            Event::StepEnd { wall_ms, llm_ms, device_ms, overhead_ms, .. } => {
                self.timing =
                    StepTiming { wall_ms: *wall_ms, llm_ms: *llm_ms, device_ms: *device_ms, overhead_ms: *overhead_ms };
            }
            _ => {}
        }
    }

    /// The snippet's result, when the code ran.
    pub fn ran(&self) -> Option<&RunResult> {
        match &self.outcome {
            StepOutcome::Ran(result) => Some(result),
            _ => None,
        }
    }

    /// Whether the step went nowhere: it did not run, ended in an error, or acted
    /// without any visible change. `None` for a step that only read (neither way).
    pub fn stalled(&self) -> Option<bool> {
        let Some(result) = self.ran() else { return Some(true) };
        if result.error.is_some() {
            return Some(true);
        }
        let effects: Vec<&str> =
            result.actions.iter().filter(|a| !a.is_watcher()).filter_map(|a| a.capture.effect.as_deref()).collect();
        if effects.is_empty() {
            return None;
        }
        Some(effects.iter().all(|e| e.ends_with("no visible change")))
    }

    /// The actions the step's code made (none when it did not run).
    pub fn actions(&self) -> &[Action] {
        self.ran().map_or(&[], |r| r.actions.as_slice())
    }

    /// The index taps and long presses, in order, with the selector of the element
    /// each hit: (tool, index, selector).
    pub fn index_targets(&self) -> Vec<(&str, i64, Option<&str>)> {
        self.actions()
            .iter()
            .filter(|a| matches!(replay_of(&a.tool, a.args.len()), Some(Replay::IndexAsSelector(_))))
            .filter_map(|a| Some((a.tool.as_str(), a.args.first()?.parse().ok()?, a.capture.target.as_deref())))
            .collect()
    }

    /// The calls whose selector could ask the locator model (an `ai` key), in order,
    /// with what a replay passes instead: (tool, stand-in), the stand-in `None`
    /// when nothing could (the model said it was not there, the call failed).
    pub fn located_targets(&self) -> Vec<(&str, Option<&str>)> {
        self.actions()
            .iter()
            .filter(|a| a.args.first().is_some_and(|s| s.starts_with("#{") && s.contains("\"ai\":")))
            .map(|a| (a.tool.as_str(), a.capture.located.as_ref().and_then(|l| l.replay.as_deref())))
            .collect()
    }

    /// What a failed step did to the device (or the memory) before it failed: the
    /// calls a replay must make again.
    pub fn done_before_failing(&self) -> Vec<&Action> {
        match self.ran() {
            Some(r) if r.error.is_some() => {
                r.actions.iter().filter(|a| a.succeeded() && access_of(&a.tool) == Some(Access::Acts)).collect()
            }
            _ => Vec::new(),
        }
    }
}

impl StepRecord {
    /// Step 1: `code` ran and did `actions`, on the (package, activity) it saw (the
    /// modes' tests build their records from these).
    #[doc(hidden)]
    pub fn ran_for_test(code: &str, actions: Vec<codeact_engine::sandbox::Action>, seen: Option<(&str, &str)>) -> Self {
        StepRecord {
            number: 1,
            reply: String::new(),
            thought: String::new(),
            code: Some(code.into()),
            outcome: StepOutcome::Ran(codeact_engine::sandbox::RunResult { actions, ..Default::default() }),
            usage: Default::default(),
            timing: StepTiming::default(),
            repeated: false,
            notes: Vec::new(),
            completion_held: false,
            seen: seen.map(|(p, a)| (p.to_string(), a.to_string())),
            node: None,
            calls: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_is_folded_from_its_events_and_other_roles_leave_it_alone() {
        let mut record = StepRecord::new(2);
        let reply = |role: &'static str, text: &'static str| Event::LlmReply {
            step: 2,
            role: role.into(),
            text: text.into(),
            prompt_tokens: 100,
            completion_tokens: 9,
            total_tokens: 109,
            ms: 5.0,
            attempts: 1,
            calls: Vec::new(),
        };
        record.take(&reply("actor", "Thought: open it.\n```rhai\ntap(3);\n```"));
        record.take(&reply("planner", "a plan"));
        record.take(&Event::Code { step: 2, code: "tap(3);".into() });
        let error = RunError::plain("unexpected end", codeact_engine::sandbox::ErrorKind::Syntax);
        record.take(&Event::ParseError { step: 2, error: std::borrow::Cow::Borrowed(&error) });
        record.take(&Event::StepEnd {
            step: 2,
            wall_ms: 9.0,
            llm_ms: 5.0,
            device_ms: 3.0,
            overhead_ms: 1.0,
            more_actions: 0,
        });
        assert_eq!(record.reply, "Thought: open it.\n```rhai\ntap(3);\n```");
        assert_eq!(record.thought.trim(), "Thought: open it.");
        assert_eq!(record.usage.total_tokens, 109);
        assert_eq!(record.code.as_deref(), Some("tap(3);"));
        assert!(matches!(&record.outcome, StepOutcome::NotParsed(e) if e.message == "unexpected end"));
        assert_eq!(record.timing.wall_ms, 9.0);
    }
}
