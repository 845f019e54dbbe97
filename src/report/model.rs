//! What a report shows, read back from a run directory's `events.jsonl` and
//! `summary.json`: the run's header, then per step the screenshot seen, the reply,
//! the code, what it printed, each action (with the point it hit and its effect),
//! errors, notes, timings and tokens. Lines that do not parse (a line cut by a
//! kill) are skipped. Not the HTML (`html.rs`).

use std::path::Path;

use serde_json::Value;

/// One action as the report lists it.
#[derive(Debug, Clone, Default)]
pub struct ActionView {
    pub tool: String,
    pub args: Vec<String>,
    pub result: String,
    pub failed: bool,
    pub effect: Option<String>,
    pub ms: f64,
    /// Where it acted, in device pixels.
    pub point: Option<(i32, i32)>,
    pub screenshot: Option<String>,
}

impl ActionView {
    pub fn is_watcher(&self) -> bool {
        self.tool == "watcher"
    }
}

/// One step (an agent step, or a whole script).
#[derive(Debug, Clone, Default)]
pub struct StepView {
    pub number: usize,
    /// The screenshot the step saw (relative to the run directory).
    pub seen: Option<String>,
    pub reply: Option<String>,
    pub code: Option<String>,
    pub output: String,
    pub errors: Vec<String>,
    pub actions: Vec<ActionView>,
    /// Other things the run said of the step: replayed, diverged, reflection, plan.
    pub notes: Vec<String>,
    pub wall_ms: f64,
    pub llm_ms: f64,
    pub device_ms: f64,
    pub overhead_ms: f64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

/// A whole run directory.
#[derive(Debug, Clone, Default)]
pub struct RunView {
    /// The task (`codeact run`) or the script (`codeact exec`).
    pub title: String,
    /// Facts for the header: model, persona, device, outcome...
    pub facts: Vec<(String, String)>,
    pub outcome: Option<String>,
    pub reason: Option<String>,
    pub replay: Option<String>,
    pub steps: Vec<StepView>,
    /// False while the run is still going (no summary yet).
    pub finished: bool,
}

fn text(v: &Value, key: &str) -> Option<String> {
    match &v[key] {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

fn number(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or(0.0)
}

/// The point an action acted on: recorded, or a `tap(x, y)`'s own arguments.
fn point_of(event: &Value, tool: &str, args: &[String]) -> Option<(i32, i32)> {
    if let Some([x, y]) = event["point"].as_array().map(Vec::as_slice) {
        return Some((x.as_i64()? as i32, y.as_i64()? as i32));
    }
    let pointed = matches!(tool, "tap" | "long_press" | "swipe" | "drag") && args.len() >= 2;
    if pointed {
        return Some((args[0].parse::<f64>().ok()? as i32, args[1].parse::<f64>().ok()? as i32));
    }
    None
}

impl RunView {
    /// Reads `dir` (what is there so far).
    pub fn read(dir: &Path) -> Self {
        let mut view = RunView::default();
        let events = crate::files::read_text(&dir.join("events.jsonl"), crate::files::DATA_BYTES).unwrap_or_default();
        for line in events.lines() {
            let Ok(event) = serde_json::from_str::<Value>(line) else { continue };
            view.take(&event);
        }
        if let Ok(summary) = crate::files::read_text(&dir.join("summary.json"), crate::files::TEXT_BYTES)
            && let Ok(summary) = serde_json::from_str::<Value>(&summary)
        {
            view.finished = true;
            view.outcome = text(&summary, "outcome").or(view.outcome.take());
            view.reason = text(&summary, "reason").or(view.reason.take());
            view.replay = text(&summary, "replay");
            if view.reason.is_none() {
                view.reason = text(&summary, "error");
            }
            // A script is one step: its time is the script's.
            if let (Some(ms), [only]) = (summary["duration_ms"].as_f64(), view.steps.as_mut_slice())
                && only.wall_ms == 0.0
            {
                only.wall_ms = ms;
                only.device_ms = only.actions.iter().map(|a| a.ms).sum();
                only.overhead_ms = (ms - only.device_ms).max(0.0);
            }
            for key in ["model", "persona", "device", "strategy", "memory"] {
                if let Some(value) =
                    text(&summary, key).filter(|v| !v.is_empty() && !view.facts.iter().any(|(k, _)| k == key))
                {
                    view.facts.push((key.to_string(), value));
                }
            }
        }
        view
    }

    /// The step `number`, made when first named.
    fn step(&mut self, number: usize) -> &mut StepView {
        if let Some(i) = self.steps.iter().position(|s| s.number == number) {
            return &mut self.steps[i];
        }
        self.steps.push(StepView { number, ..StepView::default() });
        let last = self.steps.len() - 1;
        &mut self.steps[last]
    }

    fn take(&mut self, e: &Value) {
        let kind = e["event"].as_str().unwrap_or("");
        let n = e["step"].as_u64().unwrap_or(1) as usize;
        match kind {
            "run_start" => {
                self.title = text(e, "task").unwrap_or_default();
                for key in ["model", "persona", "device", "provider"] {
                    if let Some(value) = text(e, key) {
                        self.facts.push((key.to_string(), value));
                    }
                }
            }
            "start" => self.title = text(e, "script").unwrap_or_default(),
            // A script's end: what it printed, its error or completion.
            "end" => {
                let s = self.step(n);
                if let Some(out) = text(e, "output") {
                    s.output.push_str(&out);
                }
                if let Some(message) = text(&e["error"], "message") {
                    s.errors.push(message);
                }
                if let Some(success) = e["completion"]["success"].as_bool() {
                    let reason = text(&e["completion"], "reason").unwrap_or_default();
                    s.notes.push(format!("complete({success}): {reason}"));
                }
            }
            "step_start" => {
                self.step(n);
            }
            "observation" => self.step(n).seen = text(e, "screenshot"),
            "llm_reply" if e["role"] == "actor" || e["role"].is_null() => {
                let s = self.step(n);
                s.reply = text(e, "text");
                s.prompt_tokens += e["prompt_tokens"].as_u64().unwrap_or(0);
                s.completion_tokens += e["completion_tokens"].as_u64().unwrap_or(0);
            }
            "llm_reply" => {
                let role = text(e, "role").unwrap_or_default();
                let s = self.step(n);
                s.prompt_tokens += e["prompt_tokens"].as_u64().unwrap_or(0);
                s.completion_tokens += e["completion_tokens"].as_u64().unwrap_or(0);
                s.notes.push(format!("{role} answered"));
            }
            "code" => self.step(n).code = text(e, "code"),
            "action" => {
                let tool = text(e, "tool").unwrap_or_default();
                let args: Vec<String> = e["args"]
                    .as_array()
                    .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
                    .unwrap_or_default();
                let action = ActionView {
                    point: point_of(e, &tool, &args),
                    tool,
                    args,
                    result: text(e, "result").unwrap_or_default(),
                    failed: !e["failure"].is_null(),
                    effect: text(e, "effect"),
                    ms: number(e, "duration_ms"),
                    screenshot: text(e, "screenshot"),
                };
                self.step(n).actions.push(action);
            }
            "output" => {
                let s = self.step(n);
                if let Some(out) = text(e, "output") {
                    s.output.push_str(&out);
                }
            }
            "error" | "parse_error" => {
                let message = text(&e["error"], "message").unwrap_or_else(|| e["error"].to_string());
                self.step(n).errors.push(message);
            }
            "device_error" | "llm_error" => {
                let message = text(e, "message").unwrap_or_default();
                self.step(n).errors.push(message);
            }
            "step_end" => {
                let s = self.step(n);
                s.wall_ms = number(e, "wall_ms");
                s.llm_ms = number(e, "llm_ms");
                s.device_ms = number(e, "device_ms");
                s.overhead_ms = number(e, "overhead_ms");
            }
            "completion" => {
                let how = if e["success"].as_bool() == Some(true) { "complete(true)" } else { "complete(false)" };
                let reason = text(e, "reason").unwrap_or_default();
                self.step(n).notes.push(format!("{how}: {reason}"));
            }
            "completion_held" => {
                self.step(n).notes.push("the completion gate held complete(true): the model looks once more".into())
            }
            "stalled" => self.step(n).notes.push("steps in a row went nowhere".into()),
            "replayed" => self.step(n).notes.push("replayed from memory (no model call)".into()),
            "diverged" => {
                let why = text(e, "why").unwrap_or_default();
                self.step(n).notes.push(format!("the replay diverged: {why}"));
            }
            "reflection" => {
                let t = text(e, "text").unwrap_or_default();
                self.step(n).notes.push(format!("reviewer: {t}"));
            }
            "plan" | "phase" => {
                let t = text(e, "text").or_else(|| text(e, "plan")).or_else(|| text(e, "phase")).unwrap_or_default();
                self.step(n).notes.push(format!("{kind}: {t}"));
            }
            _ => {}
        }
    }
}
