//! The lines of `events.jsonl`, typed: one variant per event, serialised as
//! `{"event": "<name>", ...fields}` (the writer adds `t_ms`). The names and fields
//! are the file format users parse; change them only with a note in the README.

use serde::Serialize;

use crate::sandbox::{Action, Completion, FailureKind, RunError};

/// Milliseconds to 0.01 ms: enough for timings, short in JSON.
pub(crate) fn round_ms(ms: f64) -> f64 {
    (ms * 100.0).round() / 100.0
}

/// One line of `events.jsonl`.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event<'a> {
    /// `codeact run` began.
    RunStart {
        task: &'a str,
        persona: &'a str,
        model: &'a str,
        provider: &'a str,
        device: &'a str,
        max_steps: usize,
        vision: bool,
        save: &'a str,
    },
    StepStart {
        step: usize,
    },
    /// What the step observed, and the files it kept.
    Observation {
        step: usize,
        ms: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        ui: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        screenshot: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        screenshot_error: Option<String>,
    },
    LlmRequest {
        step: usize,
        /// actor, planner or reflector.
        role: &'a str,
        model: &'a str,
        messages: usize,
        images: usize,
    },
    LlmReply {
        step: usize,
        role: &'a str,
        text: &'a str,
        prompt_tokens: u64,
        completion_tokens: u64,
        total_tokens: u64,
        ms: f64,
        attempts: u32,
    },
    NoCode {
        step: usize,
    },
    Code {
        step: usize,
        code: &'a str,
    },
    ParseError {
        step: usize,
        error: &'a RunError,
    },
    /// One tool call, with the files it captured.
    Action {
        step: usize,
        tool: &'a str,
        args: &'a [String],
        result: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        failure: Option<FailureKind>,
        started_ms: f64,
        duration_ms: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        target: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        effect: Option<&'a str>,
        /// Where the element it acted on was (its centre, in screen pixels).
        #[serde(skip_serializing_if = "Option::is_none")]
        point: Option<[i32; 2]>,
        #[serde(skip_serializing_if = "Option::is_none")]
        screenshot: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        ui: Option<String>,
    },
    Output {
        step: usize,
        output: &'a str,
        value: Option<&'a str>,
    },
    Error {
        step: usize,
        error: &'a RunError,
    },
    DeviceError {
        step: usize,
        message: String,
    },
    LlmError {
        step: usize,
        message: String,
    },
    StepEnd {
        step: usize,
        wall_ms: f64,
        llm_ms: f64,
        device_ms: f64,
        overhead_ms: f64,
        /// Calls past the actions a snippet keeps: counted, not recorded.
        #[serde(skip_serializing_if = "is_zero")]
        more_actions: usize,
    },
    Completion {
        step: usize,
        success: bool,
        reason: &'a str,
    },
    /// The completion gate held a `complete(true, ..)` that came right after acting
    /// unseen: the model gets one more step with the final screen.
    CompletionHeld {
        step: usize,
        reason: &'a str,
    },
    /// `stalled` steps in a row ended in an error or changed nothing on screen; the
    /// model was told to change approach (`ending` false) or the run ends (true).
    Stalled {
        step: usize,
        stalled: usize,
        ending: bool,
    },
    /// The planner's plan (`replan` 0 for the first, then 1, 2...), and why it was
    /// asked again.
    Plan {
        step: usize,
        replan: usize,
        items: &'a serde_json::Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        why: Option<&'a str>,
    },
    /// A sub-agent took over (the hierarchical strategy): its persona and task.
    Phase {
        step: usize,
        persona: &'a str,
        task: &'a str,
    },
    /// Memory held a successful run of this task: it is replayed step by step.
    Recall {
        experience: i64,
        steps: usize,
    },
    /// Step `step` of the run replayed step `of` (1-based) of the experience, with
    /// no LLM.
    Replayed {
        step: usize,
        of: usize,
    },
    /// Step `of` of the experience could not be replayed (its precondition failed,
    /// or it erred): the LLM does that step, then the replay resumes.
    Diverged {
        step: usize,
        of: usize,
        why: &'a str,
    },
    /// The reflector's critique after `step`.
    Reflection {
        step: usize,
        text: &'a str,
    },
    /// `codeact run` ended; the summary's fields follow.
    RunEnd(&'a serde_json::Value),
    /// `codeact exec` began a script.
    Start {
        script: &'a str,
        device: &'a str,
    },
    /// `codeact exec` finished a script.
    End {
        output: &'a str,
        error: Option<&'a RunError>,
        completion: Option<&'a Completion>,
        #[serde(skip_serializing_if = "is_zero")]
        more_actions: usize,
    },
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl<'a> Event<'a> {
    /// The event for `action` in `step`, naming the files its captures were written to.
    pub fn action(step: usize, action: &'a Action, screenshot: Option<String>, ui: Option<String>) -> Self {
        Event::Action {
            step,
            tool: &action.tool,
            args: &action.args,
            result: &action.result,
            failure: action.failure,
            started_ms: round_ms(action.started_ms),
            duration_ms: round_ms(action.duration_ms),
            target: action.capture.target.as_deref(),
            effect: action.capture.effect.as_deref(),
            point: action.capture.resolved.map(|r| [r.center.0, r.center.1]),
            screenshot,
            ui,
        }
    }
}
