//! One MCP client's side of the server, blocking: its sessions (one per device it
//! named, opened on first use, so variables and functions persist from call to
//! call), the device a call that names none goes to, its run directory, and who
//! answers a sensitive action's confirmation or `ask_user` (the client through
//! elicitation, when it can; else the server's answers; else nobody, and the
//! action is refused). Each method is one tool's work and returns the text a model
//! reads. Not the protocol (`server.rs`).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use codeact_engine::isolation::IsolationError;
use codeact_engine::sandbox::RunResult;
use codeact_platform::device::DeviceError;
use codeact_record::trajectory::TrajectoryError;
use codeact_runtime::session::{OpenError, Screen, Session, SessionError};
use codeact_tools::call::ToolCall;
use codeact_tools::human::{Human, HumanRequest};

use super::options::McpOptions;
use super::reply::{self, MAX_PICTURE_SIDE, PictureError};
use crate::served::{Door, Record, SESSION_SCRIPT};

/// Why a call could not do its work (the client reads it as the tool's error).
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    #[error("could not open the device {device}")]
    Open {
        device: String,
        #[source]
        source: Box<DeviceError>,
    },
    #[error("could not start a session on {device}")]
    Session {
        device: String,
        #[source]
        source: Box<SessionError>,
    },
    #[error(transparent)]
    Device(Box<DeviceError>),
    #[error("the session's engine failed")]
    Engine(#[source] Box<IsolationError>),
    #[error(transparent)]
    Picture(#[from] PictureError),
    #[error("nothing has run in this session yet: call run_script first")]
    NothingRan,
    #[error(
        "no model: start codeact mcp with --model NAME and an API key in $OPENAI_API_KEY, or --base-url URL for a local server (Ollama: --base-url http://localhost:11434/v1 --model qwen2.5:7b)"
    )]
    NoModel,
    #[error("the agent could not run")]
    Agent(#[source] Box<codeact_agent::AgentError>),
    #[error("the task suite could not run")]
    Eval(#[source] Box<codeact_measure::eval::suite::SuiteError>),
    #[error("no such templates")]
    Tasks(#[source] Box<codeact_measure::eval::TaskError>),
    #[error("could not write the run directory in {out}")]
    Record {
        out: PathBuf,
        #[source]
        source: Box<TrajectoryError>,
    },
}

impl From<DeviceError> for CallError {
    fn from(e: DeviceError) -> Self {
        CallError::Device(Box::new(e))
    }
}

/// A tool's answer: text, and a PNG when one was asked for.
#[derive(Debug, Default)]
pub struct Answer {
    pub text: String,
    pub picture: Option<Vec<u8>>,
    /// The work failed (a script error, a failed completion): the client is told so.
    pub failed: bool,
}

/// The name `--device` and the tools take for the device a call names (`""`: the
/// server's default).
type DeviceName = String;

pub struct Client {
    pub(super) options: Arc<McpOptions>,
    /// Who the client said it is (for its run directory's name).
    name: String,
    sessions: Vec<(DeviceName, Session)>,
    /// Where a call that names no device goes (set by start_sim).
    current: Option<DeviceName>,
    record: Option<Record>,
    /// Asks the client in hand (elicitation), when it can be asked.
    asker: Arc<Mutex<Option<Human>>>,
    /// Cancelled when the client cancels the call in hand: its script stops.
    stop: Option<tokio_util::sync::CancellationToken>,
}

impl Client {
    pub fn new(options: Arc<McpOptions>) -> Self {
        Self {
            options,
            name: "client".into(),
            sessions: Vec::new(),
            current: None,
            record: None,
            asker: Arc::new(Mutex::new(None)),
            stop: None,
        }
    }

    /// Names the client (its `clientInfo.name`) before its first call.
    pub fn set_name(&mut self, name: &str) {
        let kept: String = name.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').take(40).collect();
        if !kept.is_empty() {
            self.name = kept;
        }
    }

    /// Who answers this call's confirmations and questions (`None`: the client
    /// cannot be asked).
    pub fn set_asker(&self, asker: Option<Human>) {
        *codeact_record::trajectory::lock(&self.asker) = asker;
    }

    /// What stops the call in hand's script when it is cancelled.
    pub fn set_stop(&mut self, stop: Option<tokio_util::sync::CancellationToken>) {
        self.stop = stop;
    }

    /// The call in hand's cancellation (a token nobody cancels outside a call).
    pub(super) fn stop_token(&self) -> tokio_util::sync::CancellationToken {
        self.stop.clone().unwrap_or_default()
    }

    /// The run directory, made on the first call.
    pub fn run_dir(&mut self) -> Result<PathBuf, CallError> {
        Ok(self.record()?.dir())
    }

    /// The sink that files a session's actions in the run directory.
    pub(super) fn record_sink(&mut self) -> Result<codeact_engine::sandbox::ActionSink, CallError> {
        Ok(self.record()?.action_sink())
    }

    fn record(&mut self) -> Result<&mut Record, CallError> {
        if self.record.is_none() {
            let out = &self.options.out;
            let dir = codeact_record::trajectory::new_run_dir(out, &format!("mcp {}", self.name));
            let device = self.options.settings.device.as_deref().unwrap_or("the default device");
            let made = Record::create(Door::Mcp, &dir, &self.name, device, self.options.traces.as_deref())
                .map_err(|source| CallError::Record { out: out.clone(), source: Box::new(source) })?;
            self.record = Some(made);
        }
        self.record.as_mut().ok_or(CallError::NothingRan)
    }

    /// Notes a call in the run directory.
    pub fn note_call(&mut self, tool: &str, step: Option<usize>, started: Instant, error: Option<&str>) {
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        if let Ok(record) = self.record() {
            record.call(tool, step, ms, error);
        }
    }

    fn device_name(&self, device: Option<&str>) -> DeviceName {
        match device.map(str::trim).filter(|d| !d.is_empty()) {
            Some(d) => d.to_string(),
            None => self.current.clone().unwrap_or_default(),
        }
    }

    /// The session on `device` (the default one when `None`), opened on first use.
    pub(super) fn session(&mut self, device: Option<&str>) -> Result<&mut Session, CallError> {
        let name = self.device_name(device);
        if let Some(i) = self.sessions.iter().position(|(n, _)| *n == name) {
            return Ok(&mut self.sessions[i].1);
        }
        let session = self.open(&name)?;
        self.sessions.push((name, session));
        let last = self.sessions.len() - 1;
        Ok(&mut self.sessions[last].1)
    }

    /// A new session on the device `name` names (`""`: the server's default).
    fn open(&mut self, name: &str) -> Result<Session, CallError> {
        let mut settings = self.options.settings.clone();
        if !name.is_empty() {
            settings.device = Some(name.to_string());
        }
        let shown = settings.device.clone().unwrap_or_else(|| "the default device".into());
        let mut session = Session::open(&settings).map_err(|e| match e {
            OpenError::Device(source) => CallError::Open { device: shown.clone(), source: Box::new(source) },
            OpenError::Session(source) => CallError::Session { device: shown.clone(), source: Box::new(source) },
        })?;
        // The client first (elicitation), else the server's answers file.
        let (asker, answers) = (self.asker.clone(), settings.helpers.person.clone());
        let human: Human = Arc::new(move |request: &HumanRequest| {
            let client = codeact_record::trajectory::lock(&asker).clone();
            match client {
                Some(ask) => ask(request),
                None => answers.as_ref().and_then(|a| a(request)),
            }
        });
        session.set_human(Some(human));
        let sink = self.record()?.action_sink();
        session.set_action_sink(Some(sink));
        Ok(session)
    }

    /// `run_script`: `code` in the session on `device`; the answer has what it
    /// printed and did, its error with line and column, the screen after it, and a
    /// screenshot when `picture` gives its largest side.
    pub fn run_script(&mut self, code: &str, device: Option<&str>, picture: Option<u32>) -> Result<Answer, CallError> {
        self.run_recorded(code, device, picture, |session| session.eval(code))
    }

    /// Runs `run` on the device's session as one recorded step whose code is `code`;
    /// the answer: the result and the screen after it.
    fn run_recorded(
        &mut self,
        code: &str,
        device: Option<&str>,
        picture: Option<u32>,
        run: impl FnOnce(&mut Session) -> RunResult,
    ) -> Result<Answer, CallError> {
        let started = Instant::now();
        self.session(device)?;
        let begun = self.record()?.begin_step(code);
        let step = begun.0;
        let stop = self.stop_token();
        let session = self.session(device)?;
        // A fresh token when none is given: the last call's, cancelled, must not stop this one.
        session.stop_on(stop);
        let result = run(session);
        let after = session.observe(picture.is_some());
        self.record()?.end_step(begun, &result);
        let (screen, png) = match &after {
            Ok(seen) => (Some(seen.screen_text()), seen.screenshot.clone()),
            Err(e) => {
                (Some(format!("(the screen could not be read: {})\n", codeact_base::error_text::full_message(e))), None)
            }
        };
        let mut answer =
            Answer { text: reply::run_text(&result, screen.as_deref()), picture: None, failed: !result.ok() };
        answer.picture = match (picture, png) {
            (Some(side), Some(png)) => Some(self.kept_picture(&png, side, step)?),
            (Some(_), None) => {
                answer.text.push_str("(no screenshot: the phone gave none)\n");
                None
            }
            _ => None,
        };
        self.note_call("run_script", Some(step), started, result.error.as_ref().map(|e| e.message.as_str()));
        Ok(answer)
    }

    /// The screenshot scaled to `side`, kept in the run directory as it was sent.
    fn kept_picture(&mut self, png: &[u8], side: u32, step: usize) -> Result<Vec<u8>, CallError> {
        let scaled = reply::scaled_png(png, side)?;
        self.record()?.keep_file(&format!("mcp-screens/{step:04}.png"), &scaled);
        Ok(scaled)
    }

    /// Runs a gesture tool's call through `Session::call`, recorded like `run_script`.
    pub fn run_call(&mut self, tool: &str, call: &ToolCall, device: Option<&str>) -> Result<Answer, CallError> {
        let answer = self.run_recorded(&call.expr(), device, None, |session| session.call_value(call, Screen::Live))?;
        // The run directory says which tool the client called.
        self.note_call(tool, None, Instant::now(), answer.failed.then_some("failed"));
        Ok(answer)
    }

    /// `observe`: the screen as the model reads it (and a screenshot).
    pub fn observe(&mut self, device: Option<&str>, picture: Option<u32>) -> Result<Answer, CallError> {
        let seen = self.session(device)?.observe(picture.is_some())?;
        let mut text = seen.screen_text();
        for cleared in &seen.cleared {
            text.push_str(&format!("(cleared before this look: {cleared})\n"));
        }
        let picture = match (picture, seen.screenshot.as_deref()) {
            (Some(side), Some(png)) => Some(reply::scaled_png(png, side)?),
            (Some(_), None) => {
                let why = seen.screenshot_error.as_deref().map(|e| codeact_base::error_text::full_message(e));
                text.push_str(&format!("(no screenshot: {})\n", why.unwrap_or_else(|| "the phone gave none".into())));
                None
            }
            (None, _) => None,
        };
        Ok(Answer { text: reply_clean(&text), picture, failed: false })
    }

    /// `screenshot`: the screen as a PNG, its longest side at most `side`.
    pub fn screenshot(&mut self, device: Option<&str>, side: Option<u32>) -> Result<Answer, CallError> {
        let png = self.session(device)?.screenshot()?;
        let scaled = reply::scaled_png(&png, side.unwrap_or(MAX_PICTURE_SIDE))?;
        Ok(Answer { text: String::new(), picture: Some(scaled), failed: false })
    }

    /// `start_sim`: a fresh virtual phone for this client (`platform`: android, ios or
    /// harmony), which calls that name no device go to from now on.
    pub fn start_sim(&mut self, platform: Option<&str>) -> Result<Answer, CallError> {
        let name = match platform.map(str::trim).unwrap_or("android") {
            "" | "android" => "sim",
            "ios" => "sim:ios",
            "harmony" => "sim:harmony",
            other => {
                return Ok(Answer {
                    text: format!("unknown platform {:?}: use android, ios or harmony", reply_clean(other)),
                    picture: None,
                    failed: true,
                });
            }
        };
        self.sessions.retain(|(n, _)| n != name);
        let session = self.open(name)?;
        self.sessions.push((name.to_string(), session));
        self.current = Some(name.to_string());
        let seen = self.session(Some(name))?.observe(false)?;
        let text = format!(
            "started a fresh virtual phone ({name}); calls without a device go to it.\nscreen:\n{}",
            seen.screen_text()
        );
        Ok(Answer { text: reply_clean(&text), picture: None, failed: false })
    }

    /// `reset`: forgets the session's variables and functions, and puts a virtual
    /// phone back to its first state (a real phone keeps its state).
    pub fn reset(&mut self, device: Option<&str>) -> Result<Answer, CallError> {
        let session = self.session(device)?;
        session.reset().map_err(|e| CallError::Engine(Box::new(e)))?;
        let world = match session.reset_virtual_phone() {
            Ok(()) => "the virtual phone is back to its first state".to_string(),
            Err(DeviceError::NotVirtual { .. }) => "a real phone keeps its state".to_string(),
            Err(e) => return Err(e.into()),
        };
        Ok(Answer { text: format!("variables and functions forgotten; {world}.\n"), picture: None, failed: false })
    }

    /// `export_script`: the session so far as a script that replays it, and where
    /// it is kept.
    pub fn export_script(&mut self) -> Result<Answer, CallError> {
        let record = self.record()?;
        let dir = record.dir();
        let script = record.script();
        let kept = codeact_engine::emit::rhai::comment(&format!("kept as {}", dir.join(SESSION_SCRIPT).display()));
        let text = format!("{kept}\n{script}");
        Ok(Answer { text, picture: None, failed: false })
    }
}

fn reply_clean(text: &str) -> String {
    codeact_base::terminal::clean(text).into_owned()
}
