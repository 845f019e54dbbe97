//! The replay-survival measurement as a library call: record the oracle once per
//! operation template on the apps as written, then replay each recording under
//! layout variants 0..=[`LAST_VARIANT`] as coordinates, `ui_state` indices,
//! selectors, and (with a healer) selectors from memory with the LLM healing only
//! the steps that no longer fit. Writes everything under the request's folder
//! (each form's scripts under `recorded/`, each cell's `results.jsonl`,
//! `survival.md`, `survival.json`) and returns the table. Not the flags or the
//! printing (`codeact eval --survival`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use super::forms::{self, Form, LAST_VARIANT};
use super::table::Table;
use crate::eval::agents::{Agent, LlmAgent, Recorded};
use crate::eval::job::{EvalOptions, plan};
use crate::eval::results::InstanceResult;
use crate::eval::runner::{EvalError, SessionFactory, check_out_dir, run_suite};
use crate::eval::task::{Kind, TaskSpec};
use codeact_agent::{Models, SaveMode, Strategy};
use codeact_runtime::persona::{Persona, PersonaError};

/// What to measure, and where to write it.
pub struct SurvivalRequest<'a> {
    /// The templates; only operation templates (judged on the phone's state) count.
    pub tasks: Vec<TaskSpec>,
    pub seed: u64,
    /// Virtual phones at once.
    pub parallel: usize,
    /// Where everything is written (refused when it holds an eval already).
    pub out_dir: PathBuf,
    pub traces: Option<Arc<codeact_record::trace::Traces>>,
    /// Who heals the selectors+healing column (`None`: that column is left out).
    pub healer: Option<Healer<'a>>,
}

/// The LLM side of the selectors+healing column.
pub struct Healer<'a> {
    pub models: &'a Models,
    pub strategy: Strategy,
    pub error_threshold: usize,
    pub save: SaveMode,
    /// The runtime the healer's requests run on (multi-threaded).
    pub runtime: tokio::runtime::Handle,
}

/// What the measurement reports as it goes.
#[derive(Debug)]
pub enum SurvivalProgress<'a> {
    /// The oracle starts recording this many operation templates.
    Recording { templates: usize },
    /// Templates the oracle did not solve: left out of the table.
    LeftOut(&'a [String]),
    /// One cell is done: a form replayed under a variant.
    Cell { variant: u32, form: Form, solved: usize, instances: usize, llm_calls: usize },
}

/// The measurement's result.
#[derive(Debug)]
pub struct Survival {
    pub table: Table,
    /// `survival.md` (beside it `survival.json`; the scripts under `recorded/`).
    pub markdown: PathBuf,
    /// Ctrl-C came: the table holds the cells done before it (and nothing was written
    /// as the whole table).
    pub interrupted: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum SurvivalError {
    #[error(
        "the survival measurement replays operation templates (judged on the phone's state), and none is selected; `codeact eval --list` shows each template's kind"
    )]
    NoOperationTemplates,
    #[error("no recording to replay: the oracle solved none of the selected templates")]
    NothingRecorded,
    #[error(transparent)]
    Eval(#[from] EvalError),
    #[error("cannot keep the recordings in the healer's memory")]
    Memory(#[from] codeact_record::memory::MemoryError),
    #[error(transparent)]
    Persona(#[from] PersonaError),
    #[error("cannot write {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("stopped: the healer never answered ({0}); check the LLM's address, model and key, then run again")]
    HealerSilent(String),
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), SurvivalError> {
    codeact_base::files::write_replacing(path, bytes)
        .map_err(|source| SurvivalError::Write { path: path.into(), source })
}

fn create(dir: &Path) -> Result<(), SurvivalError> {
    std::fs::create_dir_all(dir).map_err(|source| SurvivalError::Write { path: dir.into(), source })
}

/// The persona the healer acts with: big_agent, plus any tool a recording used
/// (a replayed step must be allowed to run).
fn healer_persona(recordings: &HashMap<String, Recorded>) -> Result<Persona, PersonaError> {
    let mut persona = Persona::load("big_agent")?;
    for run in recordings.values() {
        for action in &run.actions {
            if action.tool != "watcher" && !persona.tools.contains(&action.tool) {
                persona.tools.push(action.tool.clone());
            }
        }
    }
    Ok(persona)
}

/// Writes each template's script of one form under `dir`, for a person to read.
fn write_scripts(dir: &Path, scripts: &HashMap<String, String>) -> Result<(), SurvivalError> {
    create(dir)?;
    for (id, code) in scripts {
        write(&dir.join(format!("{id}.rhai")), code.as_bytes())?;
    }
    Ok(())
}

/// One cell's results: `results.jsonl` in its folder, and its progress.
fn keep_cell(
    dir: &Path,
    variant: u32,
    form: Form,
    results: &[InstanceResult],
    table: &mut Table,
    progress: &mut dyn FnMut(SurvivalProgress),
) -> Result<(), SurvivalError> {
    let lines: Vec<String> = results.iter().filter_map(|r| serde_json::to_string(r).ok()).collect();
    write(&dir.join("results.jsonl"), (lines.join("\n") + "\n").as_bytes())?;
    let solved = results.iter().filter(|r| r.score >= 1.0).count();
    let llm_calls = results.iter().map(|r| r.llm_calls).sum();
    progress(SurvivalProgress::Cell { variant, form, solved, instances: results.len(), llm_calls });
    table.add(variant, form, results);
    Ok(())
}

/// Measures how recorded runs survive app updates; `open_session` makes each
/// worker's session on a fresh virtual phone.
pub fn measure(
    request: SurvivalRequest,
    open_session: &SessionFactory,
    interrupt: &CancellationToken,
    progress: &mut dyn FnMut(SurvivalProgress),
) -> Result<Survival, SurvivalError> {
    let tasks: Vec<TaskSpec> = request.tasks.into_iter().filter(|t| t.kind == Kind::Operation).collect();
    if tasks.is_empty() {
        return Err(SurvivalError::NoOperationTemplates);
    }
    let out_dir = &request.out_dir;
    check_out_dir(out_dir)?;
    create(out_dir)?;
    let options = |variant: u32, name: &str| EvalOptions {
        seed: request.seed,
        instances: 1,
        repeat: 1,
        parallel: request.parallel,
        shard: None,
        faults: Vec::new(),
        variant,
        out_dir: out_dir.join(name),
        traces: request.traces.clone(),
    };
    let quiet = |_: &InstanceResult| {};

    // The recording: the oracle on the apps as written, every action kept.
    let kept = Mutex::new(HashMap::new());
    let recording = options(0, "recorded");
    let jobs = plan(&tasks, &recording);
    progress(SurvivalProgress::Recording { templates: tasks.len() });
    run_suite(&tasks, &jobs, &recording, &Agent::Recorder(&kept), open_session, interrupt, &quiet)?;
    let mut recordings = kept.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut dropped: Vec<String> = recordings.iter().filter(|(_, r)| r.score < 1.0).map(|(id, _)| id.clone()).collect();
    dropped.sort();
    recordings.retain(|_, r| r.score >= 1.0);
    if !dropped.is_empty() {
        progress(SurvivalProgress::LeftOut(&dropped));
    }
    let tasks: Vec<TaskSpec> = tasks.into_iter().filter(|t| recordings.contains_key(&t.id)).collect();
    if tasks.is_empty() {
        return Err(SurvivalError::NothingRecorded);
    }
    let form_scripts = |convert: fn(&[codeact_engine::sandbox::Action]) -> String| -> HashMap<String, String> {
        recordings.iter().map(|(id, r)| (id.clone(), convert(&r.actions))).collect()
    };
    let scripts: Vec<(Form, HashMap<String, String>)> = vec![
        (Form::Coordinates, form_scripts(forms::coordinates_script)),
        (Form::Indices, form_scripts(forms::indices_script)),
        (Form::Selectors, form_scripts(forms::selectors_script)),
    ];
    for (form, by_id) in &scripts {
        write_scripts(&out_dir.join("recorded").join(form.as_str()), by_id)?;
    }
    let experiences: Vec<codeact_record::memory::Experience> =
        recordings.values().map(|r| forms::experience(&r.goal, &r.actions)).collect();
    let longest = experiences.iter().map(|e| e.steps.len()).max().unwrap_or(0);
    let persona = healer_persona(&recordings)?;

    let mut table = Table { templates: tasks.len(), ..Table::default() };
    let jobs = plan(&tasks, &options(0, ""));
    for variant in 0..=LAST_VARIANT {
        for (form, by_id) in &scripts {
            let opts = options(variant, &format!("v{variant}-{}", form.as_str()));
            let results = run_suite(&tasks, &jobs, &opts, &Agent::Scripts(by_id), open_session, interrupt, &quiet)?;
            keep_cell(&opts.out_dir, variant, *form, &results, &mut table, progress)?;
        }
        if let Some(healer) = &request.healer {
            let opts = options(variant, &format!("v{variant}-healing"));
            let store_path = opts.out_dir.join("memory.sqlite");
            create(&opts.out_dir)?;
            let store = codeact_record::memory::Store::open(&store_path)?;
            for experience in &experiences {
                store.add(experience)?;
            }
            drop(store);
            let agent = Agent::Llm(LlmAgent {
                models: healer.models,
                persona: &persona,
                strategy: healer.strategy,
                reflect_every: 0,
                tree_depth: 3,
                actions: codeact_agent::ActionFormat::Code,
                vision: false,
                error_threshold: healer.error_threshold,
                verify_completion: false,
                save: healer.save,
                runtime: healer.runtime.clone(),
                memory: Some((store_path, longest)),
                max_steps: None,
            });
            let results = run_suite(&tasks, &jobs, &opts, &agent, open_session, interrupt, &quiet)?;
            if let Some(why) = results.iter().find_map(|r| r.stopped_suite.as_ref()) {
                return Err(SurvivalError::HealerSilent(why.clone()));
            }
            keep_cell(&opts.out_dir, variant, Form::Healing, &results, &mut table, progress)?;
        }
        if interrupt.is_cancelled() {
            return Ok(Survival { table, markdown: out_dir.join("survival.md"), interrupted: true });
        }
    }
    let markdown = out_dir.join("survival.md");
    write(&markdown, table.markdown().as_bytes())?;
    // A table of numbers and names always serializes.
    let json = serde_json::to_string_pretty(&table).unwrap_or_default();
    write(&out_dir.join("survival.json"), json.as_bytes())?;
    Ok(Survival { table, markdown, interrupted: false })
}
