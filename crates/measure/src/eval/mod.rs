//! `codeact eval`: a seeded task suite on the virtual phone, judged on the phone's
//! state. Task templates are data (`eval/tasks/*.toml`, read by `task.rs`); their
//! parameters are drawn from a seed (`params.rs`); a judge is a Rhai expression in
//! an engine without tools (`judge.rs`); `job.rs` plans the instances, `agents.rs`
//! says who does them, `instance.rs` runs one, `runner.rs` runs them on N phones;
//! `results.rs` sums them up and writes them out; `suite.rs` is the whole suite as one
//! call, `formats.rs` sets the action formats' suites side by side (`prices.rs`: what
//! their tokens cost), `survival/` the replay-survival measurement; `gallery.rs` says which
//! reference pictures the sessions look for; `choice.rs` which templates a run takes,
//! `result_files.rs` what is done with results already written (compare, merge).
//!
//! Not an agent: the LLM loop is `agent/`, the oracle's scripts run through `script/`.

pub mod agents;
pub mod choice;
pub mod fill;
pub mod formats;
pub mod gallery;
mod instance;
pub mod job;
pub mod judge;
pub mod params;
pub mod prices;
pub mod result_files;
pub mod results;
pub mod runner;
pub mod suite;
pub mod survival;
pub mod tags;
pub mod task;

pub use agents::{Agent, LlmAgent, Recorded};
pub use choice::{Choice, ChoiceError, Chosen};
pub use instance::InstanceError;
pub use job::{EvalOptions, Fault, Job, plan};
pub use result_files::{CompareRequest, MergeRequest, MergeRunError};
pub use results::{InstanceResult, MergeError, Results, SuiteSummary, Totals, compare, merge, summarize};
pub use runner::{EvalError, run_suite};
pub use task::{Kind, TaskError, TaskSpec, load, select};
