//! The CodeAct ReAct loop: observe what the persona needs, ask the model, run the Rhai
//! snippet it wrote in the session, feed the result back, until `complete()`, the step
//! budget, a loop, an interrupt or a lost device ends the run. Every event goes to the
//! run directory as it happens; at the end the run is exported as replayable scripts.
//!
//! The loop is async (the LLM request); device and sandbox work is blocking and runs
//! in `block_in_place`. This module decides nothing about prompts' wording (`prompt`)
//! or files' layout (`trajectory`).

pub mod prompt;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::json;

use crate::llm::{LlmClient, Usage, extract};
use crate::persona::Persona;
use crate::session::Session;
use crate::trajectory::{self, Trajectory, TrajectoryError, export};

/// What a run keeps besides events: files per step, per action, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SaveMode {
    /// The screenshot and UI dump the model saw at each step.
    Step,
    /// The screenshot and UI dump after every action (set the tools' recording too).
    Action,
    None,
}

impl std::str::FromStr for SaveMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "step" => Ok(SaveMode::Step),
            "action" => Ok(SaveMode::Action),
            "none" => Ok(SaveMode::None),
            other => Err(format!("{other:?}: use step, action or none")),
        }
    }
}

#[derive(Debug, Clone)]
pub struct AgentOptions {
    pub task: String,
    pub max_steps: usize,
    /// Show the model a screenshot each step.
    pub vision: bool,
    pub save: SaveMode,
    /// Where run directories are made (`runs/`).
    pub out_dir: PathBuf,
    /// The same snippet on an unchanged screen this many times in a row ends the run.
    pub loop_limit: usize,
    /// How the device was named (`sim`, a serial), for the replay command.
    pub device_spec: Option<String>,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// `complete(true, ..)`.
    Success,
    /// `complete(false, ..)`, the step budget, or a loop.
    Failure,
    /// Ctrl-C (or [`Interrupt::trigger`]).
    Interrupted,
    /// The LLM or the device failed.
    Error,
}

/// The run as `summary.json` holds it.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub task: String,
    pub persona: String,
    pub model: String,
    pub provider: String,
    pub device: String,
    pub outcome: Outcome,
    pub reason: String,
    pub steps: usize,
    pub tokens: Usage,
    /// Prompt tokens of each request, in order (as the server counted them).
    pub prompt_tokens_per_step: Vec<u64>,
    pub wall_ms: f64,
    /// Time spent waiting for the LLM.
    pub llm_ms: f64,
    /// Time spent in the device: observations and actions.
    pub device_ms: f64,
    /// Per step: wall time minus LLM and device time (the runtime's own cost).
    pub overhead_ms_per_step: f64,
    pub run_dir: PathBuf,
    /// The command that replays the run without the LLM.
    pub replay: String,
}

/// Stops a run from another task or a signal handler.
#[derive(Debug, Clone, Default)]
pub struct Interrupt(Arc<AtomicBool>);

impl Interrupt {
    pub fn trigger(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
    async fn wait(&self) {
        while !self.is_set() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// What the loop reports as it goes (the CLI prints it).
#[derive(Debug)]
pub enum Progress<'a> {
    Started { run_dir: &'a Path },
    Step { step: usize, max: usize },
    Reply { step: usize, headline: &'a str, usage: Usage, llm_ms: f64 },
    Ran { step: usize, actions: Vec<String>, error: Option<String> },
    Note { step: usize, text: &'a str },
}

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error(transparent)]
    Trajectory(#[from] TrajectoryError),
    #[error("the agent loop needs a multi-threaded tokio runtime")]
    Runtime,
}

/// A run directory name: `20261122-073512-turn-off-wi-fi`.
fn run_dir_name(task: &str) -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let slug: String = task
        .chars()
        .map(|c| if c.is_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect::<String>()
        .split('-')
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("-")
        .chars()
        .take(40)
        .collect();
    format!(
        "{year:04}{month:02}{day:02}-{:02}{:02}{:02}-{}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        if slug.is_empty() { "run".to_string() } else { slug }
    )
}

fn new_run_dir(out: &Path, task: &str) -> PathBuf {
    let base = out.join(run_dir_name(task));
    let mut dir = base.clone();
    let mut n = 2;
    while dir.exists() {
        dir = PathBuf::from(format!("{}-{n}", base.display()));
        n += 1;
    }
    dir
}

fn hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

const NO_CODE: &str = "Your reply had no code, so nothing ran. Answer with a short thought and one ```rhai block \
     (call complete(true, \"...\") when the task is done).";

/// What one observation gives the prompt.
struct Seen {
    text: String,
    dump: String,
    png: Option<Arc<[u8]>>,
    screenshot_error: Option<String>,
    memory: Vec<String>,
}

fn observe(session: &Session, screenshot: bool) -> Result<Seen, String> {
    let mut c = session.tools.lock().unwrap_or_else(|e| e.into_inner());
    let mut attempt = || -> Result<(String, String), String> {
        let obs = c.refresh()?;
        Ok((obs.screen_text(), obs.dump.clone()))
    };
    // A dropped connection is reopened by the next call: try once more.
    let (text, dump) = attempt().or_else(|_| attempt())?;
    // A screenshot can fail where the hierarchy does not (secure windows): the step
    // goes on without one.
    let (png, screenshot_error) = match screenshot.then(|| c.device.screenshot()) {
        Some(Ok(png)) => (Some(Arc::from(png)), None),
        Some(Err(e)) => (None, Some(e.to_string())),
        None => (None, None),
    };
    Ok(Seen { text, dump, png, screenshot_error, memory: c.memory.clone() })
}

/// Runs the task to its end. Errors only when the run directory cannot be written;
/// everything else (the LLM failing, the device lost, Ctrl-C) ends the run with an
/// outcome, and the directory is complete.
pub async fn run(
    session: &mut Session,
    llm: &LlmClient,
    persona: &Persona,
    device_name: &str,
    options: &AgentOptions,
    interrupt: &Interrupt,
    progress: &mut (dyn FnMut(Progress) + Send),
) -> Result<Summary, AgentError> {
    if tokio::runtime::Handle::current().runtime_flavor() != tokio::runtime::RuntimeFlavor::MultiThread {
        return Err(AgentError::Runtime);
    }
    let started = Instant::now();
    let run_dir = new_run_dir(&options.out_dir, &options.task);
    let traj = Arc::new(Mutex::new(Trajectory::create(&run_dir)?));
    let event = |kind: &str, fields: serde_json::Value| {
        traj.lock().unwrap_or_else(|e| e.into_inner()).event(kind, fields);
    };
    progress(Progress::Started { run_dir: &run_dir });
    let config = llm.config();
    event(
        "run_start",
        json!({
            "task": options.task, "persona": persona.name, "model": config.model, "provider": config.provider(),
            "device": device_name, "max_steps": options.max_steps, "vision": options.vision, "save": options.save,
        }),
    );
    let step_now = Arc::new(AtomicUsize::new(0));
    let shared = session.sandbox.shared();
    {
        let step = step_now.clone();
        // Per-action files only in `action` mode: step files use the same names.
        let keep = options.save == SaveMode::Action;
        shared.set_sink(Some(trajectory::action_sink(
            traj.clone(),
            Arc::new(move || step.load(Ordering::SeqCst)),
            keep,
        )));
    }

    let scale = session.tools.lock().unwrap_or_else(|e| e.into_inner()).options.coordinate_scale;
    let system = prompt::system(persona, scale);
    let wants = |c: &str| persona.context.iter().any(|x| x == c);
    let packages = if wants("packages") {
        let mut c = session.tools.lock().unwrap_or_else(|e| e.into_inner());
        let apps = c.options.apps.clone();
        let all = tokio::task::block_in_place(|| c.device.list_packages(true)).ok();
        // Third-party apps plus the system apps people ask for by name (Settings,
        // Clock...): the whole system list of a phone is hundreds of packages.
        let third = tokio::task::block_in_place(|| c.device.list_packages(false)).unwrap_or_default();
        all.map(|all| all.into_iter().filter(|p| third.contains(p) || apps.knows(p)).collect::<Vec<_>>())
    } else {
        None
    };
    let screenshot_each_step = options.vision || options.save == SaveMode::Step;

    let mut turns: Vec<prompt::Turn> = Vec::new();
    let mut steps: Vec<export::Step> = Vec::new();
    let mut tokens = Usage::default();
    let mut prompt_tokens = Vec::new();
    let (mut llm_total, mut device_total, mut overhead_total) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let mut last_key = None;
    let mut repeats = 0usize;
    let mut ended: Option<(Outcome, String)> = None;
    let mut step = 0;

    while step < options.max_steps {
        if interrupt.is_set() {
            ended = Some((Outcome::Interrupted, "interrupted (Ctrl-C)".into()));
            break;
        }
        step += 1;
        step_now.store(step, Ordering::SeqCst);
        let step_started = Instant::now();
        event("step_start", json!({ "step": step }));
        progress(Progress::Step { step, max: options.max_steps });

        let t = Instant::now();
        let seen = tokio::task::block_in_place(|| observe(session, screenshot_each_step));
        let observe_time = t.elapsed();
        let seen = match seen {
            Ok(s) => s,
            Err(e) => {
                event("device_error", json!({ "step": step, "message": e }));
                ended = Some((Outcome::Error, format!("the device stopped answering: {e}")));
                break;
            }
        };
        let mut step_files = json!({ "step": step, "ms": observe_time.as_secs_f64() * 1000.0 });
        if let Some(e) = &seen.screenshot_error {
            step_files["screenshot_error"] = json!(e);
        }
        if options.save == SaveMode::Step {
            let mut t = traj.lock().unwrap_or_else(|e| e.into_inner());
            let ui = format!("ui/{step:04}.xml");
            t.write_file(&ui, seen.dump.as_bytes());
            step_files["ui"] = json!(ui);
            if let Some(png) = &seen.png {
                let shot = format!("screenshots/{step:04}.png");
                t.write_file(&shot, png);
                step_files["screenshot"] = json!(shot);
            }
        }
        event("observation", step_files);

        let screen = prompt::Screen {
            text: seen.text.clone(),
            memory: if wants("memory") { seen.memory.clone() } else { Vec::new() },
            packages: packages.clone(),
            image: if options.vision { seen.png.clone() } else { None },
        };
        let messages = prompt::messages(&system, &options.task, &turns, step, options.max_steps, &screen);
        event(
            "llm_request",
            json!({
                "step": step, "model": config.model, "messages": messages.len(),
                "images": messages.iter().filter(|m| m.image_png.is_some()).count(),
            }),
        );
        let reply = tokio::select! {
            r = llm.complete(&messages) => r,
            () = interrupt.wait() => {
                ended = Some((Outcome::Interrupted, "interrupted (Ctrl-C) while waiting for the model".into()));
                break;
            }
        };
        let reply = match reply {
            Ok(r) => r,
            Err(e) => {
                event("llm_error", json!({ "step": step, "message": e.to_string() }));
                ended = Some((Outcome::Error, e.to_string()));
                break;
            }
        };
        llm_total += reply.elapsed;
        tokens += reply.usage;
        prompt_tokens.push(reply.usage.prompt_tokens);
        event(
            "llm_reply",
            json!({
                "step": step, "text": reply.text, "prompt_tokens": reply.usage.prompt_tokens,
                "completion_tokens": reply.usage.completion_tokens, "total_tokens": reply.usage.total_tokens,
                "ms": reply.elapsed.as_secs_f64() * 1000.0, "attempts": reply.attempts,
            }),
        );
        let extracted = extract::extract(&reply.text);
        progress(Progress::Reply {
            step,
            headline: extracted.headline(),
            usage: reply.usage,
            llm_ms: reply.elapsed.as_secs_f64() * 1000.0,
        });
        let mut record = export::Step {
            number: step,
            thought: extracted.thought.clone(),
            code: extracted.code.clone(),
            ..export::Step::default()
        };
        let Some(code) = extracted.code else {
            event("no_code", json!({ "step": step }));
            progress(Progress::Note { step, text: "no code in the reply; asked again" });
            turns.push(prompt::Turn { reply: reply.text, feedback: NO_CODE.into() });
            steps.push(record);
            continue;
        };
        event("code", json!({ "step": step, "code": code }));
        if let Err(e) = session.sandbox.check(&code) {
            event("parse_error", json!({ "step": step, "error": e }));
            progress(Progress::Note { step, text: "the code does not parse; nothing ran" });
            record.not_run = Some(e.to_string());
            turns.push(prompt::Turn {
                reply: reply.text,
                feedback: format!("Your code did not parse, so nothing ran:\n{e}\nFix it and answer again."),
            });
            steps.push(record);
            continue;
        }

        // Ctrl-C during a snippet stops it at its next operation.
        let watcher = {
            let (interrupt, shared) = (interrupt.clone(), shared.clone());
            // Cancels again and again while interrupted: a cancel that lands before the
            // snippet starts would be cleared by its start.
            tokio::spawn(async move {
                loop {
                    interrupt.wait().await;
                    shared.cancel();
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            })
        };
        let result = tokio::task::block_in_place(|| session.run_on_snapshot(&code));
        watcher.abort();
        let action_time: f64 = result.actions.iter().map(|a| a.duration_ms).sum();
        if !result.output.is_empty() || result.value.is_some() {
            event("output", json!({ "step": step, "output": result.output, "value": result.value }));
        }
        if let Some(e) = &result.error {
            event("error", json!({ "step": step, "error": e }));
            record.error = Some(e.to_string());
        }
        if result.error.is_some() {
            record.done = result
                .actions
                .iter()
                .filter(|a| a.result == "ok" && !export::READ_ONLY.contains(&a.tool.as_str()))
                .map(|a| export::Done { tool: a.tool.clone(), args: a.args.clone(), target: a.capture.target.clone() })
                .collect();
        }
        record.index_targets = result
            .actions
            .iter()
            .filter(|a| a.tool == "tap_by_index" || a.tool == "long_press_by_index")
            .filter_map(|a| Some((a.tool.clone(), a.args.first()?.parse().ok()?, a.capture.target.clone())))
            .collect();
        steps.push(record);
        progress(Progress::Ran {
            step,
            actions: result
                .actions
                .iter()
                .map(|a| format!("{}({}) -> {}", a.tool, a.args.join(", "), a.result))
                .collect(),
            error: result.error.as_ref().map(|e| e.to_string()),
        });

        let step_device = observe_time + Duration::from_secs_f64(action_time / 1000.0);
        device_total += step_device;
        let wall = step_started.elapsed();
        let overhead = wall.saturating_sub(reply.elapsed + step_device);
        overhead_total += overhead;
        event(
            "step_end",
            json!({
                "step": step, "wall_ms": wall.as_secs_f64() * 1000.0, "llm_ms": reply.elapsed.as_secs_f64() * 1000.0,
                "device_ms": step_device.as_secs_f64() * 1000.0, "overhead_ms": overhead.as_secs_f64() * 1000.0,
            }),
        );

        if let Some(c) = &result.completion {
            event("completion", json!({ "step": step, "success": c.success, "reason": c.reason }));
            let outcome = if c.success { Outcome::Success } else { Outcome::Failure };
            ended = Some((outcome, c.reason.clone()));
            break;
        }
        if interrupt.is_set() {
            ended = Some((Outcome::Interrupted, "interrupted (Ctrl-C) while a snippet ran".into()));
            break;
        }
        let key = hash(&code.split_whitespace().collect::<String>()) ^ hash(&seen.text).rotate_left(1);
        repeats = if last_key == Some(key) { repeats + 1 } else { 0 };
        last_key = Some(key);
        if repeats + 1 >= options.loop_limit {
            ended = Some((
                Outcome::Failure,
                format!("stopped a loop: the same code ran {} times in a row on an unchanged screen", repeats + 1),
            ));
            break;
        }
        let warning = (repeats > 0).then_some(
            "this is the same code as the previous step, on the same screen, and it did not finish the task; \
             try something different",
        );
        turns.push(prompt::Turn { reply: reply.text, feedback: prompt::result_text(&result, warning) });
    }
    shared.set_sink(None);
    let (outcome, reason) =
        ended.unwrap_or((Outcome::Failure, format!("reached --max-steps {} without complete()", options.max_steps)));

    // A replay runs all steps as one snippet: give it the time all of them had.
    let replay_ms = session.sandbox.limits().timeout_ms.saturating_mul(step.max(1) as u64);
    let replay = format!(
        "codeact exec {} --device {} --limit timeout_ms={replay_ms}",
        run_dir.join("script.selectors.rhai").display(),
        options.device_spec.as_deref().unwrap_or("DEVICE")
    );
    let header = format!(
        "codeact run {:?}\npersona {}, model {}, device {device_name}; outcome {outcome:?}: {reason}\n\
         Replay from the screen the run started on: {replay}",
        options.task, persona.name, config.model
    );
    let summary = Summary {
        task: options.task.clone(),
        persona: persona.name.clone(),
        model: config.model.clone(),
        provider: config.provider(),
        device: device_name.to_string(),
        outcome,
        reason,
        steps: step,
        tokens,
        prompt_tokens_per_step: prompt_tokens,
        wall_ms: started.elapsed().as_secs_f64() * 1000.0,
        llm_ms: llm_total.as_secs_f64() * 1000.0,
        device_ms: device_total.as_secs_f64() * 1000.0,
        overhead_ms_per_step: if step == 0 { 0.0 } else { overhead_total.as_secs_f64() * 1000.0 / step as f64 },
        run_dir: run_dir.clone(),
        replay,
    };
    let mut t = traj.lock().unwrap_or_else(|e| e.into_inner());
    t.write_file("script.rhai", export::script(&header, &steps).as_bytes());
    t.write_file("script.selectors.rhai", export::selector_script(&header, &steps).as_bytes());
    let value = serde_json::to_value(&summary).unwrap_or_default();
    t.event("run_end", value.clone());
    t.finish(&value)?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_directories_are_dated_and_named_after_the_task() {
        let name = run_dir_name("Turn off Wi-Fi!");
        let (date, rest) = name.split_at(15);
        assert!(date.chars().filter(|c| c.is_ascii_digit()).count() == 14 && date.as_bytes()[8] == b'-', "{name}");
        assert_eq!(rest, "-turn-off-wi-fi");
        assert!(run_dir_name("发送你好").ends_with("-发送你好"), "letters of any script are kept");
        assert!(run_dir_name("???").ends_with("-run"));
    }
}
