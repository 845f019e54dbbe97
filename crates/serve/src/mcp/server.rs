//! The MCP protocol side: rmcp's [`ServerHandler`] for codeact. It lists the tools
//! (`tools.rs`), checks a call's arguments before any work (a wrong one is a
//! JSON-RPC error, `-32602`, naming it), finds the caller's [`Client`] and hands the
//! work to it on a blocking thread (sessions and devices block), with the client's
//! elicitation as the person who confirms sensitive actions when it can be asked.
//! A failed script or device is the tool's error (`isError`), not the protocol's.
//!
//! Which client a call belongs to: over stdio, the one process; over HTTP, the MCP
//! session (`Mcp-Session-Id`), or — on protocol 2026-07-28, which has no sessions —
//! the `session` argument, else the client's name. Not the transports (`serve.rs`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use base64::Engine as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequestParams, ElicitationAction,
    ElicitationSchema, Implementation, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value};

use super::client::{Answer, CallError, Client};
use super::options::McpOptions;
use super::tasks::EvalAgent;
use super::tools::{self as listed, MAX_CODE_BYTES};
use codeact_tools::call::ToolCall;
use codeact_tools::human::{Human, HumanRequest};
use codeact_tools::json_calls::{Finish, gesture_call, script_call};

/// At most this many clients hold sessions at once (each may hold phones and an
/// engine process); a new one then takes the place of the one idle longest (its
/// sessions end; its run folder stays).
pub const MAX_CLIENTS: usize = 32;

/// A client and when a call last came for it.
struct Held {
    client: Arc<Mutex<Client>>,
    last_call: Instant,
}

/// How long a person has to answer a confirmation sent to the client.
const ASK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// The server: its options, the tools it lists, its clients.
#[derive(Clone)]
pub struct CodeactServer {
    options: Arc<McpOptions>,
    tools: Arc<Vec<Tool>>,
    clients: Arc<Mutex<HashMap<String, Held>>>,
    /// Over stdio every call is the one client's.
    single_client: bool,
}

impl CodeactServer {
    pub fn new(options: McpOptions, single_client: bool) -> Self {
        let persona = options.settings.persona.clone();
        let allowed = |t: &str| persona.as_ref().is_none_or(|p| p.allows(t));
        let tools = listed::listed_tools(options.expose, &allowed, &options.settings.script_tools);
        Self { options: Arc::new(options), tools: Arc::new(tools), clients: Arc::default(), single_client }
    }

    /// Forgets the client of MCP session `id` (its client ended the session):
    /// its phones and engine stop off the runtime; its run folder stays.
    pub fn end_session(&self, id: &str) {
        let ended = codeact_record::trajectory::lock(&self.clients).remove(&format!("mcp-session:{id}"));
        if let Some(held) = ended {
            drop(tokio::task::spawn_blocking(move || drop(held)));
        }
    }

    /// The client a call belongs to, made on its first call.
    fn client_for(&self, key: String, name: &str) -> Result<Arc<Mutex<Client>>, ErrorData> {
        let mut clients = codeact_record::trajectory::lock(&self.clients);
        if let Some(held) = clients.get_mut(&key) {
            held.last_call = Instant::now();
            return Ok(held.client.clone());
        }
        if clients.len() >= MAX_CLIENTS {
            // The client idle longest (no call of its under way) makes room.
            let idle = clients
                .iter()
                .filter(|(_, h)| Arc::strong_count(&h.client) == 1)
                .min_by_key(|(_, h)| h.last_call)
                .map(|(k, _)| k.clone());
            let Some(evicted) = idle.and_then(|k| clients.remove(&k)) else {
                return Err(ErrorData::internal_error(
                    format!("all {MAX_CLIENTS} client sessions of this server are busy: try again when a call ends"),
                    None,
                ));
            };
            // Its phones and engine stop off the runtime: that may take a moment.
            drop(tokio::task::spawn_blocking(move || drop(evicted)));
        }
        let mut client = Client::new(self.options.clone());
        client.set_name(name);
        let client = Arc::new(Mutex::new(client));
        clients.insert(key, Held { client: client.clone(), last_call: Instant::now() });
        Ok(client)
    }
}

/// The caller's key: see the module's doc.
fn client_key(context: &RequestContext<RoleServer>, args: &Map<String, Value>, single: bool) -> (String, String) {
    let name = context.client_info().map(|i| i.name).unwrap_or_else(|| "client".into());
    if single {
        return ("stdio".into(), name);
    }
    if let Some(id) = context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|p| p.headers.get("mcp-session-id"))
        .and_then(|v| v.to_str().ok())
    {
        return (format!("mcp-session:{id}"), name);
    }
    match args
        .get("session")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty() && s.chars().count() <= listed::MAX_SESSION_NAME)
    {
        Some(session) => (format!("named:{session}"), name),
        None => (format!("client:{name}"), name),
    }
}

/// One call, its arguments checked.
enum Call {
    RunScript { code: String, device: Option<String>, picture: Option<u32> },
    Observe { device: Option<String>, picture: Option<u32> },
    Screenshot { device: Option<String>, side: Option<u32> },
    ListDevices,
    StartSim { platform: Option<String> },
    Reset { device: Option<String> },
    ExportScript,
    Gesture { tool: String, call: ToolCall, device: Option<String> },
    RunTask { goal: String, device: Option<String>, max_steps: Option<usize> },
    Eval { tasks: String, agent: EvalAgent, instances: usize },
}

fn invalid(message: String) -> ErrorData {
    ErrorData::invalid_params(message, None)
}

/// Reads the arguments `tool` takes (the strings in `strings`, the booleans and the
/// integers), refusing any other and any of the wrong type.
struct Args<'a> {
    tool: &'a str,
    args: &'a Map<String, Value>,
}

impl<'a> Args<'a> {
    /// The `session` name, which every tool takes, checked.
    fn session(&self) -> Result<(), ErrorData> {
        match self.args.get("session") {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if s.chars().count() <= listed::MAX_SESSION_NAME => {}
            Some(_) => {
                return Err(invalid(format!(
                    "{}: session must be a name of at most {} characters",
                    self.tool,
                    listed::MAX_SESSION_NAME
                )));
            }
        }
        Ok(())
    }
    fn only(&self, names: &[&str]) -> Result<(), ErrorData> {
        match self.args.keys().find(|k| !names.contains(&k.as_str()) && k.as_str() != "session") {
            Some(k) => Err(invalid(format!(
                "{} takes no argument {:?}; it takes: {}",
                self.tool,
                codeact_base::terminal::clean(&k.chars().take(64).collect::<String>()),
                if names.is_empty() { "nothing".to_string() } else { names.join(", ") }
            ))),
            None => Ok(()),
        }
    }
    fn string(&self, name: &str) -> Result<Option<String>, ErrorData> {
        match self.args.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(invalid(format!("{}: {name} must be a string", self.tool))),
        }
    }
    fn flag(&self, name: &str) -> Result<bool, ErrorData> {
        match self.args.get(name) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(invalid(format!("{}: {name} must be true or false", self.tool))),
        }
    }
    fn side(&self) -> Result<Option<u32>, ErrorData> {
        match self.args.get("max_side") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => {
                match n.as_u64().filter(|n| (16..=u64::from(super::reply::MAX_PICTURE_SIDE)).contains(n)) {
                    Some(n) => Ok(Some(n as u32)),
                    None => Err(invalid(format!("{}: max_side must be an integer from 16 to 2000", self.tool))),
                }
            }
            Some(_) => Err(invalid(format!("{}: max_side must be an integer from 16 to 2000", self.tool))),
        }
    }
    /// An integer argument from `low` to `high`.
    fn count(&self, name: &str, low: u64, high: u64) -> Result<Option<usize>, ErrorData> {
        match self.args.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => match v.as_u64().filter(|n| (low..=high).contains(n)) {
                Some(n) => Ok(Some(n as usize)),
                None => Err(invalid(format!("{}: {name} must be an integer from {low} to {high}", self.tool))),
            },
        }
    }
    /// The screenshot asked for: its longest side, or none.
    fn picture(&self) -> Result<Option<u32>, ErrorData> {
        let side = self.side()?;
        Ok(self.flag("screenshot")?.then(|| side.unwrap_or(super::reply::MAX_PICTURE_SIDE)))
    }
}

impl CodeactServer {
    fn parse(&self, tool: &str, args: &Map<String, Value>) -> Result<Call, ErrorData> {
        let a = Args { tool, args };
        a.session()?;
        let listed = self.tools.iter().any(|t| t.name == tool);
        match tool {
            listed::RUN_SCRIPT if listed => {
                a.only(&["code", "device", "screenshot", "max_side"])?;
                let code = a.string("code")?.ok_or_else(|| invalid("run_script needs code: the Rhai script".into()))?;
                if code.len() > MAX_CODE_BYTES {
                    return Err(invalid(format!(
                        "run_script: the code is {} KiB; at most {} KiB: split it into several calls",
                        code.len() / 1024,
                        MAX_CODE_BYTES / 1024
                    )));
                }
                Ok(Call::RunScript { code, device: a.string("device")?, picture: a.picture()? })
            }
            listed::OBSERVE => {
                a.only(&["device", "screenshot", "max_side"])?;
                Ok(Call::Observe { device: a.string("device")?, picture: a.picture()? })
            }
            listed::SCREENSHOT => {
                a.only(&["device", "max_side"])?;
                Ok(Call::Screenshot { device: a.string("device")?, side: a.side()? })
            }
            listed::LIST_DEVICES => a.only(&[]).map(|()| Call::ListDevices),
            listed::START_SIM => {
                a.only(&["platform"])?;
                Ok(Call::StartSim { platform: a.string("platform")? })
            }
            listed::RESET => {
                a.only(&["device"])?;
                Ok(Call::Reset { device: a.string("device")? })
            }
            listed::EXPORT_SCRIPT => a.only(&[]).map(|()| Call::ExportScript),
            listed::RUN_TASK => {
                a.only(&["goal", "device", "max_steps"])?;
                let goal = a.string("goal")?.filter(|g| !g.trim().is_empty());
                let goal = goal.ok_or_else(|| invalid("run_task needs goal: what to do, in words".into()))?;
                if goal.len() > 4096 {
                    return Err(invalid("run_task: the goal is over 4 KiB; say it shorter".into()));
                }
                Ok(Call::RunTask { goal, device: a.string("device")?, max_steps: a.count("max_steps", 1, 500)? })
            }
            listed::EVAL => {
                a.only(&["tasks", "agent", "instances"])?;
                let tasks = a.string("tasks")?.filter(|t| !t.trim().is_empty());
                let tasks = tasks.ok_or_else(|| {
                    invalid("eval needs tasks: template ids or patterns, e.g. \"settings_wifi_*\"".into())
                })?;
                let agent = match a.string("agent")?.as_deref() {
                    None if self.options.agent.is_some() => EvalAgent::Llm,
                    None | Some("oracle") => EvalAgent::Oracle,
                    Some("llm") => EvalAgent::Llm,
                    Some(_) => return Err(invalid("eval: agent is oracle or llm".into())),
                };
                let instances = a.count("instances", 1, super::tasks::MAX_EVAL_INSTANCES as u64)?.unwrap_or(1);
                Ok(Call::Eval { tasks, agent, instances })
            }
            gesture if listed => {
                let mut rest = args.clone();
                rest.remove("session");
                let device = match rest.remove("device") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(d)) => Some(d),
                    Some(_) => return Err(invalid(format!("{gesture}: device must be a string"))),
                };
                let call = match self.options.settings.script_tools.tools.iter().find(|t| t.name == gesture) {
                    Some(rhai_tool) => script_call(rhai_tool, &rest),
                    None => gesture_call(gesture, &rest, Finish::Left),
                };
                let call = call.map_err(|e| invalid(e.to_string()))?;
                Ok(Call::Gesture { tool: gesture.to_string(), call, device })
            }
            unknown => {
                let names: Vec<&str> = self.tools.iter().map(|t| t.name.as_ref()).collect();
                let shown: String = codeact_base::terminal::clean(unknown).chars().take(64).collect();
                Err(invalid(format!("no tool {shown:?}; this server has: {}", names.join(", "))))
            }
        }
    }
}

/// Does `call` for `client`; the text and picture the client reads.
fn work(client: &mut Client, call: Call) -> Result<Answer, CallError> {
    let started = Instant::now();
    let (tool, result) = match call {
        Call::RunScript { code, device, picture } => return client.run_script(&code, device.as_deref(), picture),
        Call::Gesture { tool, call, device } => return client.run_call(&tool, &call, device.as_deref()),
        Call::Observe { device, picture } => (listed::OBSERVE, client.observe(device.as_deref(), picture)),
        Call::Screenshot { device, side } => (listed::SCREENSHOT, client.screenshot(device.as_deref(), side)),
        Call::ListDevices => (listed::LIST_DEVICES, Ok(super::devices::list_devices())),
        Call::StartSim { platform } => (listed::START_SIM, client.start_sim(platform.as_deref())),
        Call::Reset { device } => (listed::RESET, client.reset(device.as_deref())),
        Call::ExportScript => (listed::EXPORT_SCRIPT, client.export_script()),
        Call::RunTask { goal, device, max_steps } => {
            (listed::RUN_TASK, client.run_task(&goal, device.as_deref(), max_steps))
        }
        Call::Eval { tasks, agent, instances } => (listed::EVAL, client.eval(&tasks, agent, instances)),
    };
    let error = result.as_ref().err().map(|e| codeact_base::error_text::full_message(e));
    client.note_call(tool, None, started, error.as_deref());
    result
}

fn answered(answer: Answer) -> CallToolResult {
    let mut content = Vec::new();
    if !answer.text.is_empty() {
        content.push(ContentBlock::text(answer.text));
    }
    if let Some(png) = answer.picture {
        content.push(ContentBlock::image(base64::engine::general_purpose::STANDARD.encode(png), "image/png"));
    }
    if answer.failed { CallToolResult::error(content) } else { CallToolResult::success(content) }
}

/// Asks the client's person through elicitation (a form with one field), from a
/// blocking thread; `None` when the client declines, cancels or cannot answer.
fn elicitor(peer: Peer<RoleServer>, runtime: tokio::runtime::Handle) -> Human {
    Arc::new(move |request: &HumanRequest| {
        let (message, schema) = match request {
            HumanRequest::Confirm { .. } => (
                format!("codeact asks before a sensitive action: {}. Allow it?", request.text()),
                ElicitationSchema::builder().required_bool_property("allow", |b| b).build(),
            ),
            HumanRequest::Question { .. } | HumanRequest::TakeOver { .. } => (
                format!("codeact asks: {}", request.text()),
                ElicitationSchema::builder().required_string("answer").build(),
            ),
        };
        let schema = schema.ok()?;
        let params = ElicitRequestParams::FormElicitationParams { meta: None, message, requested_schema: schema };
        let reply = runtime.block_on(peer.create_elicitation_with_timeout(params, Some(ASK_TIMEOUT))).ok()?;
        if reply.action != ElicitationAction::Accept {
            return match request {
                HumanRequest::Confirm { .. } => Some("no".into()),
                _ => None,
            };
        }
        let content = reply.content?;
        match request {
            HumanRequest::Confirm { .. } => {
                Some(if content.get("allow").and_then(Value::as_bool) == Some(true) { "yes" } else { "no" }.into())
            }
            _ => content.get("answer").and_then(Value::as_str).map(str::to_string),
        }
    })
}

/// Whether the client can be asked now: it offers form elicitation, on a protocol
/// that lets a server ask (2026-07-28 does not).
fn can_elicit(context: &RequestContext<RoleServer>) -> bool {
    let modern = context.protocol_version().is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
    !modern && context.client_capabilities().is_some_and(|c| c.elicitation.is_some())
}

impl ServerHandler for CodeactServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("codeact", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "codeact drives a phone. Prefer run_script: one Rhai script does a whole interaction (open an \
                 app, tap, type, assert) in one call, and its answer shows what each action changed and the \
                 screen after it. Variables persist between calls. start_sim gives you a virtual phone.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let (key, name) = client_key(&context, &args, self.single_client);
        let client = self.client_for(key, &name)?;
        let call = match self.parse(&request.name, &args) {
            Ok(call) => call,
            Err(refused) => {
                // A refused call is recorded too, off the runtime: the client may be
                // busy with a long script.
                let (tool, why) = (
                    codeact_base::terminal::clean(&request.name).chars().take(64).collect::<String>(),
                    refused.message.to_string(),
                );
                let client = client.clone();
                let started = Instant::now();
                drop(tokio::task::spawn_blocking(move || {
                    codeact_record::trajectory::lock(&client).note_call(&tool, None, started, Some(&why))
                }));
                return Err(refused);
            }
        };
        let asker = can_elicit(&context).then(|| elicitor(context.peer.clone(), tokio::runtime::Handle::current()));
        // A call the client cancels (or an HTTP client that goes away) stops its script.
        let stop = context.ct.clone();
        let done = tokio::task::spawn_blocking(move || {
            let mut client = codeact_record::trajectory::lock(&client);
            client.set_asker(asker);
            client.set_stop(Some(stop));
            let result = work(&mut client, call);
            client.set_asker(None);
            client.set_stop(None);
            result
        })
        .await
        .map_err(|_| ErrorData::internal_error("the call stopped inside codeact; the server goes on", None))?;
        Ok(match done {
            Ok(answer) => answered(answer),
            Err(e) => CallToolResult::error(vec![ContentBlock::text(codeact_base::error_text::full_message(&e))]),
        }
        .into())
    }
}
