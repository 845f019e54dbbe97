//! `codeact eval`: a seeded task suite on the virtual phone, judged on the phone's
//! state. Task templates are data (`eval/tasks/*.toml`, read by `task.rs`); their
//! parameters are drawn from a seed (`params.rs`); a judge is a Rhai expression in
//! an engine without tools (`judge.rs`); `runner.rs` runs instances on N phones with
//! the oracle or an LLM; `results.rs` sums them up and writes them out.
//!
//! Not an agent: the LLM loop is `agent/`, the oracle's scripts run through `script/`.

pub mod judge;
pub mod params;
pub mod results;
pub mod runner;
pub mod survival;
pub mod task;

pub use results::{InstanceResult, MergeError, Results, Summary, Totals, compare, merge, summarize};
pub use runner::{Agent, EvalError, EvalOptions, Fault, Job, LlmAgent, Recorded, plan, run_suite};
pub use task::{Kind, TaskError, TaskSpec, load, select};
