//! What a report shows, folded from a run's typed events (as they are written, or
//! read back from `events.jsonl`) and its summary's facts: the run's header, then
//! per step the screenshot seen, the reply, the code, what it printed, each action
//! (with the point it hit and its effect), errors, notes, timings and tokens. Not
//! the HTML (`html.rs`).

use std::path::Path;

use crate::trajectory::{Event, RunFacts};

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

/// A `--strategy tree` node as the report draws it.
#[derive(Debug, Clone, Default)]
pub struct NodeView {
    /// `1.2.1`.
    pub path: String,
    pub goal: String,
    /// start (still going), branch (split, children going), done, partial,
    /// failed, replayed.
    pub state: String,
    pub detail: Option<String>,
    /// What it split into, when it did.
    pub split: Option<String>,
    /// The steps taken while it was open (its children's too): first and last.
    pub steps: Option<(usize, usize)>,
}

impl NodeView {
    pub fn depth(&self) -> usize {
        self.path.split('.').count()
    }
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
    /// The `--strategy tree` nodes, in the order they began.
    pub nodes: Vec<NodeView>,
    /// False while the run is still going (no summary yet).
    pub finished: bool,
    /// A script's run (`codeact exec`): one card per action.
    pub script_run: bool,
    /// The script's code (`script.rhai` in its run directory).
    pub script: Option<String>,
    /// What a failed script left beside its report: the screen it failed on, the
    /// device log, the screen recording (file names in the run directory).
    pub kept: Vec<String>,
}

/// The point an action acted on: recorded, or a `tap(x, y)`'s own arguments.
fn point_of(point: Option<[i32; 2]>, tool: &str, args: &[String]) -> Option<(i32, i32)> {
    if let Some([x, y]) = point {
        return Some((x, y));
    }
    let pointed = matches!(tool, "tap" | "long_press" | "swipe" | "drag") && args.len() >= 2;
    if pointed {
        return Some((args[0].parse::<f64>().ok()? as i32, args[1].parse::<f64>().ok()? as i32));
    }
    None
}

impl RunView {
    /// A node event: `start` adds the node; the others say how it went on. Its
    /// steps are those numbered after its start up to its last event.
    fn take_node(&mut self, step: usize, path: &str, goal: &str, state: &str, detail: Option<&str>) {
        if state == "start" || !self.nodes.iter().any(|n| n.path == path) {
            let node = NodeView { path: path.into(), goal: goal.into(), state: state.into(), ..NodeView::default() };
            self.nodes.push(node);
        }
        let Some(node) = self.nodes.iter_mut().rev().find(|n| n.path == path) else { return };
        match state {
            // The first step after the start is the node's own.
            "start" => node.steps = Some((step + 1, step)),
            "branch" => node.split = detail.map(str::to_string),
            _ => node.detail = detail.map(str::to_string),
        }
        if state != "start" {
            node.state = state.to_string();
            if let Some((first, _)) = node.steps {
                node.steps = Some((first, step));
            }
        }
    }

    /// Reads the run in `dir` (what is there so far).
    pub fn read(dir: &Path) -> Self {
        let mut view = RunView::default();
        for event in crate::trajectory::read_events(dir) {
            view.take(&event);
        }
        if let Some(facts) = RunFacts::read(dir) {
            view.take_facts(&facts);
        }
        if view.script_run {
            view.script =
                codeact_base::files::read_text(&dir.join("script.rhai"), codeact_base::files::TEXT_BYTES).ok();
            let kept = ["failure.png", "logcat.txt", "screenrecord.mp4"].into_iter().filter(|f| dir.join(f).is_file());
            view.kept = kept.map(str::to_string).collect();
        }
        view
    }

    /// The summary's facts: the run is over.
    fn take_facts(&mut self, facts: &RunFacts) {
        self.finished = true;
        self.outcome = facts.outcome.clone().or(self.outcome.take());
        self.reason = facts.reason.clone().or(self.reason.take()).or_else(|| facts.error.clone());
        self.replay = facts.replay.clone().or(self.replay.take());
        // A script is one step: its time is the script's.
        if let (Some(ms), [only]) = (facts.duration_ms, self.steps.as_mut_slice())
            && only.wall_ms == 0.0
        {
            only.wall_ms = ms;
            only.device_ms = only.actions.iter().map(|a| a.ms).sum();
            only.overhead_ms = (ms - only.device_ms).max(0.0);
        }
        for (key, value) in facts.header() {
            if let Some(value) = value.filter(|v| !v.is_empty() && !self.facts.iter().any(|(k, _)| k == key)) {
                self.facts.push((key.to_string(), value.to_string()));
            }
        }
    }

    /// The step `number`, made when first named.
    fn step(&mut self, number: usize) -> &mut StepView {
        // Events come step by step: the newest step first, then a search.
        let newest = self.steps.last().filter(|s| s.number == number).map(|_| self.steps.len() - 1);
        if let Some(i) = newest.or_else(|| self.steps.iter().rposition(|s| s.number == number)) {
            return &mut self.steps[i];
        }
        self.steps.push(StepView { number, ..StepView::default() });
        let last = self.steps.len() - 1;
        &mut self.steps[last]
    }

    /// Folds one event of the run into the view.
    pub fn take(&mut self, event: &Event) {
        match event {
            Event::RunStart { task, model, persona, device, provider, .. } => {
                self.title = task.to_string();
                for (key, value) in [("model", model), ("persona", persona), ("device", device), ("provider", provider)]
                {
                    self.facts.push((key.to_string(), value.to_string()));
                }
            }
            Event::Start { script, .. } => {
                self.title = script.to_string();
                self.script_run = true;
            }
            // A script's end: what it printed, its error or completion.
            Event::End { output, error, completion, .. } => {
                let s = self.step(1);
                s.output.push_str(output);
                if let Some(error) = error {
                    s.errors.push(error.message.clone());
                }
                if let Some(c) = completion {
                    s.notes.push(format!("complete({}): {}", c.success, c.reason));
                }
            }
            Event::StepStart { step } => {
                self.step(*step);
            }
            Event::Observation { step, screenshot, .. } => self.step(*step).seen = screenshot.clone(),
            Event::LlmReply { step, role, text, prompt_tokens, completion_tokens, calls, .. } => {
                let s = self.step(*step);
                s.prompt_tokens += prompt_tokens;
                s.completion_tokens += completion_tokens;
                if role == "actor" {
                    // Function calls are shown one a line under the text they came with.
                    let shown: Vec<String> = calls.iter().map(|c| format!("→ {}", c.shown())).collect();
                    let reply = [text.trim()].into_iter().chain(shown.iter().map(String::as_str));
                    s.reply = Some(reply.filter(|l| !l.is_empty()).collect::<Vec<_>>().join("\n"));
                } else {
                    s.notes.push(format!("{role} answered"));
                }
            }
            Event::Code { step, code } => self.step(*step).code = Some(code.to_string()),
            Event::Action { step, tool, args, result, failure, duration_ms, effect, point, screenshot, .. } => {
                let action = ActionView {
                    point: point_of(*point, tool, args),
                    tool: tool.to_string(),
                    args: args.to_vec(),
                    result: result.to_string(),
                    failed: failure.is_some(),
                    effect: effect.as_deref().map(str::to_string),
                    ms: *duration_ms,
                    screenshot: screenshot.clone(),
                };
                self.step(*step).actions.push(action);
            }
            Event::Output { step, output, .. } => self.step(*step).output.push_str(output),
            Event::Error { step, error } | Event::ParseError { step, error } => {
                self.step(*step).errors.push(error.message.clone())
            }
            Event::DeviceError { step, message } | Event::LlmError { step, message } => {
                self.step(*step).errors.push(message.clone())
            }
            Event::StepEnd { step, wall_ms, llm_ms, device_ms, overhead_ms, .. } => {
                let s = self.step(*step);
                (s.wall_ms, s.llm_ms, s.device_ms, s.overhead_ms) = (*wall_ms, *llm_ms, *device_ms, *overhead_ms);
            }
            Event::Completion { step, success, reason } => {
                self.step(*step).notes.push(format!("complete({success}): {reason}"))
            }
            Event::CompletionHeld { step, .. } => {
                self.step(*step).notes.push("the completion gate held complete(true): the model looks once more".into())
            }
            Event::Stalled { step, .. } => self.step(*step).notes.push("steps in a row went nowhere".into()),
            Event::Replayed { step, .. } => self.step(*step).notes.push("replayed from memory (no model call)".into()),
            Event::Diverged { step, why, .. } => self.step(*step).notes.push(format!("the replay diverged: {why}")),
            Event::Reflection { step, text } => self.step(*step).notes.push(format!("reviewer: {text}")),
            Event::Plan { step, items, why, .. } => {
                let mut note = format!("plan: {}", crate::trajectory::PlanItem::one_line(items));
                if let Some(why) = why {
                    note.push_str(&format!(" (asked again: {why})"));
                }
                self.step(*step).notes.push(note);
            }
            Event::Phase { step, persona, task } => self.step(*step).notes.push(format!("phase: {persona}: {task}")),
            Event::Node { step, path, goal, state, detail } => {
                let mut note = format!("node {path} {state}: {goal}");
                if let Some(detail) = detail {
                    note.push_str(&format!(" ({detail})"));
                }
                self.step(*step).notes.push(note);
                self.take_node(*step, path, goal, state, detail.as_deref());
            }
            Event::RunEnd(summary) => self.take_facts(&RunFacts::of(summary)),
            Event::SessionStart { client, device, door } => {
                self.title = match door.as_deref() {
                    Some("webdriver") => format!("codeact serve --webdriver: {client}"),
                    Some("studio") => format!("codeact studio: {client}"),
                    _ => format!("codeact mcp: {client}"),
                };
                self.facts.push(("device".into(), device.to_string()));
            }
            Event::ExploreStart { app, strategy, budget, declared, user } => {
                self.title = format!("explore {app}");
                for (key, value) in [("strategy", strategy), ("budget", budget), ("user", user)] {
                    self.facts.push((key.to_string(), value.to_string()));
                }
                self.facts.push(("declared activities".into(), declared.to_string()));
            }
            Event::Note { step, text } => self.step(*step).notes.push(text.to_string()),
            Event::NewScreen { step, screen, activity, screenshot } => {
                let s = self.step(*step);
                s.notes.push(format!("new screen {screen} ({activity})"));
                if s.seen.is_none() {
                    s.seen = screenshot.clone();
                }
            }
            Event::Activity { step, activity, reached, declared } => {
                self.step(*step).notes.push(format!("activity {activity} reached ({reached} of {declared})"))
            }
            Event::Restart { step, reason } => self.step(*step).notes.push(format!("app restarted: {reason}")),
            Event::Finding { step, kind, title, script } => {
                self.step(*step).notes.push(format!("finding ({kind}): {title} · {script}"))
            }
            Event::Planned { step, task, goal } => self.step(*step).notes.push(format!("task {task} set: {goal}")),
            Event::Task { step, task, goal, success, steps, run, .. } => {
                let how = if *success { "done" } else { "failed" };
                self.step(*step).notes.push(format!("task {task} {how} in {steps} steps: {goal} ({run})"))
            }
            Event::LlmRequest { .. }
            | Event::NoCode { .. }
            | Event::Recall { .. }
            | Event::McpCall { .. }
            | Event::WebdriverCall { .. }
            | Event::StudioAct { .. }
            | Event::ToolResult { .. }
            | Event::Unknown => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trajectory::events_of;

    #[test]
    fn a_killed_run_shows_its_steps_with_their_timings_replayed_ones_too() {
        let text = concat!(
            r#"{"event":"run_start","task":"Turn off Wi-Fi","persona":"default","model":"m","provider":"p","device":"sim","max_steps":5,"vision":false,"save":"step"}"#,
            "\n",
            r#"{"event":"plan","step":0,"replan":0,"items":[{"goal":"open Settings","app":"com.android.settings"}]}"#,
            "\n",
            r#"{"event":"step_start","step":1}"#,
            "\n",
            r#"{"event":"code","step":1,"code":"tap(3);"}"#,
            "\n",
            r#"{"event":"action","step":1,"tool":"tap","args":["540","1200"],"result":"ok","started_ms":1.0,"duration_ms":20.0}"#,
            "\n",
            r#"{"event":"replayed","step":1,"of":1}"#,
            "\n",
            r#"{"event":"step_end","step":1,"wall_ms":40.0,"llm_ms":0.0,"device_ms":30.0,"overhead_ms":10.0}"#,
            "\n",
            r#"{"event":"step_start","step":2}"#,
            "\n",
            r#"{"event":"llm_reply","step":2,"role":"actor","text":"Thought: again","prompt_tok"#,
        );
        let mut view = RunView::default();
        for event in events_of(text) {
            view.take(&event);
        }
        assert_eq!(view.title, "Turn off Wi-Fi");
        assert!(!view.finished, "no summary: the run did not end");
        let steps: Vec<usize> = view.steps.iter().map(|s| s.number).collect();
        assert_eq!(steps, [0, 1, 2]);
        assert_eq!(view.steps[0].notes, ["plan: 1. open Settings (com.android.settings)"]);
        let replayed = &view.steps[1];
        assert_eq!((replayed.wall_ms, replayed.device_ms, replayed.llm_ms), (40.0, 30.0, 0.0));
        assert_eq!(replayed.actions[0].point, Some((540, 1200)), "a tap's point from its arguments");
        assert_eq!(replayed.notes, ["replayed from memory (no model call)"]);
        assert_eq!(view.steps[2].reply, None, "the cut reply is not shown half");
    }
}
