//! What a run reports as it goes, for a caller to show ([`Progress`]); the CLI
//! prints it, the suite and the benches ignore it. Not the run's records
//! (`events.jsonl` is `trajectory/`'s).

use std::path::Path;

use codeact_record::trajectory::StepRecord;
use codeact_runtime::llm::Usage;

/// What the loop reports as it goes (the CLI prints it).
#[derive(Debug)]
pub enum Progress<'a> {
    Started { run_dir: &'a Path },
    Step { step: usize, max: usize },
    Reply { step: usize, headline: &'a str, usage: Usage, llm_ms: f64 },
    Ran { step: usize, record: &'a StepRecord },
    Note { step: usize, text: &'a str },
}

/// Where a run sends its progress.
pub type ProgressSink<'p> = dyn FnMut(Progress) + Send + 'p;
