//! Runs a suite: spreads the planned instances over N phones (one worker thread
//! and one session each), runs each (`instance.rs`), and hands every result on as
//! it comes. Who does the tasks is an [`Agent`]. Not the plan (`job.rs`) or how
//! results are summed up (`results.rs`).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio_util::sync::CancellationToken;

use super::agents::Agent;
use super::instance::run_instance;
use super::job::{EvalOptions, Job};
use super::results::InstanceResult;
use super::task::TaskSpec;
use codeact_runtime::session::{OpenError, Session};

/// Why a suite could not run (a task's own failure is a result, not an error).
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("cannot open a phone for a worker")]
    Session(#[source] Box<OpenError>),
    #[error("cannot write {path}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Task(#[from] super::task::TaskError),
    #[error("{0} already holds an eval's runs; pick another --out or remove it")]
    OutInUse(PathBuf),
}

/// Refuses a folder that already holds an eval (its results would be mixed or lost).
pub fn check_out_dir(dir: &Path) -> Result<(), EvalError> {
    let runs_in_use = std::fs::read_dir(dir.join("runs")).is_ok_and(|mut entries| entries.next().is_some());
    if runs_in_use || dir.join("results.jsonl").exists() || dir.join("results.json").exists() {
        return Err(EvalError::OutInUse(dir.to_path_buf()));
    }
    Ok(())
}

/// Makes a session on a fresh virtual phone (called once per worker).
pub type SessionFactory<'a> = dyn Fn() -> Result<Session, OpenError> + Sync + 'a;

/// Runs `jobs` on `options.parallel` phones; `on_result` sees each instance as it
/// finishes (from any worker). Results come back in plan order.
pub fn run_suite(
    tasks: &[TaskSpec],
    jobs: &[Job],
    options: &EvalOptions,
    agent: &Agent,
    open_session: &SessionFactory,
    interrupt: &CancellationToken,
    on_result: &(dyn Fn(&InstanceResult) + Sync),
) -> Result<Vec<InstanceResult>, EvalError> {
    if std::fs::read_dir(options.out_dir.join("runs")).is_ok_and(|mut entries| entries.next().is_some()) {
        return Err(EvalError::OutInUse(options.out_dir.clone()));
    }
    std::fs::create_dir_all(options.out_dir.join("runs"))
        .map_err(|source| EvalError::Write { path: options.out_dir.join("runs"), source })?;
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, InstanceResult)>> = Mutex::new(Vec::new());
    let fatal: Mutex<Option<EvalError>> = Mutex::new(None);
    let workers = options.parallel.clamp(1, jobs.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let mut session = match open_session() {
                    Ok(s) => s,
                    Err(e) => {
                        lock(&fatal).get_or_insert(EvalError::Session(Box::new(e)));
                        return;
                    }
                };
                loop {
                    if interrupt.is_cancelled() || lock(&fatal).is_some() {
                        return;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(job) = jobs.get(i) else { return };
                    let result = run_instance(&mut session, &tasks[job.task], job, options, agent, interrupt);
                    if result.stopped_suite.is_some() {
                        interrupt.cancel();
                    }
                    on_result(&result);
                    lock(&done).push((i, result));
                }
            });
        }
    });
    if let Some(e) = lock(&fatal).take() {
        return Err(e);
    }
    let mut done = std::mem::take(&mut *lock(&done));
    done.sort_by_key(|(i, _)| *i);
    Ok(done.into_iter().map(|(_, r)| r).collect())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
