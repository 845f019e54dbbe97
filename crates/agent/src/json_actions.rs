//! `--actions json`, the function-calling baseline: the persona's tools are offered
//! as OpenAI functions (schemas from their `ToolSpec`s, `complete` one of them);
//! each call of a reply becomes the one-line snippet that calls its tool (through
//! the one emitter), runs in the same session on the observation the model saw,
//! and what came of it goes back as that call's `tool` message. The look, the
//! watchers, the gate, the effect lines, the record, memory and the exports are the
//! code format's own. Not the format's words to the model (`json_prompt.rs`), the
//! code format's prompt (`prompt.rs`) nor the step's frame (`step.rs`).

use std::sync::Arc;

use serde_json::{Map, Value};

use super::progress::{Progress, ProgressSink};
use super::run::Run;
use codeact_engine::sandbox::{KEPT_ACTIONS, RunResult};
use codeact_platform::device::Observation;
use codeact_record::trajectory::Event;
use codeact_runtime::llm::{FunctionTool, ToolCall};
use codeact_runtime::session::Screen;
use codeact_tools::call::ToolCall as Call;
use codeact_tools::json_calls::{self, Finish};
use codeact_tools::script_tools::ScriptTools;

/// A model's function call as the tool call it makes, or why there is none.
fn snippet(call: &ToolCall, offered: &[FunctionTool], script_tools: &ScriptTools) -> Result<Call, String> {
    if !offered.iter().any(|f| f.name == call.name) {
        let name = codeact_base::terminal::one_line(&call.name);
        return Err(format!("there is no function {name:?}; call one of those offered"));
    }
    // A call without arguments may come as "" from some servers.
    let text = if call.arguments.trim().is_empty() { "{}" } else { call.arguments.as_str() };
    let args: Map<String, Value> = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => map,
        Ok(_) => return Err("the arguments must be a JSON object of named parameters".into()),
        Err(e) => return Err(format!("the arguments are not valid JSON ({e})")),
    };
    let made = match script_tools.tools.iter().find(|t| t.name == call.name) {
        Some(tool) => json_calls::script_call(tool, &args),
        None => json_calls::gesture_call(&call.name, &args, Finish::Offered),
    };
    made.map_err(|e| e.to_string())
}

/// What a call's own run is told: its result without the code format's header.
fn told(result: &RunResult) -> String {
    let text = super::told::result_text(result, &[]);
    text.strip_prefix("Execution result:\n").unwrap_or(&text).trim_end().to_string()
}

/// `add` folded into `all`, the step's one result: actions (those past the kept
/// number counted), output, the first error, the completion, the time.
fn merge(all: &mut RunResult, add: RunResult) {
    let room = KEPT_ACTIONS.saturating_sub(all.actions.len());
    let over = add.actions.len().saturating_sub(room);
    all.actions.extend(add.actions.into_iter().take(room));
    all.more_actions += add.more_actions + over;
    all.output.push_str(&add.output);
    all.error = all.error.take().or(add.error);
    all.completion = all.completion.take().or(add.completion);
    all.duration_ms += add.duration_ms;
}

impl Run<'_> {
    /// Runs the reply's `calls` in order on the observation the model saw, each as
    /// its own snippet, until one fails or completes; each call's result is an event
    /// (`tool_result`), the calls that made snippets are the step's code, and the
    /// step's result is theirs together. No call, or none that makes a snippet:
    /// nothing runs.
    pub(super) fn execute_calls(
        &mut self,
        number: usize,
        calls: &[ToolCall],
        seen: &Arc<Observation>,
        progress: &mut ProgressSink<'_>,
    ) -> Option<RunResult> {
        if calls.is_empty() {
            self.event(&Event::NoCode { step: number });
            progress(Progress::Note { step: number, text: "no function call in the reply; asked again" });
            return None;
        }
        let script_tools = self.session.script_tools();
        let made: Vec<Result<Call, String>> = calls.iter().map(|c| snippet(c, &self.offered, script_tools)).collect();
        // The code is what runs: the calls up to the first one that makes none.
        // (Each runs as an expression, so its value comes back; as code, a statement.)
        let code: Vec<String> = made.iter().map_while(|m| m.as_ref().ok()).map(Call::line).collect();
        if code.is_empty() {
            self.event(&Event::NoCode { step: number });
        } else {
            self.event(&Event::Code { step: number, code: code.join("\n").into() });
        }
        let mut all: Option<RunResult> = None;
        let mut stopped: Option<&str> = None;
        for (call, made) in calls.iter().zip(made) {
            let text = match (stopped, made) {
                (Some(why), _) => format!("Not run: {why}."),
                (None, Err(why)) => {
                    stopped = Some("an earlier call had bad arguments");
                    format!("Error: {why}; nothing ran. Fix the call and answer again.")
                }
                (None, Ok(made)) => {
                    let result = tokio::task::block_in_place(|| self.session.call_value(&made, Screen::Seen(seen)));
                    let text = told(&result);
                    if result.error.is_some() {
                        stopped = Some("an earlier call failed");
                    } else if result.completion.is_some() {
                        stopped = Some("an earlier call completed the task");
                    }
                    match &mut all {
                        Some(all) => merge(all, result),
                        None => all = Some(result),
                    }
                    text
                }
            };
            self.event(&Event::ToolResult { step: number, id: call.id.as_str().into(), text: text.into() });
        }
        let result = all?;
        if !result.output.is_empty() {
            self.event(&Event::Output { step: number, output: result.output.as_str().into(), value: None });
        }
        if let Some(error) = &result.error {
            self.event(&Event::Error { step: number, error: std::borrow::Cow::Borrowed(error) });
        }
        Some(result)
    }
}

#[cfg(test)]
mod tests {
    use super::super::json_prompt::{offered, system};
    use super::*;
    use codeact_runtime::persona::Persona;

    #[test]
    fn calls_become_snippets_or_say_why_not() {
        let persona = Persona::load("ui_expert").unwrap();
        let none = ScriptTools::default();
        let offered = offered(&persona, &none);
        assert!(offered.iter().any(|f| f.name == "complete") && offered.iter().any(|f| f.name == "tap_by_index"));
        assert!(!offered.iter().any(|f| f.name == "shell"), "only the persona's tools");
        let call = |name: &str, arguments: &str| ToolCall {
            id: "c1".into(),
            name: name.into(),
            arguments: arguments.into(),
            result: String::new(),
        };
        assert_eq!(
            snippet(&call("tap_by_index", r#"{"index": 4}"#), &offered, &none).unwrap().expr(),
            "tap_by_index(4)"
        );
        assert_eq!(snippet(&call("back", ""), &offered, &none).unwrap().expr(), "back()");
        let done = call("complete", r#"{"success": true, "reason": "done\"); shell(\"x"}"#);
        assert_eq!(snippet(&done, &offered, &none).unwrap().expr(), r#"complete(true, "done\"); shell(\"x")"#);
        let bad = snippet(&call("tap_by_index", "{index: 4"), &offered, &none).unwrap_err();
        assert!(bad.contains("not valid JSON"), "{bad}");
        let list = snippet(&call("tap_by_index", "[4]"), &offered, &none).unwrap_err();
        assert!(list.contains("JSON object"), "{list}");
        let shell = snippet(&call("shell", r#"{"command": "rm -rf /"}"#), &offered, &none).unwrap_err();
        assert!(shell.contains("no function \"shell\""), "{shell}");
        let wrong = snippet(&call("tap_by_index", r#"{"index": "four"}"#), &offered, &none).unwrap_err();
        assert!(wrong.contains("must be an integer"), "{wrong}");
        // Hostile arguments: nesting past the JSON reader's depth, a name that is a
        // terminal escape, a value of the wrong type for every kind.
        let deep = format!("{{\"sel\": {}1{}}}", "[".repeat(1000), "]".repeat(1000));
        assert!(snippet(&call("tap", &deep), &offered, &none).unwrap_err().contains("not valid JSON"));
        let escape = snippet(&call("\u{1b}[2Jtap", "{}"), &offered, &none).unwrap_err();
        assert!(!escape.contains('\u{1b}'), "{escape}");
        let done = call("complete", r#"{"success": "yes"}"#);
        assert!(snippet(&done, &offered, &none).unwrap_err().contains("true or false"));
        let s = system(&persona, None);
        assert!(s.contains("calling functions") && !s.contains("```rhai"), "{s}");
    }

    #[test]
    fn results_merge_bounded() {
        let action = || codeact_engine::sandbox::Action::with_effect("tap", &["1"], "nothing changed");
        let mut all = RunResult { actions: vec![action(); KEPT_ACTIONS - 1], ..RunResult::default() };
        merge(&mut all, RunResult { actions: vec![action(); 3], output: "a".into(), ..RunResult::default() });
        assert_eq!((all.actions.len(), all.more_actions, all.output.as_str()), (KEPT_ACTIONS, 2, "a"));
    }
}
