//! One WebDriver session: its codeact [`Session`], the capabilities it answered
//! with, the elements it handed out, its timeouts, and its record. Every command
//! that acts runs as the line of Rhai a script would hold (`tap(#{id: "ok"});`),
//! through the session's tools — so the sensitive-action gate, the watchers, the
//! effect lines and the recording are the same as a script's, and the run folder's
//! `session.rhai` replays the session. Not the table of sessions (`sessions.rs`).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use codeact_engine::sandbox::RunResult;
use codeact_platform::device::{Observation, Platform};
use codeact_platform::ui::Bounds;
use codeact_runtime::session::{Screen, Session};
use codeact_tools::call::ToolCall;
use serde_json::Value;

use super::wire::{Failure, unknown_error};
use crate::served::Record;

/// The most element references a session keeps (the oldest go first).
const MOST_ELEMENTS: usize = 10_000;

/// What an element reference stands for.
#[derive(Debug, Clone)]
pub enum Held {
    /// An element of the tree: found again on the live screen by its signature.
    Tree { signature: u64, bounds: Bounds },
    /// A place only a picture or a model found.
    Place(Place),
}

/// A place a picture or a model found on the screen: acted on there (its box's
/// centre), and answered for as an element of its own kind.
#[derive(Debug, Clone)]
pub struct Place {
    pub rect: Bounds,
    /// Its tag name: `codeact.Image` (a picture) or `codeact.Described` (the model's).
    pub class: &'static str,
    /// How well the picture matched (0 to 1), when a picture found it.
    pub score: Option<f32>,
}

/// A WebDriver session.
pub struct WdSession {
    pub id: String,
    pub session: Session,
    pub capabilities: Value,
    pub platform: Platform,
    /// `implicit` of W3C's timeouts: how long a find waits for its element.
    pub implicit: Duration,
    /// How long the session may sit unused before it is deleted.
    pub idle: Duration,
    pub last_used: Instant,
    /// Whether the command in hand has noted its call in the record already (a
    /// command that runs code notes it with its step).
    pub noted: bool,
    elements: VecDeque<(String, Held)>,
    next_element: u64,
    next_secret: u64,
    /// The commands answered (the newest [`MOST_EVENTS`]) and the events a client
    /// logged, with their times: what `POST /appium/events` gives back.
    commands: VecDeque<Value>,
    events: std::collections::BTreeMap<String, VecDeque<f64>>,
    record: Option<Record>,
}

/// The most commands and events of each kind a session keeps for its clients.
const MOST_EVENTS: usize = 1000;

/// Milliseconds since the Unix epoch, as Appium's event times are.
fn epoch_ms() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_millis() as f64)
}

/// The record is finished before the session goes: the secrets the session was
/// lent, dropped with it, are still blotted out of the record's last writes.
impl Drop for WdSession {
    fn drop(&mut self) {
        drop(self.record.take());
    }
}

impl WdSession {
    pub fn new(id: String, session: Session, capabilities: Value, record: Option<Record>) -> Self {
        let mut session = session;
        let platform = session.platform();
        if let Some(record) = &record {
            session.set_action_sink(Some(record.action_sink()));
        }
        WdSession {
            id,
            session,
            capabilities,
            platform,
            implicit: Duration::ZERO,
            idle: Duration::from_secs(60),
            last_used: Instant::now(),
            noted: false,
            elements: VecDeque::new(),
            next_element: 0,
            next_secret: 0,
            commands: VecDeque::new(),
            events: Default::default(),
            record,
        }
    }

    /// A fresh look at the phone (the tree, no picture).
    pub fn look(&mut self) -> Result<Arc<Observation>, Failure> {
        self.session.observe(false).map_err(|e| unknown_error(codeact_base::error_text::full_message(&e)))
    }

    /// A reference for `held`.
    pub fn remember(&mut self, held: Held) -> String {
        self.next_element += 1;
        let id = format!("{:016x}-{}", self.id_seed(), self.next_element);
        if self.elements.len() >= MOST_ELEMENTS {
            self.elements.pop_front();
        }
        self.elements.push_back((id.clone(), held));
        id
    }

    /// Notes a command answered, from `started` until now, for the event history.
    pub fn log_command(&mut self, command: &str, started: Instant) {
        let now = epoch_ms();
        let began = now - started.elapsed().as_secs_f64() * 1000.0;
        if self.commands.len() >= MOST_EVENTS {
            self.commands.pop_front();
        }
        self.commands
            .push_back(serde_json::json!({"cmd": command, "startTime": began.round(), "endTime": now.round()}));
    }

    /// A client's own event (`POST /appium/log_event`: `vendor:event`), now.
    pub fn log_event(&mut self, name: &str) {
        let names = self.events.len();
        let times = match self.events.get_mut(name) {
            Some(times) => times,
            None if names >= MOST_EVENTS => return,
            None => self.events.entry(name.to_string()).or_default(),
        };
        if times.len() >= MOST_EVENTS {
            times.pop_front();
        }
        times.push_back(epoch_ms());
    }

    /// The event history (`POST /appium/events`), of the kinds named in `only`
    /// when given: `commands` (each with its start and end), and each logged
    /// event's times.
    pub fn event_history(&self, only: &[String]) -> Value {
        let wanted = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
        let mut out = serde_json::Map::new();
        if wanted("commands") {
            out.insert("commands".into(), Value::Array(self.commands.iter().cloned().collect()));
        }
        for (name, times) in &self.events {
            if wanted(name) {
                out.insert(name.clone(), serde_json::json!(times));
            }
        }
        Value::Object(out)
    }

    /// A fresh name for a value lent to the session (`webdriver_3`).
    pub fn secret_name(&mut self) -> String {
        self.next_secret += 1;
        format!("webdriver_{}", self.next_secret)
    }

    /// What a reference stands for.
    pub fn held(&self, id: &str) -> Option<&Held> {
        self.elements.iter().rev().find(|(i, _)| i == id).map(|(_, h)| h)
    }

    /// A short stable prefix of this session's element ids (its id's first bytes).
    fn id_seed(&self) -> u64 {
        u64::from_str_radix(&self.id.chars().take(16).collect::<String>(), 16).unwrap_or(0)
    }

    /// Runs `calls` in the session (`Session::call`) on `screen` as one recorded
    /// step, named `command`; its result.
    pub fn run(&mut self, command: &str, calls: &[ToolCall], screen: Screen<'_>) -> RunResult {
        let started = Instant::now();
        let begun = self.record.as_mut().map(|r| r.begin_step(&ToolCall::script(calls)));
        let result = self.session.call(calls, screen);
        self.finish(command, begun, started, &result);
        result
    }

    /// Runs `call` with its value as JSON text (`Session::call_json`), recorded.
    pub fn call_json(&mut self, command: &str, call: &ToolCall) -> RunResult {
        let started = Instant::now();
        let begun = self.record.as_mut().map(|r| r.begin_step(&call.expr()));
        let result = self.session.call_json(call);
        self.finish(command, begun, started, &result);
        result
    }

    /// Runs `code` with its value as JSON text (`execute_driver`), recorded.
    pub fn run_json(&mut self, command: &str, code: &str) -> RunResult {
        let started = Instant::now();
        let begun = self.record.as_mut().map(|r| r.begin_step(code));
        let result = self.session.eval_json(code);
        self.finish(command, begun, started, &result);
        result
    }

    fn finish(&mut self, command: &str, begun: Option<(usize, Instant)>, started: Instant, result: &RunResult) {
        self.noted = true;
        if let Some(record) = self.record.as_mut() {
            let step = begun.map(|b| b.0);
            if let Some(begun) = begun {
                record.end_step(begun, result);
            }
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            let error = result.error.as_ref().map(|e| e.to_string());
            record.call(command, step, ms, error.as_deref());
        }
    }

    /// Notes a command that ran no code.
    pub fn note(&mut self, command: &str, started: Instant, error: Option<&str>) {
        if let Some(record) = self.record.as_mut() {
            record.call(command, None, started.elapsed().as_secs_f64() * 1000.0, error);
        }
    }

    /// Keeps a file in the run folder (a screenshot a client took).
    pub fn keep_file(&self, name: &str, bytes: &[u8]) {
        if let Some(record) = &self.record {
            record.keep_file(name, bytes);
        }
    }

    /// Runs `calls` as a command that acts, on `screen` (an element's command: the
    /// screen its element was just resolved on, so the tools read it no second
    /// time): its failure is W3C's `unknown error` with the script's message (and
    /// the selector's words, when one did not hold).
    pub fn act(&mut self, command: &str, calls: &[ToolCall], screen: Screen<'_>) -> Result<RunResult, Failure> {
        let result = self.run(command, calls, screen);
        match &result.error {
            None => Ok(result),
            Some(e) => {
                let code = ToolCall::script(calls);
                Err(unknown_error(format!("{} (codeact ran: {})", e.message, super::wire::clipped(&code, 300))))
            }
        }
    }
}
