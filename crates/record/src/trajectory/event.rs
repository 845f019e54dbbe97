//! The lines of `events.jsonl`, typed: one variant per event, serialised as
//! `{"event": "<name>", ...fields}` (the writer adds `t_ms`). The names and fields
//! are the file format users parse; change them only with a note in the README.
//!
//! One type both ways: a run borrows what it writes (`Event<'a>`), a reader gets
//! the owned form back (`Event<'static>`, see [`read_events`]). Fields a writer
//! leaves out (zeros, and a role, which runs before roles lack) read as their
//! defaults; an event this version does not know reads as [`Event::Unknown`].
//!
//! [`read_events`]: super::read_events

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use codeact_engine::sandbox::{Action, Completion, FailureKind, Located, RunError, Screen, Toggled};

/// Milliseconds to 0.01 ms: enough for timings, short in JSON.
pub fn round_ms(ms: f64) -> f64 {
    (ms * 100.0).round() / 100.0
}

/// One item of a plan (the planner's unit; a `plan` event lists them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanItem {
    pub goal: String,
    /// The screen or app expected when the item is done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<String>,
    /// The app the item happens in (the hierarchical strategy's unit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// Variables the item must leave for later items (a phone number, an address).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub carry: Vec<String>,
    /// A tree sub-goal done by one call without asking the model (`"do":
    /// "open_app(\"Settings\")"`): opening an app or a link, going home, a wait.
    #[serde(default, rename = "do", skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
}

impl PlanItem {
    /// A plan's items on one line, as progress and reports show them:
    /// `1. open Settings (com.android.settings); 2. ...`.
    pub fn one_line(items: &[PlanItem]) -> String {
        let shown: Vec<String> = items
            .iter()
            .enumerate()
            .map(|(n, item)| match &item.app {
                Some(app) => format!("{}. {} ({app})", n + 1, item.goal),
                None => format!("{}. {}", n + 1, item.goal),
            })
            .collect();
        shown.join("; ")
    }
}

/// One line of `events.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event<'a> {
    /// `codeact run` began.
    RunStart {
        task: Cow<'a, str>,
        persona: Cow<'a, str>,
        model: Cow<'a, str>,
        provider: Cow<'a, str>,
        device: Cow<'a, str>,
        max_steps: usize,
        vision: bool,
        save: Cow<'a, str>,
        /// How the model acts: `code` or `json` (function calls); absent in runs
        /// from before there was a choice (code).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        action_format: Option<Cow<'a, str>>,
    },
    StepStart {
        step: usize,
    },
    /// What the step observed, and the files it kept.
    Observation {
        step: usize,
        ms: f64,
        /// How the tree was read (`dump`, `u2`, `wda`, `uitest`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        via: Option<codeact_platform::device::ObservedVia>,
        /// Why it is not from the observer asked for.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fallback: Option<Cow<'a, str>>,
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
        #[serde(default = "actor")]
        role: Cow<'a, str>,
        model: Cow<'a, str>,
        messages: usize,
        images: usize,
    },
    LlmReply {
        step: usize,
        #[serde(default = "actor")]
        role: Cow<'a, str>,
        text: Cow<'a, str>,
        prompt_tokens: u64,
        completion_tokens: u64,
        total_tokens: u64,
        ms: f64,
        attempts: u32,
        /// The functions it called (`--actions json`), as it wrote them.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        calls: Vec<codeact_runtime::llm::ToolCall>,
    },
    /// What came of one function call (`--actions json`), as the model is told.
    ToolResult {
        step: usize,
        id: Cow<'a, str>,
        text: Cow<'a, str>,
    },
    NoCode {
        step: usize,
    },
    Code {
        step: usize,
        code: Cow<'a, str>,
    },
    ParseError {
        step: usize,
        error: Cow<'a, RunError>,
    },
    /// One tool call, with the files it captured.
    Action {
        step: usize,
        tool: Cow<'a, str>,
        args: Cow<'a, [String]>,
        result: Cow<'a, str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        failure: Option<FailureKind>,
        started_ms: f64,
        duration_ms: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        target: Option<Cow<'a, str>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        effect: Option<Cow<'a, str>>,
        /// The toggles it flipped, with their new state.
        #[serde(default, skip_serializing_if = "<[_]>::is_empty")]
        toggled: Cow<'a, [Toggled]>,
        /// The app and activity it left in front.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        screen: Option<Cow<'a, Screen>>,
        /// Why the look after it is not from the observer asked for (`--observe`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fallback: Option<Cow<'a, str>>,
        /// Where the element it acted on was (its centre, in screen pixels).
        #[serde(skip_serializing_if = "Option::is_none")]
        point: Option<[i32; 2]>,
        /// Which way of a locating chain found it (tree, picture, model) and what a
        /// replay passes instead.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        located: Option<Cow<'a, Located>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        screenshot: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        ui: Option<String>,
    },
    Output {
        step: usize,
        output: Cow<'a, str>,
        value: Option<Cow<'a, str>>,
    },
    Error {
        step: usize,
        error: Cow<'a, RunError>,
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
        #[serde(default, skip_serializing_if = "is_zero")]
        more_actions: usize,
    },
    Completion {
        step: usize,
        success: bool,
        reason: Cow<'a, str>,
    },
    /// The completion gate held a `complete(true, ..)` that came right after acting
    /// unseen: the model gets one more step with the final screen.
    CompletionHeld {
        step: usize,
        reason: Cow<'a, str>,
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
        items: Cow<'a, [PlanItem]>,
        #[serde(skip_serializing_if = "Option::is_none")]
        why: Option<Cow<'a, str>>,
    },
    /// A node of the tree strategy at `path` (`1.2.1`): its goal, and what became
    /// of it (`start`, `branch` with its sub-goals in `detail`, `done`, `failed`
    /// with why, `replayed` from memory).
    Node {
        step: usize,
        path: Cow<'a, str>,
        goal: Cow<'a, str>,
        state: Cow<'a, str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        detail: Option<Cow<'a, str>>,
    },
    /// A sub-agent took over (the hierarchical strategy): its persona and task.
    Phase {
        step: usize,
        persona: Cow<'a, str>,
        task: Cow<'a, str>,
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
        why: Cow<'a, str>,
    },
    /// The reflector's critique after `step`.
    Reflection {
        step: usize,
        text: Cow<'a, str>,
    },
    /// `codeact run` ended; the summary's fields follow.
    RunEnd(Cow<'a, serde_json::Value>),
    /// `codeact exec` began a script.
    Start {
        script: Cow<'a, str>,
        device: Cow<'a, str>,
    },
    /// `codeact exec` finished a script.
    End {
        output: Cow<'a, str>,
        error: Option<Cow<'a, RunError>>,
        completion: Option<Cow<'a, Completion>>,
        #[serde(default, skip_serializing_if = "is_zero")]
        more_actions: usize,
    },
    /// `codeact mcp` answered a tool call: the tool, the step its code ran as (for
    /// the tools that run code), how long it took, and the error it answered with.
    McpCall {
        tool: Cow<'a, str>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        step: Option<usize>,
        ms: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<Cow<'a, str>>,
    },
    /// `codeact serve --webdriver` answered a command (`POST /element`): the command,
    /// the step its code ran as (for the commands that act), how long it took, and
    /// the error it answered with.
    WebdriverCall {
        command: Cow<'a, str>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        step: Option<usize>,
        ms: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<Cow<'a, str>>,
    },
    /// `codeact studio` ran an act or a console snippet for the person at the page:
    /// what it was (`tap`, `assert`, `console`...), the step its code ran as, how
    /// long it took, and its error.
    StudioAct {
        act: Cow<'a, str>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        step: Option<usize>,
        ms: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<Cow<'a, str>>,
    },
    /// A served session began: an MCP client's (`codeact mcp`) or, when `door`
    /// says `webdriver` or `studio`, a WebDriver session's or the studio's; the
    /// client's name and the device a call that names none goes to. Its calls are
    /// steps.
    SessionStart {
        client: Cow<'a, str>,
        device: Cow<'a, str>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        door: Option<Cow<'a, str>>,
    },
    /// An exploration began (`codeact explore`): the app, the strategy, the action
    /// budget, the activities its APK declares, the user persona. Its actions are steps.
    ExploreStart {
        app: Cow<'a, str>,
        strategy: Cow<'a, str>,
        budget: Cow<'a, str>,
        declared: usize,
        user: Cow<'a, str>,
    },
    /// What a step is for, in words (an exploration's action: "tap Wi-Fi").
    Note {
        step: usize,
        text: Cow<'a, str>,
    },
    /// A screen the exploration had not seen, after step `step`, and its picture.
    #[serde(rename = "screen")]
    NewScreen {
        step: usize,
        screen: Cow<'a, str>,
        activity: Cow<'a, str>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        screenshot: Option<String>,
    },
    /// An activity reached for the first time: `reached` of `declared` so far.
    Activity {
        step: usize,
        activity: Cow<'a, str>,
        reached: usize,
        declared: usize,
    },
    /// The app was started clean again, and why.
    Restart {
        step: usize,
        reason: Cow<'a, str>,
    },
    /// A finding (a crash, a hang, a broken screen) and its reproduction script.
    Finding {
        step: usize,
        kind: Cow<'a, str>,
        title: Cow<'a, str>,
        script: Cow<'a, str>,
    },
    /// The exploration's planner set task `task` (`--strategy llm`).
    Planned {
        step: usize,
        task: usize,
        goal: Cow<'a, str>,
    },
    /// The agent finished task `task`: its run folder (relative), its steps, and
    /// what the observer saw it change.
    Task {
        step: usize,
        task: usize,
        goal: Cow<'a, str>,
        success: bool,
        steps: usize,
        run: Cow<'a, str>,
        #[serde(default, skip_serializing_if = "<[_]>::is_empty")]
        effects: Cow<'a, [String]>,
    },
    /// An event this version does not know (written by a later one): read so that
    /// the rest of the run still reads; never written.
    #[serde(other, skip_serializing)]
    Unknown,
}

/// The role of an LLM event from before roles were recorded: there was only the actor.
fn actor() -> Cow<'static, str> {
    Cow::Borrowed("actor")
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl<'a> Event<'a> {
    /// The event for `action` in `step`, naming the files its captures were written to.
    pub fn action(step: usize, action: &'a Action, screenshot: Option<String>, ui: Option<String>) -> Self {
        Event::Action {
            step,
            tool: Cow::Borrowed(&action.tool),
            args: Cow::Borrowed(&action.args),
            result: Cow::Borrowed(&action.result),
            failure: action.failure,
            started_ms: round_ms(action.started_ms),
            duration_ms: round_ms(action.duration_ms),
            target: action.capture.target.as_deref().map(Cow::Borrowed),
            effect: action.capture.effect.as_deref().map(Cow::Borrowed),
            toggled: Cow::Borrowed(&action.capture.toggled),
            screen: action.capture.screen.as_ref().map(Cow::Borrowed),
            fallback: action.capture.fallback.as_deref().map(Cow::Borrowed),
            point: action.capture.resolved.map(|r| [r.center.0, r.center.1]),
            located: action.capture.located.as_ref().map(Cow::Borrowed),
            screenshot,
            ui,
        }
    }
}
