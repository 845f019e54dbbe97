//! A session: one sandboxed engine bound to one device through the tool catalog,
//! with only the tools a persona allows. Every front door opens one with
//! [`Session::open`] (`open.rs`) and goes through this façade only: observe the
//! phone, compile a snippet once, run it on the observation it was written for,
//! cancel it.
//!
//! The engine runs in a worker process (`isolation`); the tools, the device and
//! what a snippet did stay here. A tool call from a snippet arrives as an overload
//! index with its arguments and runs on this side ([`ToolHost`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use rhai::Dynamic;
use tokio_util::sync::CancellationToken;

use crate::config::Settings;
use codeact_engine::isolation::{CompiledRef, IsolationError, Ran, WorkerProcess};
use codeact_engine::sandbox::{ActionSink, CancelHandle, ErrorKind, Limits, RunError, RunResult, SandboxError, Shared};
use codeact_platform::device::{Device, DeviceError, Observation};
use codeact_tools::{self as tools, Registered, ToolContext};

mod calls;
mod error;
mod open;
mod screen;
mod tool_host;
pub use error::{OpenError, SessionError};
pub use screen::Screen;
pub use tool_host::PrintSink;
use tool_host::ToolHost;

/// A snippet parsed once by the session's engine, ready to run.
#[derive(Debug, Clone)]
pub struct Compiled(CompiledRef);

impl Compiled {
    /// The code as it was written.
    pub fn source(&self) -> &str {
        self.0.source()
    }
}

pub struct Session {
    worker: WorkerProcess,
    host: ToolHost,
    tool_names: Vec<&'static str>,
    registered: Registered,
    /// Tools written in Rhai, loaded into the engine.
    script_tools: Arc<codeact_tools::script_tools::ScriptTools>,
}

/// The ways beside the tree a session can find things by (see
/// [`Session::locating_ways`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LocatingWays {
    /// The gallery's reference names, for `#{image: NAME}`.
    pub references: Vec<String>,
    /// `#{ai: ...}` and `locate()` can ask a model.
    pub model: bool,
}

impl Session {
    /// An engine with the settings' limits and the persona's tools (all tools without
    /// a persona), acting on `device`. The engine's worker process starts here. Front
    /// doors call [`Session::open`], which also lends the settings' person and locator.
    pub fn new(device: Box<dyn Device>, settings: &Settings) -> Result<Self, SessionError> {
        settings.limits.validate().map_err(SandboxError::from)?;
        let persona = settings.persona.as_ref();
        let allows = |t: &str| persona.is_none_or(|p| p.allows(t));
        let shared = Arc::new(Shared::new(&settings.limits));
        let tools = ToolContext::new(device, settings.tools.clone(), shared.clone());
        let (tool_names, table) = tools::install(tools.clone(), shared.clone(), &allows);
        codeact_tools::lock(&tools).allow_locating(allows("locate"));
        let mut names: Vec<&str> = tool_names.clone();
        names.extend(settings.script_tools.tools.iter().map(|t| t.name.as_str()));
        let hint = format!("the functions this session has: {}", names.join(", "));
        let registered = table.arities();
        let mut worker =
            WorkerProcess::start(settings.worker.clone(), settings.limits.clone(), table.signatures(), hint)?;
        let script_tools = settings.script_tools.clone();
        if !script_tools.is_empty() {
            worker.set_tools(script_tools.sources.clone())?;
        }
        let host = ToolHost { allowed: None, table, tools, shared, print_sink: None };
        Ok(Self { worker, host, tool_names, registered, script_tools })
    }

    fn tools(&self) -> std::sync::MutexGuard<'_, ToolContext> {
        self.host.tools.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How long the engine's worker process took to start.
    pub fn worker_start_time(&self) -> std::time::Duration {
        self.worker.start_time
    }

    /// The device's name, for messages.
    pub fn device_name(&self) -> String {
        self.tools().device_name().to_string()
    }

    /// The tools this session has, in catalog order.
    pub fn tool_names(&self) -> &[&'static str] {
        &self.tool_names
    }

    /// Each (name, arity) this session registered in its engine.
    pub fn registered(&self) -> &Registered {
        &self.registered
    }

    /// This session's tools with their docs, as the prompt and `:help` show them
    /// (the tools written in Rhai after the built-in ones).
    pub fn describe_tools(&self) -> String {
        tools::describe_with(&|t| self.tool_names.contains(&t), &self.script_tools.describe())
    }

    /// The tools written in Rhai this session has (`tools_from`).
    pub fn script_tools(&self) -> &codeact_tools::script_tools::ScriptTools {
        &self.script_tools
    }

    pub fn limits(&self) -> &Limits {
        self.worker.limits()
    }

    /// Integer coordinates are 0..N of the screen when this is N.
    pub fn coordinate_scale(&self) -> Option<u32> {
        self.tools().options().coordinate_scale
    }

    /// Reads the phone once: the tree and the phone's state, and a screenshot when
    /// asked. A dropped connection is reopened by the next call, so a failed read is
    /// tried once more. A screenshot can fail where the hierarchy does not (secure
    /// windows): the observation then says why it has none.
    pub fn observe(&mut self, screenshot: bool) -> Result<Arc<Observation>, DeviceError> {
        let mut tools = self.tools();
        // Whoever asked is about to see this screen (and its indices).
        tools.mark_seen();
        let device = tools.runtime_device();
        let mut obs = device.observe().or_else(|_| device.observe())?;
        // A blocker is cleared before anyone sees the screen (its indices would
        // name the dialog's buttons). The rare screen that has one is read again
        // by the watcher; the others are not copied.
        if tools.has_blocker(&obs) {
            let until = Instant::now() + tools.options().settle.timeout + Duration::from_secs(5);
            let blocked = Arc::new(obs);
            let fired = tools.bounded(until, |t| t.clear_blockers(blocked.clone()).unwrap_or_default());
            let now = if fired.is_empty() { blocked } else { tools.live_arc().unwrap_or(blocked) };
            obs = Arc::unwrap_or_clone(now);
            obs.cleared = fired.into_iter().map(|f| f.line).collect();
        }
        tools.mark_seen();
        let device = tools.runtime_device();
        // Pixels cannot be redacted: no screenshot while a typed secret is on screen.
        if screenshot && obs.ui.shows_secret() {
            obs.screenshot_error = Some(Arc::new(DeviceError::SecretOnScreen));
        } else if screenshot {
            match device.screenshot() {
                Ok(png) => obs.screenshot = Some(Arc::from(png)),
                Err(e) => obs.screenshot_error = Some(Arc::new(e)),
            }
        }
        Ok(Arc::new(obs))
    }

    /// Whether the last snippet acted and nothing checked the outcome after its
    /// last action (an assertion, a wait, `refresh()`).
    pub fn outcome_unchecked(&self) -> bool {
        self.tools().outcome_unchecked()
    }

    /// The apps a model may open: the third-party ones plus the system apps people
    /// ask for by name (Settings, Clock...); a phone's whole system list is hundreds
    /// of packages.
    pub fn apps_worth_naming(&mut self) -> Result<Vec<String>, DeviceError> {
        let mut tools = self.tools();
        let apps = tools.options().apps.clone();
        let device = tools.runtime_device();
        let all = device.list_packages(true)?;
        let third_party = device.list_packages(false).unwrap_or_default();
        Ok(all.into_iter().filter(|p| third_party.contains(p) || apps.knows(p)).collect())
    }

    /// A screenshot of the phone now.
    pub fn screenshot(&mut self) -> Result<Vec<u8>, DeviceError> {
        let mut tools = self.tools();
        // Pixels cannot be redacted: none while a typed secret is on screen.
        if codeact_base::secrets::any_typed() && tools.runtime_device().observe()?.ui.shows_secret() {
            return Err(DeviceError::SecretOnScreen);
        }
        tools.runtime_device().screenshot()
    }

    /// Parses `code` once, in this session's engine.
    pub fn compile(&mut self, code: &str) -> Result<Compiled, RunError> {
        self.worker.compile(code).map(Compiled)
    }

    /// Runs a snippet written for `seen`: `ui_state` shows it, and its indices are
    /// the ones the writer read (an action since then makes them checked).
    pub fn run(&mut self, code: &Compiled, seen: &Arc<Observation>) -> RunResult {
        self.written_for(seen);
        self.run_in_worker(|worker, host| worker.run(&code.0, host))
    }

    /// Parses and runs `code` written for `seen` in one hand-over to the engine (the
    /// agent's step: one round trip instead of two). `Err` when it does not parse:
    /// then nothing ran.
    pub fn run_source(&mut self, code: &str, seen: &Arc<Observation>) -> Result<RunResult, RunError> {
        self.written_for(seen);
        let result = self.run_in_worker(|worker, host| worker.eval(code, host));
        match result.error {
            Some(e) if e.kind == ErrorKind::Syntax => Err(e),
            _ => Ok(result),
        }
    }

    /// Runs a snippet on the phone as it is now: `ui_state` is read when the snippet
    /// first uses it.
    pub fn run_fresh(&mut self, code: &Compiled) -> RunResult {
        self.on_the_live_screen();
        self.run_in_worker(|worker, host| worker.run(&code.0, host))
    }

    /// Compiles and runs `code` on the phone as it is now (a syntax error is the
    /// result's error): scripts and the REPL.
    pub fn eval(&mut self, code: &str) -> RunResult {
        self.on_the_live_screen();
        self.run_in_worker(|worker, host| worker.eval(code, host))
    }

    /// [`eval`](Self::eval), its value (the last expression's) as JSON text: for a
    /// server that answers its client in JSON (`execute_driver`).
    pub fn eval_json(&mut self, code: &str) -> RunResult {
        self.on_the_live_screen();
        self.run_in_worker(|worker, host| worker.eval_as(code, codeact_engine::sandbox::ValueForm::Json, host))
    }

    /// A snippet written for `seen`: `ui_state` shows it until `refresh()`, so its
    /// indices mean what its writer read.
    fn written_for(&mut self, seen: &Arc<Observation>) {
        let mut tools = self.tools();
        tools.set_snapshot(Some(seen.clone()));
        tools.set_following(false);
    }

    /// A snippet on the phone as it is: `ui_state` is read when first used, and
    /// again after each action.
    fn on_the_live_screen(&mut self) {
        let mut tools = self.tools();
        tools.set_snapshot(None);
        tools.set_following(true);
    }

    /// Starts the tools' clock, lets the worker run the snippet, and joins what it
    /// reported with the actions and the completion recorded here.
    fn run_in_worker(&mut self, run: impl FnOnce(&mut WorkerProcess, &mut ToolHost) -> Ran) -> RunResult {
        let started = self.host.shared.begin(self.worker.limits().timeout());
        let ran = run(&mut self.worker, &mut self.host);
        let (_, actions, more_actions, completion) = self.host.shared.collect();
        let f = ran.finished;
        // What a snippet says (printed, returned, failed with, completed with) may
        // quote the screen: a typed secret is blotted out of all of it.
        let blot = |t: String| match codeact_base::secrets::redact(&t) {
            std::borrow::Cow::Borrowed(_) => t,
            std::borrow::Cow::Owned(o) => o,
        };
        let error = f.error.map(|mut e| {
            e.message = blot(std::mem::take(&mut e.message));
            e.source_line = e.source_line.map(blot);
            e
        });
        let completion = completion.map(|mut c| {
            c.reason = blot(std::mem::take(&mut c.reason));
            c
        });
        RunResult {
            output: blot(f.output),
            error,
            actions,
            more_actions,
            completion,
            value: f.value.map(blot),
            duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        }
    }

    /// Stops the snippet that runs now, from another thread (Ctrl-C).
    pub fn cancel_handle(&self) -> CancelHandle {
        CancelHandle(self.host.shared.clone())
    }

    /// Every snippet from now on stops when `token` is cancelled.
    pub fn stop_on(&self, token: CancellationToken) {
        self.host.shared.stop_on(token);
    }

    /// Sends every line later snippets print to `sink` the moment it is printed (the
    /// result still holds them all), or no longer.
    /// A tool's notices (a wait that takes long) go there too, marked as such.
    pub fn set_print_sink(&mut self, sink: Option<PrintSink>) -> Result<(), IsolationError> {
        self.worker.stream_prints(sink.is_some())?;
        let shared_sink = sink.map(|s| Arc::new(std::sync::Mutex::new(s)));
        self.host.print_sink = shared_sink.clone().map(|s| -> PrintSink {
            Box::new(move |text: &str| (s.lock().unwrap_or_else(std::sync::PoisonError::into_inner))(text))
        });
        self.host.shared.set_notice_sink(shared_sink.map(|s| -> codeact_engine::sandbox::NoticeSink {
            Box::new(move |text: &str| {
                let note = format!("… {}", codeact_base::secrets::redact(text));
                (s.lock().unwrap_or_else(std::sync::PoisonError::into_inner))(&note)
            })
        }));
        Ok(())
    }

    /// Sends every later action to `sink` the moment it is recorded (or no longer).
    /// The sink takes each action's screenshot and dump: the actions a
    /// [`RunResult`] keeps then hold neither (a long run stays flat in memory).
    pub fn set_action_sink(&self, sink: Option<ActionSink>) {
        self.host.shared.set_sink(sink);
    }

    /// Holds later snippets to `tools` (a sub-agent's persona: its name and tools),
    /// or lets every registered tool answer again (`None`).
    pub fn allow_only(&mut self, persona: Option<(&str, &[String])>) {
        self.host.allowed = persona.map(|(name, tools)| (name.to_string(), tools.to_vec()));
    }

    /// The facts `remember()` kept.
    /// What the last `answer(text)` gave (the reply to a question task), if any.
    pub fn answer(&self) -> Option<String> {
        self.tools().answer().map(|a| codeact_base::secrets::redact(a).into_owned())
    }

    /// Who answers `ask_user`, `take_over` and sensitive-action confirmations from
    /// now on (`None`: nobody; questions fail and sensitive actions are refused).
    pub fn set_human(&mut self, human: Option<codeact_tools::human::Human>) {
        self.tools().set_human(human);
    }

    /// Lends `type_secret(name)` a value from outside the script (a WebDriver
    /// client's request marked sensitive): typed by name, blotted out of every
    /// record until the session ends. `false` when it is too short to be kept out of records.
    pub fn lend_secret(&mut self, name: &str, value: &str) -> bool {
        self.tools().lend_secret(name, value)
    }

    /// Masks words a client marked sensitive in every record for as long as this
    /// session lives (those too short to be told from ordinary text are left out);
    /// `false` when the session has lent too much.
    pub fn mask_secrets(&mut self, many: &[&str]) -> bool {
        self.tools().mask_secrets(many)
    }

    /// The vision model `#{ai: ...}` selectors and `locate()` ask from now on
    /// (`None`: none; they then fail saying how to configure one). Build one from a
    /// client with [`crate::llm::locator::vision`].
    pub fn set_locator(&mut self, vision: Option<codeact_platform::locate::ai::Vision>) {
        self.tools().set_locator(vision);
    }

    /// The ways beside the tree this session can find things by: the gallery's
    /// reference names (none when it has none or cannot be read) and whether a
    /// locator model is configured and the persona lets it be asked.
    pub fn locating_ways(&self) -> LocatingWays {
        let tools = self.tools();
        let references = codeact_platform::locate::Gallery::open(&tools.options().assets)
            .map(|g| g.references().iter().map(|r| r.name.clone()).collect())
            .unwrap_or_default();
        LocatingWays { references, model: tools.can_ask_locator() }
    }

    /// The sensitive-action policy this session runs under.
    pub fn sensitive_policy(&self) -> codeact_tools::SensitivePolicy {
        self.tools().options().sensitive.policy
    }

    /// Runs a shell command line on the device (for set-up and reading state, not for
    /// scripts: they reach the device through tools).
    pub fn device_shell(&mut self, command: &str) -> Result<codeact_platform::device::ShellOutput, DeviceError> {
        let mut tools = self.tools();
        let out = tools.runtime_device().shell(command)?;
        tools.set_snapshot(None);
        Ok(out)
    }

    /// Copies a file from the phone into `into`, at most `limit` bytes; how many came.
    pub fn pull_file(&mut self, path: &str, into: &mut dyn std::io::Write, limit: u64) -> Result<u64, DeviceError> {
        self.tools().runtime_device().pull_file(path, into, limit)
    }

    /// The phone's platform.
    pub fn platform(&mut self) -> codeact_platform::device::Platform {
        self.tools().runtime_device().platform()
    }

    /// Whether an app (package or bundle id) is installed on the phone.
    pub fn is_installed(&mut self, package: &str) -> Result<bool, DeviceError> {
        self.tools().runtime_device().is_installed(package)
    }

    /// An installed app's APK, pulled from the phone and read (Android).
    pub fn app_apk(
        &mut self,
        package: &str,
    ) -> Result<codeact_platform::apk::pull::Pulled, codeact_platform::apk::pull::PullError> {
        codeact_platform::apk::pull::from_device(self.tools().runtime_device(), package)
    }

    pub fn memory(&self) -> Vec<String> {
        self.tools().facts().to_vec()
    }

    pub fn set_var(&mut self, name: &str, value: Dynamic) -> Result<(), IsolationError> {
        self.worker.set_var(name, value)
    }

    /// Names of the variables the session holds.
    pub fn var_names(&mut self) -> Vec<String> {
        self.worker.vars()
    }

    /// Each variable with a short view of its value and its type.
    pub fn var_summaries(&mut self, width: usize) -> Vec<(String, String)> {
        self.worker.var_summaries(width)
    }

    /// Puts the built-in virtual phone back to its first state (`simctl reset`):
    /// its settings, apps' data, files and faults. Other devices refuse it.
    pub fn reset_virtual_phone(&mut self) -> Result<(), DeviceError> {
        let mut tools = self.tools();
        let out = tools.runtime_device().shell("simctl reset")?;
        tools.set_snapshot(None);
        if out.code.unwrap_or(0) == 0 && out.stderr.is_empty() {
            Ok(())
        } else {
            Err(DeviceError::NotVirtual { said: out.stderr_text().trim().to_string() })
        }
    }

    /// The modules `import "name"` finds in this session's snippets from now on
    /// (name, source), each after the ones it imports. Empty: `import` finds nothing.
    /// `Err` says which module failed and why.
    pub fn set_modules(&mut self, modules: Vec<(String, String)>) -> Result<(), IsolationError> {
        self.host.shared.begin(self.worker.limits().timeout());
        self.worker.set_modules(modules)
    }

    /// Forgets variables, functions, remembered facts and the script's watchers; the
    /// next `ui_state` is read fresh. The device and the tools stay.
    pub fn reset(&mut self) -> Result<(), IsolationError> {
        self.worker.reset()?;
        let mut tools = self.tools();
        tools.forget_scripts();
        Ok(())
    }
}
