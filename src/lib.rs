//! codeact: an LLM drives a phone by writing small sandboxed Rhai scripts (the
//! CodeAct pattern). This crate is the binary (`src/cli/` maps flags to the modes'
//! requests and prints) and the one library face of the layers below, re-exported
//! under the names library users and the Python package have always used.
//!
//! The layers are crates, bottom up, and the compiler keeps their arrows pointing
//! down: `codeact-base` (files, clipping, error text, secrets, the terminal),
//! `codeact-platform` (the UI tree, devices and their backends, APKs, locating —
//! no Rhai), `codeact-engine` (the sandbox, its worker process, the emitter — no
//! device), `codeact-tools` (the tool catalog and the people in the loop),
//! `codeact-runtime` (personas, the LLM client, settings, the session),
//! `codeact-record` (run folders and events, the report, traces, memory), then the
//! modes: `codeact-flows` (Maestro flows, shards), `codeact-agent` (the loop),
//! `codeact-scripts` (exec, suites, heal, the REPL), `codeact-measure` (eval,
//! explore) and `codeact-serve` (mcp, studio, webdriver).
//! `docs/ARCHITECTURE.md` has one line per crate. The virtual phone the tests use
//! is its own crate, `codeact-sim`, reached only over its wire protocols.

/// The agent's loop (the `codeact-agent` crate).
pub use codeact_agent as agent;
pub use codeact_base::{clip, error_text, files, literals, secrets, terminal, token, toml_error, visible};
pub use codeact_base::{errln, out, outln};
pub use codeact_engine::{emit, isolation, sandbox};
pub use codeact_flows::{maestro, shard};
pub use codeact_measure::{eval, explore};
pub use codeact_platform::{apk, device, locate, ui};
pub use codeact_record::{memory, recorder, report, trace, trajectory};
pub use codeact_runtime::{config, llm, persona, session};
pub use codeact_scripts::{repl, script};
#[cfg(feature = "mcp")]
pub use codeact_serve::mcp;
#[cfg(feature = "studio")]
pub use codeact_serve::studio;
#[cfg(feature = "webdriver")]
pub use codeact_serve::webdriver;
/// The tool catalog (the `codeact-tools` crate).
pub use codeact_tools as tools;
pub use codeact_tools::human;
