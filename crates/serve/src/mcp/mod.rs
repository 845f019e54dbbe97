//! `codeact mcp`: codeact as an MCP server, on the official SDK (`rmcp`), over
//! stdio or streamable HTTP on 127.0.0.1 (bearer token required). Code mode:
//! `run_script` runs a Rhai snippet in a persistent session per client and device,
//! under every sandbox limit, and answers with what it printed and did, its error
//! (line and column) and the screen after it; `observe`, `screenshot`,
//! `list_devices`, `start_sim`, `reset` and `export_script` go with it, and, when
//! asked, every catalog tool one by one (`--expose tools`). Every call is written
//! to the client's run directory as it happens; the session exports as a script.
//!
//! `tools.rs` lists the tools, the runtime's `tools::json_calls` makes the catalog's tools MCP tools,
//! `options.rs` is what a server starts with, `server.rs` speaks the protocol, `client.rs`
//! does a client's work, `tasks.rs` hands goals to the agent and the task suite, `record.rs`
//! writes its run directory, `reply.rs` words the answers, `serve.rs` has the
//! transports. Not here: the CLI's flags (`cli/mcp.rs`).

mod client;
mod devices;
mod options;
mod reply;
mod serve;
mod server;
mod tasks;
mod tools;

pub use crate::served::SESSION_SCRIPT;
pub use client::{Answer, CallError, Client};
pub use options::{AgentSetup, Expose, McpOptions};
pub use reply::{MAX_PICTURE_SIDE, PictureError, run_text, scaled_png};
pub use serve::{MAX_HTTP_SESSIONS, MAX_REQUEST_BYTES, McpServeError, new_token, serve_http, serve_stdio};
pub use server::{CodeactServer, MAX_CLIENTS};
pub use tasks::{EvalAgent, MAX_EVAL_INSTANCES};
pub use tools::{MAX_CODE_BYTES, listed_tools};
