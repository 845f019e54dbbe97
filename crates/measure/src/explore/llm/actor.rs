//! The actor of `--strategy llm`: the task handed to the agent exactly as
//! `codeact run` would run it (`agent::run_task`: its loop, watchers, gates,
//! completion check, step budget, memory; react or tree as `--actor` says), in a
//! run folder of its own under the
//! exploration's `tasks/`, with its step records kept for the observer. Not what
//! the task is (`planner.rs`) nor what it changed (`observer.rs`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::super::options::ModelSetup;
use codeact_agent::{self as agent, AgentOptions};
use codeact_record::trajectory::{StepRecord, lock};
use codeact_runtime::session::Session;

/// Runs `goal` on the screen the app is on; the agent's summary and its steps.
pub(super) async fn do_task(
    session: &mut Session,
    setup: &ModelSetup<'_>,
    cancel: &tokio_util::sync::CancellationToken,
    out_dir: &Path,
    memory: Option<PathBuf>,
    goal: &str,
) -> Result<(agent::RunSummary, Vec<StepRecord>), String> {
    let options = AgentOptions {
        max_steps: setup.task_steps,
        vision: setup.vision,
        out_dir: out_dir.to_path_buf(),
        device_spec: setup.device_spec.clone(),
        memory,
        embeddings: setup.embeddings.clone(),
        strategy: setup.actor,
        tree_depth: setup.tree_depth,
        actions: setup.actions,
        // The exploration has its own reviewer, who reads whole tasks.
        reflect_every: 0,
        ..AgentOptions::new(goal)
    };
    let records: Arc<Mutex<Vec<StepRecord>>> = Arc::default();
    let kept = records.clone();
    let mut sink = move |p: agent::Progress<'_>| {
        if let agent::Progress::Ran { record, .. } = p {
            lock(&kept).push(record.clone());
        }
    };
    let summary = agent::run_task(
        agent::AgentRequest { session, models: setup.models, persona: setup.persona, options: &options },
        cancel,
        &mut sink,
    )
    .await
    .map_err(|e| codeact_base::error_text::full_message(&e))?;
    let records = std::mem::take(&mut *lock(&records));
    Ok((summary, records))
}
