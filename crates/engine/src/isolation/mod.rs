//! Process isolation for the sandbox: each session's engine runs in a worker process
//! (this program re-executed) under an address-space cap, a CPU cap and the engine's
//! own limits, while the tools, the device, the keys and the trajectory stay in the
//! runtime. Tool calls cross a pipe (`frames.rs` on `wire.rs`, framed and timed by
//! `pipe.rs`); `process.rs` is the runtime's side (which program it starts is
//! `program.rs`'s, what answers tool calls `host.rs`'s, a worker's end `death.rs`'s),
//! `worker.rs` the worker's (how a process becomes one, `entry.rs`'s), and
//! `os_limits.rs` the kernel's backstops.
//!
//! Why tools run in the runtime rather than in the worker: the worker then holds
//! nothing worth stealing and needs no connection of its own, and a tool call costs
//! one round trip of a few microseconds (both sides spin briefly before they sleep),
//! measured against the whole 10-call snippet in `benches/snippet.rs`.

mod death;
mod entry;
mod frame_encoding;
mod frames;
mod host;
mod os_limits;
mod pipe;
mod process;
mod program;
mod wire;
mod worker;

pub use entry::{WORKER_ARG, serve_if_worker, serve_worker};
pub use frames::{Param, ToWorker, ToolOutcome, ToolSignature};
pub use host::Host;
pub use process::{CompiledRef, Ran, WorkerProcess};
pub use program::{IsolationError, WorkerProgram};
pub use wire::{MAX_NESTING, WireError};
