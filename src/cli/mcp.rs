//! `codeact mcp`: the MCP server, over stdio (default) or streamable HTTP on
//! 127.0.0.1 with a bearer token.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use codeact::config::Flags;
use std::sync::Arc;

use codeact::agent::Models;
use codeact::llm::{LlmClient, LlmConfig, LlmError};
use codeact::mcp::{AgentSetup, Expose, McpOptions};
use codeact::tools::{Recording, SensitivePolicy};

use super::args::{DeviceArgs, LlmArgs, SessionArgs, TraceArgs, Vision, finish_traces};

/// Serve codeact to MCP clients (coding agents, agent frameworks, the MCP
/// Inspector): one `run_script` tool runs a whole Rhai script on the phone in one
/// call ("code mode"), in a session per client whose variables persist, under every
/// sandbox limit; `observe`, `screenshot`, `list_devices`, `start_sim`, `reset`,
/// `export_script`, `run_task` (codeact's own agent, with --model) and `eval`
/// (templates of the task suite) go with it. Each client's calls are written to a
/// run folder under --out as they happen, with session.rhai, the replayable script
/// of its session.
///
/// stdio (the client starts codeact):
///   {"mcpServers": {"phone": {"command": "codeact", "args": ["mcp", "--device", "sim"]}}}
///
/// streamable HTTP on 127.0.0.1 only; the bearer token is printed once at start
/// (or taken from $CODEACT_MCP_TOKEN):
///   codeact mcp --http 8765 --device sim
///   → http://127.0.0.1:8765/mcp, header Authorization: Bearer TOKEN
///
/// Sensitive actions (pay, delete... and [sensitive] rules) are confirmed by the
/// client's person through MCP elicitation when the client offers it; otherwise
/// --answers, else they are refused (--sensitive allow lets them through).
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct McpArgs {
    #[command(flatten)]
    device: DeviceArgs,
    #[command(flatten)]
    session: SessionArgs,
    /// Serve streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio (0: any
    /// free port, printed at start).
    #[arg(long, value_name = "PORT")]
    http: Option<u16>,
    /// Which tools are listed: code (run_script and the server's tools), tools (each
    /// codeact tool as an MCP tool of its own, one call per gesture, as other mobile
    /// servers do) or both.
    #[arg(long, value_enum, default_value = "code", value_name = "WHICH")]
    expose: Expose,
    /// Where each client's run folder is made.
    #[arg(long, default_value = "runs", value_name = "DIR")]
    out: PathBuf,
    /// The model run_task and eval's llm agent use (optional: without one they say
    /// how to give one; run_script needs none).
    #[command(flatten)]
    llm: LlmArgs,
    /// The most steps run_task takes when the call does not say.
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u32).range(1..=500))]
    max_steps: u32,
    /// Whether run_task's model sees a screenshot each step: auto (as the persona
    /// says), on or off.
    #[arg(long, value_enum, default_value = "auto")]
    vision: Vision,
    #[command(flatten)]
    traces: TraceArgs,
}

impl McpArgs {
    /// The model for run_task and eval: none when nothing names one (no flag, no
    /// key, no [llm] section); a model named wrongly is an error at start.
    fn agent_setup(&self, settings: &codeact::config::Settings) -> anyhow::Result<Option<AgentSetup>> {
        let config = match LlmConfig::resolve(&settings.llm, &self.llm.flags()) {
            Ok(config) => config,
            Err(LlmError::NotConfigured { .. }) if !self.llm.given() => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let persona = settings.agent_persona()?;
        Ok(Some(AgentSetup {
            models: Arc::new(Models::single(LlmClient::new(config)?)),
            vision: self.vision.for_persona(&persona),
            persona,
            max_steps: self.max_steps as usize,
        }))
    }

    pub fn serve(self) -> anyhow::Result<ExitCode> {
        let defaults = Flags {
            default_sensitive: Some(SensitivePolicy::Ask),
            default_record: Some(Recording::All),
            ..Flags::default()
        };
        let mut settings = self.session.settings(&self.device, defaults)?;
        // stdin and stdout are the protocol's: nobody answers at this terminal.
        settings.helpers.person = self.session.person(false)?;
        let agent = self.agent_setup(&settings)?;
        let traces = self.traces.start()?;
        let options =
            McpOptions { settings, out: self.out.clone(), expose: self.expose, agent, traces: traces.clone() };
        let runtime = super::interrupt::runtime()?;
        let served = self.run(options, &runtime);
        // Each client's session closed its spans as it went; the last are sent now.
        finish_traces(traces.as_deref());
        served
    }

    fn run(&self, options: McpOptions, runtime: &tokio::runtime::Runtime) -> anyhow::Result<ExitCode> {
        match self.http {
            None => runtime.block_on(codeact::mcp::serve_stdio(options)).context("codeact mcp over stdio")?,
            Some(port) => {
                let token = match std::env::var("CODEACT_MCP_TOKEN") {
                    Ok(t) if t.trim().len() >= 16 => t.trim().to_string(),
                    Ok(t) if !t.trim().is_empty() => {
                        anyhow::bail!(
                            "CODEACT_MCP_TOKEN is too short: use at least 16 characters, or unset it for a random one"
                        )
                    }
                    _ => codeact::mcp::new_token()?,
                };
                let interrupt = super::interrupt::cancel_on_signal(runtime, "the MCP server");
                let shown = token.clone();
                let served = codeact::mcp::serve_http(options, port, token, interrupt.token.clone(), move |at| {
                    codeact::errln!("codeact mcp: serving http://{at}/mcp (Ctrl-C stops it)");
                    codeact::errln!("header: Authorization: Bearer {shown}");
                });
                runtime.block_on(served).context("codeact mcp over HTTP")?;
                if let Some(code) = interrupt.exit_code() {
                    return Ok(ExitCode::from(code));
                }
            }
        }
        Ok(ExitCode::SUCCESS)
    }
}
