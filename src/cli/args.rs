//! The options several subcommands share: which phone, and how a scripting session
//! is set up. They become one [`Flags`] and are resolved once, with codeact.toml and
//! the environment, into [`Settings`].

use std::path::PathBuf;

use codeact::agent::{Models, Strategy};
use codeact::config::{ConfigError, Flags, Settings};
use codeact::device::{Device, ObserveWith};
use codeact::llm::{LlmClient, LlmConfig, LlmSection, RoleFlags, RoleSection};
use codeact::persona::Persona;
use codeact::tools::{Recording, SensitivePolicy};

/// Whether the model sees a screenshot each step (`run` and `eval` alike).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Vision {
    /// When the persona asks for screenshots (every built-in persona does).
    Auto,
    On,
    Off,
}

impl Vision {
    pub fn for_persona(self, persona: &Persona) -> bool {
        match self {
            Vision::On => true,
            Vision::Off => false,
            Vision::Auto => persona.wants("screenshot"),
        }
    }
}

/// What `--device` takes.
pub const DEVICE_HELP: &str = "`sim` (the built-in virtual device), `sim:ios` (the same phone as an iPhone, \
through its WebDriverAgent), `sim:harmony` (the same phone as a HarmonyOS phone, through its hdc server), \
`ios:http://HOST:PORT` (an iPhone's WebDriverAgent, e.g. through `iproxy 8100 8100`), `hdc` or \
`hdc:CONNECT_KEY` (a HarmonyOS phone through the hdc server, 127.0.0.1:8710 or $OHOS_HDC_SERVER_PORT), \
`appium:http(s)://[USER:KEY@]HOST:PORT[/PATH][#session=ID]` (any phone behind an Appium server, a Selenium \
Grid or a device cloud; capabilities from $CODEACT_APPIUM_CAPS, a JSON object or file), \
`HOST:PORT` (direct TCP to an adbd), or a serial from `codeact devices`. Default: $ANDROID_SERIAL, else the \
only device the adb server sees.";

/// Which phone to use, for every command that needs one.
#[derive(clap::Args, Debug)]
pub struct DeviceArgs {
    #[arg(long, short = 'd', help = DEVICE_HELP)]
    pub device: Option<String>,
    #[command(flatten)]
    pub how: DeviceHow,
}

/// How a phone is reached, whichever it is.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct DeviceHow {
    /// Seconds any one device operation may take before it fails (default 20).
    #[arg(long)]
    pub timeout: Option<f64>,
    /// How an Android phone is observed, and tapped: auto (the mobilerun Portal
    /// when its accessibility service is on, else uiautomator2's server when the
    /// phone has it, started if its jar is there, else `uiautomator dump`), dump
    /// (`uiautomator dump` and `input`, always), u2 or portal (that agent, and an
    /// error that says how to set it up when it is not there). A tree an agent
    /// returns stale or empty is replaced by a dump, and the observation says so.
    /// Default: observe in codeact.toml, else auto.
    #[arg(long, value_enum, value_name = "auto|dump|u2|portal")]
    pub observe: Option<ObserveWith>,
    /// The capabilities of the session codeact creates on `--device appium:URL`: a
    /// JSON object (`{"platformName": "Android", "appium:automationName":
    /// "UiAutomator2", "appium:udid": "emulator-5554"}`). Default: [appium] in
    /// codeact.toml, else $CODEACT_APPIUM_CAPS, else Android through UiAutomator2.
    #[arg(long, value_name = "FILE.json")]
    pub caps: Option<std::path::PathBuf>,
}

impl DeviceArgs {
    /// The phone these flags (and codeact.toml) name.
    pub fn open(&self) -> anyhow::Result<Box<dyn Device>> {
        let flags = Flags {
            device: self.device.clone(),
            device_timeout_s: self.how.timeout,
            observe: self.how.observe,
            appium_caps: self.how.caps.clone(),
            ..Flags::default()
        };
        Ok(Settings::load(None, &flags)?.open_device()?)
    }
}

/// How a scripting session is set up: persona, limits, tool behaviour.
#[derive(clap::Args, Debug)]
pub struct SessionArgs {
    /// Only this persona's tools (and its limits): a built-in name (`codeact personas`)
    /// or a .toml file. Default: every tool (for `codeact run`: the default persona).
    #[arg(long)]
    pub persona: Option<String>,
    /// Read settings from this file instead of $CODEACT_CONFIG or ./codeact.toml.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Override a sandbox limit, e.g. --limit timeout_ms=5000 (repeatable). Limits:
    /// max_operations, timeout_ms, max_call_levels, max_expr_depth, max_string_size,
    /// max_array_size, max_map_size, max_variables, max_functions, max_output,
    /// max_memory_mb (each value outside its range is refused with the range).
    #[arg(long = "limit", value_name = "KEY=VALUE")]
    pub limits: Vec<String>,
    /// After each action wait up to this long for the screen to settle (two equal
    /// observations in a row); 0 turns it off. Default 3000.
    #[arg(long, value_name = "MS")]
    pub settle_ms: Option<u64>,
    /// Read integer coordinates as 0..N of the screen (1000 for vision models that
    /// answer in per-mille) instead of pixels.
    #[arg(long, value_name = "N")]
    pub coordinate_scale: Option<u32>,
    /// What each action keeps: none, ui (the UI dump) or all (dump and screenshot).
    /// Default: all with --trajectory, otherwise none.
    #[arg(long, value_name = "WHAT")]
    pub record: Option<Recording>,
    /// Blocker watchers, cleared between actions and before a selector gives up:
    /// permission (allow, or permission=deny|ask), anr (Wait), crash (Close app),
    /// popups (rate / update: Not now, Later), keyboard (hidden when it covers the
    /// target). All are on by default; e.g. --watchers off, --watchers=-popups,
    /// --watchers permission=deny (a list starting with "-" needs the "=").
    /// Overrides the persona and [watchers].
    #[arg(long, value_name = "LIST")]
    pub watchers: Option<String>,
    /// What happens before an action on something sensitive: pay, buy, purchase,
    /// transfer, delete, uninstall, factory reset, send money (English and
    /// Chinese), plus the rules under [sensitive] in codeact.toml, matched against
    /// the element's text, description and id, typed text, the app and shell
    /// commands. ask: a person confirms at the terminal or through --answers, and
    /// it is refused when nobody can; refuse; allow. Default: ask for run and repl,
    /// allow for exec and eval (a person wrote the script or the task).
    #[arg(long, value_enum, value_name = "ask|refuse|allow")]
    pub sensitive: Option<SensitivePolicy>,
    /// Answers for ask_user(), take_over() and sensitive-action confirmations when
    /// nobody is at the terminal: a TOML file with [ask], [confirm] and [take_over]
    /// tables of "pattern" = "answer" (regular expressions, any case, first match
    /// wins), e.g. [confirm] "delete" = "yes". Checked before the terminal.
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,
    /// Secrets type_secret(name) may type: a TOML file of name = "value" lines
    /// (besides $CODEACT_SECRET_NAME). Values never reach the model, logs or files.
    #[arg(long, value_name = "FILE")]
    pub secrets: Option<PathBuf>,
    /// The reference pictures #{image: "NAME"} looks for (`codeact assets`):
    /// default [assets] dir in codeact.toml, else ./assets.
    #[arg(long, value_name = "DIR")]
    pub assets: Option<PathBuf>,
}

impl SessionArgs {
    /// The settings for a session on `device`. `defaults` fills what only the
    /// subcommand knows (`codeact run`'s default persona, what a trajectory records).
    pub fn settings(&self, device: &DeviceArgs, defaults: Flags) -> Result<Settings, ConfigError> {
        let flags = Flags {
            persona: self.persona.clone(),
            limits: self.limits.clone(),
            settle_ms: self.settle_ms,
            coordinate_scale: self.coordinate_scale,
            record: self.record,
            watchers: self.watchers.clone(),
            sensitive: self.sensitive,
            secrets: self.secrets.clone(),
            assets: self.assets.clone(),
            device: device.device.clone(),
            device_timeout_s: device.how.timeout,
            observe: device.how.observe,
            appium_caps: device.how.caps.clone(),
            ..defaults
        };
        Settings::load(self.config.as_deref(), &flags)
    }

    /// Who answers the session's questions and confirmations: the --answers file,
    /// then the terminal when `terminal` (and stdin is one).
    pub fn person(&self, terminal: bool) -> anyhow::Result<Option<codeact::human::Human>> {
        super::person::person(self.answers.as_deref(), terminal)
    }
}

/// On or off, for flags that read better that way than as booleans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Switch {
    On,
    Off,
}

/// How the agent checks its own work: `codeact run` and `codeact eval` share these.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// This many steps in a row that end in an error or change nothing on screen
    /// make the model change approach; twice as many end the run as a failure.
    /// 0 turns it off.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub error_threshold: usize,
    /// Hold a complete(true, ...) that comes right after acting, with nothing
    /// checking what the actions did: the model sees the final screen and confirms
    /// or continues (one step more). A snippet that asserted its outcome
    /// (assert_visible, wait_for, refresh()) after its last action passes at once.
    #[arg(long, value_enum, value_name = "on|off", default_value = "on")]
    pub verify_completion: Switch,
}

/// How the agent goes about a task, and which model plays each role: `codeact run`
/// and `codeact eval` share these.
#[derive(clap::Args, Debug)]
pub struct StrategyArgs {
    /// react: observe, write a snippet, run it, until complete(). tree: each goal
    /// is a node whose model call writes code or splits it into sub-goals (JSON,
    /// each with its expected screen), each a node of the same kind, down to
    /// --tree-depth; a node that says it is done is judged against its expected
    /// screen (by --reflector-model when given); a failed sub-goal makes its
    /// parent split again once; a sub-goal that is one open_app/home/wait call
    /// runs without a model call. plan: a planner
    /// writes a numbered plan (goal and expected screen per item), the actor does
    /// one item at a time (complete() ends an item), and a failed item or
    /// --error-threshold steps that go nowhere make it plan again. hierarchical: an
    /// app-level plan; per app an app_starter sub-agent opens it and a ui_expert
    /// sub-agent acts, passing values on in sandbox variables (uses those two
    /// personas: no --persona).
    #[arg(long, value_enum, default_value = "react")]
    pub strategy: Strategy,
    /// The reflector critiques progress after this many actions and after a failed
    /// step; its last 3 notes go into the actor's prompt. 0 turns it off. Default:
    /// 4 with plan and hierarchical, off with react.
    #[arg(long, value_name = "N")]
    pub reflect_every: Option<usize>,
    /// tree: a node this deep may not split its goal any more (1: the task is one
    /// node that acts).
    #[arg(long, default_value_t = 3, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=8))]
    pub tree_depth: u32,
    #[command(flatten)]
    pub roles: RoleArgs,
}

/// Which model plays the planner and the reflector: `run`, `eval` and `explore`
/// share these.
#[derive(clap::Args, Debug)]
pub struct RoleArgs {
    /// The planner's model (default: [llm.planner] model, else the acting model).
    #[arg(long, value_name = "MODEL")]
    pub planner_model: Option<String>,
    /// The planner's endpoint (default: [llm.planner] base_url, else the acting
    /// model's). Another endpoint gets only [llm.planner] api_key_env's key.
    #[arg(long, value_name = "URL")]
    pub planner_base_url: Option<String>,
    /// The reflector's model (default: [llm.reflector] model, else the acting model).
    #[arg(long, value_name = "MODEL")]
    pub reflector_model: Option<String>,
    /// The reflector's endpoint (default: [llm.reflector] base_url, else the acting
    /// model's).
    #[arg(long, value_name = "URL")]
    pub reflector_base_url: Option<String>,
}

impl RoleArgs {
    /// A client per role: the actor's from `llm` and the file's [llm], the planner's
    /// and reflector's from their flags and sections (only when they differ).
    pub fn models(&self, section: &LlmSection, llm: &LlmArgs) -> anyhow::Result<Models> {
        let actor = LlmConfig::resolve(section, &llm.flags())?;
        let role = |s: Option<&RoleSection>, model: &Option<String>, base_url: &Option<String>| {
            let flags = RoleFlags { model: model.clone(), base_url: base_url.clone() };
            let config = actor.for_role(s, &flags)?;
            let same = config.model == actor.model && config.base_url == actor.base_url;
            anyhow::Ok(if same { None } else { Some(LlmClient::new(config)?) })
        };
        let planner = role(section.planner.as_ref(), &self.planner_model, &self.planner_base_url)?;
        let reflector = role(section.reflector.as_ref(), &self.reflector_model, &self.reflector_base_url)?;
        Ok(Models { actor: LlmClient::new(actor)?, planner, reflector })
    }
}

impl StrategyArgs {
    pub fn reflect_every(&self) -> usize {
        self.reflect_every.unwrap_or_else(|| self.strategy.default_reflect_every())
    }

    /// A client per role (see [`RoleArgs::models`]).
    pub fn models(&self, section: &LlmSection, llm: &LlmArgs) -> anyhow::Result<Models> {
        self.roles.models(section, llm)
    }

    /// The session's persona for this strategy: hierarchical runs need both
    /// sub-agents' tools, and take no --persona.
    pub fn session_persona(&self, session: &SessionArgs, settings: &mut Settings) -> anyhow::Result<()> {
        if self.strategy != Strategy::Hierarchical {
            return Ok(());
        }
        if let Some(p) = &session.persona {
            anyhow::bail!(
                "--strategy hierarchical runs an app_starter and a ui_expert sub-agent per app, so --persona {p} has no place; drop it, or use --strategy plan"
            );
        }
        settings.persona = Some(codeact::agent::hierarchical_persona()?);
        Ok(())
    }
}

/// The vision model `#{ai: "..."}` selectors and `locate()` ask (`run`, `exec`,
/// `repl`).
#[derive(clap::Args, Debug)]
pub struct LocatorArgs {
    /// The vision model #{ai: "..."} selectors and locate() ask (default: [llm.locator]
    /// model, else the acting model, --model).
    #[arg(long, value_name = "NAME")]
    pub locator_model: Option<String>,
    /// The locator model's endpoint (default: [llm.locator] base_url, else the acting
    /// model's, --base-url). Another endpoint gets only [llm.locator] api_key_env's key.
    #[arg(long, value_name = "URL")]
    pub locator_base_url: Option<String>,
}

impl LocatorArgs {
    /// The locator model: [llm.locator] and these flags over the acting model's
    /// settings (`llm`, [llm]). `None` when no model is configured anywhere (then
    /// `#{ai: ...}` says how to give one); a configuration given but wrong is an error.
    pub fn vision(&self, section: &LlmSection, llm: &LlmArgs) -> anyhow::Result<Option<codeact::locate::ai::Vision>> {
        let role = section.locator.clone().unwrap_or_default();
        let flags = RoleFlags { model: self.locator_model.clone(), base_url: self.locator_base_url.clone() };
        let asked = flags.model.is_some() || flags.base_url.is_some() || section.locator.is_some() || llm.given();
        let base = match LlmConfig::resolve(section, &llm.flags()) {
            Ok(config) => config,
            // Only a locator is configured: it stands on its own.
            Err(_) if role.base_url.is_some() || flags.base_url.is_some() => {
                let own = LlmSection {
                    base_url: flags.base_url.clone().or_else(|| role.base_url.clone()),
                    model: flags.model.clone().or_else(|| role.model.clone()),
                    api_key_env: role.api_key_env.clone(),
                    temperature: role.temperature,
                    timeout_s: role.timeout_s,
                    ..LlmSection::default()
                };
                LlmConfig::resolve(&own, &codeact::llm::LlmFlags::default())?
            }
            Err(_) if !asked => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let config = base.for_role(Some(&role), &flags)?;
        Ok(Some(codeact::llm::locator::vision(LlmClient::new(config)?)?))
    }
}

/// Where `codeact run` remembers what worked.
#[derive(clap::Args, Debug)]
pub struct MemoryArgs {
    /// The memory database (SQLite): a successful run is kept there, and the next
    /// run of the same task replays it step by step without the LLM, handing only a
    /// step that no longer fits the screen to the model. Default:
    /// $XDG_DATA_HOME/codeact/memory.sqlite (~/.local/share/codeact/...).
    #[arg(long, value_name = "PATH", conflicts_with = "no_memory")]
    pub memory: Option<PathBuf>,
    /// Neither replay from memory nor keep this run.
    #[arg(long)]
    pub no_memory: bool,
    /// Also find worked examples by meaning: embed each task with this model at the
    /// same provider (`/v1/embeddings`, e.g. text-embedding-3-small, or
    /// nomic-embed-text on Ollama), keep the vectors in the memory database, and
    /// take the nearest earlier tasks first (BM25 fills the rest).
    #[arg(long, value_name = "MODEL", conflicts_with = "no_memory")]
    pub embeddings: Option<String>,
}

impl MemoryArgs {
    /// The database to use, if any.
    pub fn path(&self) -> Option<PathBuf> {
        if self.no_memory {
            return None;
        }
        self.memory.clone().or_else(codeact::memory::default_path)
    }
}

/// Traces: `codeact run`, `exec`, `eval`, `explore` and `mcp` share these flags.
#[derive(clap::Args, Debug)]
pub struct TraceArgs {
    /// Send a trace of each run to this OpenTelemetry collector over OTLP/HTTP
    /// (OpenTelemetry GenAI conventions: invoke_agent, step, chat, snippet and
    /// execute_tool spans, with token counts). A base URL gets /v1/traces:
    /// http://localhost:6006 is Phoenix, http://localhost:4318 a Collector or
    /// Jaeger. Default: $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else
    /// $OTEL_EXPORTER_OTLP_ENDPOINT; $OTEL_EXPORTER_OTLP_HEADERS carries an API
    /// key, $OTEL_RESOURCE_ATTRIBUTES extra resource attributes.
    #[arg(long, value_name = "URL")]
    pub otlp: Option<String>,
    /// Put prompts, replies, code, tool arguments and results in the spans too
    /// (secrets still blotted out). Without it, spans carry names, timings,
    /// tokens and errors only.
    #[arg(long)]
    pub otlp_content: bool,
}

impl TraceArgs {
    /// The exporter, when traces are asked for (by the flag or the environment).
    pub fn start(&self) -> anyhow::Result<Option<std::sync::Arc<codeact::trace::Traces>>> {
        let Some(endpoint) = codeact::trace::Endpoint::resolve(self.otlp.as_deref())? else {
            if self.otlp_content {
                anyhow::bail!(
                    "--otlp-content needs somewhere to send traces: add --otlp URL (e.g. http://localhost:6006)"
                );
            }
            return Ok(None);
        };
        if let Err(e) = endpoint.probe(std::time::Duration::from_secs(2)) {
            codeact::errln!(
                "warning: no trace collector answers at {} ({e}); its spans are lost unless one starts there",
                endpoint.shown()
            );
        }
        Ok(Some(std::sync::Arc::new(codeact::trace::Traces::start(endpoint, self.otlp_content)?)))
    }
}

/// Sends the last spans and says on stderr how many reached the collector.
pub fn finish_traces(traces: Option<&codeact::trace::Traces>) {
    let Some(traces) = traces else { return };
    let exported = traces.finish();
    let url = traces.endpoint().shown();
    match &exported.error {
        None if exported.spans == 0 => {}
        None => codeact::errln!("traces: {} spans sent to {url}", exported.spans),
        Some(why) => codeact::errln!(
            "traces: {} of {} spans not sent to {url}: {}; is the collector running there?",
            exported.lost,
            exported.lost + exported.spans,
            codeact::terminal::one_line(why)
        ),
    }
}

/// Which LLM to ask: `codeact run` and `codeact eval` share these flags.
#[derive(clap::Args, Debug)]
pub struct LlmArgs {
    /// An OpenAI-compatible endpoint (default $OPENAI_BASE_URL, else OpenAI's).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The model (default $CODEACT_MODEL; gpt-4o-mini on OpenAI).
    #[arg(long)]
    pub model: Option<String>,
    /// The environment variable holding the API key (default OPENAI_API_KEY; none is
    /// needed for local servers).
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    #[arg(long)]
    pub temperature: Option<f32>,
    /// The most tokens one reply may have (default: the server's own limit). Set it
    /// for a small local model, which may otherwise write until its context is full.
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
    /// Send the system prompt at the head of the first user message, for a model
    /// whose chat template has no system turn (Gemma on llama.cpp's Python server
    /// drops it otherwise).
    #[arg(long)]
    pub no_system_role: bool,
    /// Ask for each reply as a stream (server-sent events) and stop reading it at its
    /// bound (256 KiB, 32 calls): a runaway reply is cut short at the server.
    #[arg(long)]
    pub stream: bool,
}

impl LlmArgs {
    /// Whether any of these flags was given.
    pub fn given(&self) -> bool {
        self.base_url.is_some()
            || self.model.is_some()
            || self.api_key_env.is_some()
            || self.temperature.is_some()
            || self.max_tokens.is_some()
            || self.no_system_role
            || self.stream
    }

    pub fn flags(&self) -> codeact::llm::LlmFlags {
        codeact::llm::LlmFlags {
            base_url: self.base_url.clone(),
            model: self.model.clone(),
            api_key_env: self.api_key_env.clone(),
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            system_role: self.no_system_role.then_some(false),
            stream: self.stream.then_some(true),
        }
    }
}
