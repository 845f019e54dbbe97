//! `codeact eval --survival`: records the oracle once per operation template on the
//! apps as written, then replays each recording under layout variants 0..3 as
//! coordinates, `ui_state` indices, selectors, and selectors from memory with the
//! LLM healing only the steps that no longer fit; prints the table. Not the
//! conversions (`eval::survival`) or the instance runner (`eval::runner`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;

use anyhow::Context;
use codeact::config::Flags;
use codeact::device::DeviceSpec;
use codeact::eval::survival::{self, Form, Table};
use codeact::eval::{self, Agent, EvalOptions, InstanceResult, Kind, LlmAgent, Recorded, TaskSpec};
use codeact::llm::LlmError;
use codeact::persona::Persona;
use codeact::session::Session;
use codeact::terminal::clean;
use codeact::tools::{Recording, SensitivePolicy};

use super::args::DeviceArgs;
use super::eval::EvalArgs;

/// The persona the healer acts with: big_agent, plus any tool a recording used
/// (a replayed step must be allowed to run).
fn healer_persona(recordings: &HashMap<String, Recorded>) -> anyhow::Result<Persona> {
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
fn write_scripts(dir: &Path, scripts: &HashMap<String, String>) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for (id, code) in scripts {
        let path = dir.join(format!("{id}.rhai"));
        codeact::files::write_replacing(&path, code.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

pub(super) fn measure(
    args: &EvalArgs,
    tasks: Vec<TaskSpec>,
    traces: Option<std::sync::Arc<codeact::trace::Traces>>,
) -> anyhow::Result<ExitCode> {
    let tasks: Vec<TaskSpec> = tasks.into_iter().filter(|t| t.kind == Kind::Operation).collect();
    if tasks.is_empty() {
        anyhow::bail!(
            "--survival replays operation templates (judged on the phone's state), and --tasks selects none; `codeact eval --list` shows each template's kind"
        );
    }
    let device = DeviceArgs { device: Some("sim".into()), timeout: None };
    let defaults = Flags {
        default_record: Some(Recording::None),
        default_sensitive: Some(SensitivePolicy::Allow),
        ..Flags::default()
    };
    let settings = args.session.settings(&device, defaults)?;
    let out_dir = args.out.clone().unwrap_or_else(|| {
        PathBuf::from("evals").join(format!("{}-survival", jiff::Timestamp::now().strftime("%Y%m%d-%H%M%S")))
    });
    eval::runner::check_out_dir(&out_dir)?;
    std::fs::create_dir_all(&out_dir).with_context(|| format!("cannot create {}", out_dir.display()))?;
    let runtime = super::interrupt::runtime()?;
    let models = match args.strategy.models(&settings.llm, &args.llm) {
        Ok(models) => Some(models),
        Err(e) if matches!(e.downcast_ref::<LlmError>(), Some(LlmError::NotConfigured { .. })) => {
            codeact::errln!(
                "no LLM configured: the selectors+healing column is left out (give --base-url and --model to measure it)"
            );
            None
        }
        Err(e) => return Err(e),
    };
    let interrupt = super::interrupt::cancel_on_ctrl_c(&runtime, "the instances under way");
    let person = args.session.person(false)?;
    let open_session = || -> Result<Session, Box<dyn std::error::Error + Send + Sync>> {
        let device = codeact::device::open(&DeviceSpec::parse(Some("sim")), settings.device_timeout)?;
        let mut session = Session::new(device, &settings)?;
        session.set_human(person.clone());
        Ok(session)
    };
    let options = |variant: u32, name: &str| EvalOptions {
        seed: args.seed,
        instances: 1,
        repeat: 1,
        parallel: args.parallel as usize,
        shard: None,
        faults: Vec::new(),
        variant,
        out_dir: out_dir.join(name),
        traces: traces.clone(),
    };
    let quiet = |_: &InstanceResult| {};

    // The recording: the oracle on the apps as written, every action kept.
    let kept = Mutex::new(HashMap::new());
    let recording = options(0, "recorded");
    let jobs = eval::plan(&tasks, &recording);
    codeact::errln!(
        "codeact eval --survival: recording {} operation templates (seed {}) in {}",
        tasks.len(),
        args.seed,
        out_dir.display()
    );
    eval::run_suite(&tasks, &jobs, &recording, &Agent::Recorder(&kept), &open_session, &interrupt, &quiet)?;
    let mut recordings = kept.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut dropped: Vec<String> = recordings.iter().filter(|(_, r)| r.score < 1.0).map(|(id, _)| id.clone()).collect();
    dropped.sort();
    recordings.retain(|_, r| r.score >= 1.0);
    if !dropped.is_empty() {
        codeact::errln!("left out (the oracle did not solve them): {}", dropped.join(", "));
    }
    let tasks: Vec<TaskSpec> = tasks.into_iter().filter(|t| recordings.contains_key(&t.id)).collect();
    if tasks.is_empty() {
        anyhow::bail!("no recording to replay: the oracle solved none of the selected templates");
    }
    let form_scripts = |convert: fn(&[codeact::sandbox::Action]) -> String| -> HashMap<String, String> {
        recordings.iter().map(|(id, r)| (id.clone(), convert(&r.actions))).collect()
    };
    let scripts: Vec<(Form, HashMap<String, String>)> = vec![
        (Form::Coordinates, form_scripts(survival::coordinates_script)),
        (Form::Indices, form_scripts(survival::indices_script)),
        (Form::Selectors, form_scripts(survival::selectors_script)),
    ];
    for (form, by_id) in &scripts {
        write_scripts(&out_dir.join("recorded").join(form.as_str()), by_id)?;
    }
    let experiences: Vec<codeact::memory::Experience> =
        recordings.values().map(|r| survival::experience(&r.goal, &r.actions)).collect();
    let longest = experiences.iter().map(|e| e.steps.len()).max().unwrap_or(0);
    let persona = healer_persona(&recordings)?;

    let mut table = Table { templates: tasks.len(), ..Table::default() };
    let jobs = eval::plan(&tasks, &options(0, ""));
    for variant in 0..=survival::LAST_VARIANT {
        for (form, by_id) in &scripts {
            let opts = options(variant, &format!("v{variant}-{}", form.as_str()));
            let results =
                eval::run_suite(&tasks, &jobs, &opts, &Agent::Scripts(by_id), &open_session, &interrupt, &quiet)?;
            report_cell(&opts.out_dir, variant, *form, &results)?;
            table.add(variant, *form, &results);
        }
        if let Some(models) = &models {
            let opts = options(variant, &format!("v{variant}-healing"));
            let store_path = opts.out_dir.join("memory.sqlite");
            std::fs::create_dir_all(&opts.out_dir)
                .with_context(|| format!("cannot create {}", opts.out_dir.display()))?;
            let store = codeact::memory::Store::open(&store_path)?;
            for experience in &experiences {
                store.add(experience)?;
            }
            drop(store);
            let agent = Agent::Llm(LlmAgent {
                models,
                persona: &persona,
                strategy: args.strategy.strategy,
                reflect_every: 0,
                vision: false,
                error_threshold: args.checks.error_threshold,
                verify_completion: false,
                save: args.save_trajectory,
                runtime: runtime.handle().clone(),
                memory: Some((store_path, longest)),
            });
            let results = eval::run_suite(&tasks, &jobs, &opts, &agent, &open_session, &interrupt, &quiet)?;
            if let Some(why) = results.iter().find_map(|r| r.stopped_suite.as_ref()) {
                anyhow::bail!(
                    "stopped: the healer never answered ({}); check --base-url, --model and the key, then run again",
                    clean(why)
                );
            }
            report_cell(&opts.out_dir, variant, Form::Healing, &results)?;
            table.add(variant, Form::Healing, &results);
        }
        if interrupt.is_cancelled() {
            return Ok(ExitCode::from(130));
        }
    }
    let markdown = table.markdown();
    let path = out_dir.join("survival.md");
    codeact::files::write_replacing(&path, markdown.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    let json = serde_json::to_string_pretty(&table).context("cannot write the table as JSON")?;
    let json_path = out_dir.join("survival.json");
    codeact::files::write_replacing(&json_path, json.as_bytes())
        .with_context(|| format!("cannot write {}", json_path.display()))?;
    codeact::out!("{}", clean(&markdown));
    codeact::errln!("table: {} (and survival.json; each form's scripts under recorded/)", path.display());
    Ok(ExitCode::SUCCESS)
}

/// One line per replayed suite, and its results (results.jsonl in its folder).
fn report_cell(dir: &Path, variant: u32, form: Form, results: &[InstanceResult]) -> anyhow::Result<()> {
    let lines: Vec<String> = results.iter().filter_map(|r| serde_json::to_string(r).ok()).collect();
    let path = dir.join("results.jsonl");
    codeact::files::write_replacing(&path, (lines.join("\n") + "\n").as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    let solved = results.iter().filter(|r| r.score >= 1.0).count();
    let calls: usize = results.iter().map(|r| r.llm_calls).sum();
    let calls = if form == Form::Healing { format!(", {calls} LLM calls") } else { String::new() };
    codeact::errln!("variant {variant}, {:<17} {solved}/{} solved{calls}", form.as_str(), results.len());
    Ok(())
}
