//! The MCP tools the server lists: its own (`run_script`, `observe`, `screenshot`,
//! `list_devices`, `start_sim`, `reset`, `export_script`, `run_task`, `eval`), each with its JSON Schema
//! and annotations, `run_script`'s description carrying the typed API made from the
//! catalog's [`ToolSpec`](codeact_tools::ToolSpec)s; and, when asked, the catalog's
//! tools one by one (`codeact_tools::json_calls`). Not what a call does (`client.rs`) nor the
//! protocol (`server.rs`).

use std::sync::Arc;

use rmcp::model::{Tool, ToolAnnotations};
use serde_json::{Map, Value, json};

use super::options::Expose;
use super::reply::MAX_PICTURE_SIDE;
use super::tasks::MAX_EVAL_INSTANCES;
use codeact_tools::Access;
use codeact_tools::json_calls::{Finish, gesture_tools, script_gesture_tools};
use codeact_tools::script_tools::ScriptTools;

/// The longest snippet `run_script` takes.
pub const MAX_CODE_BYTES: usize = 256 * 1024;

/// The longest `session` name a caller may give.
pub const MAX_SESSION_NAME: usize = 128;

/// The server's own tools, by name.
pub const RUN_SCRIPT: &str = "run_script";
pub const OBSERVE: &str = "observe";
pub const SCREENSHOT: &str = "screenshot";
pub const LIST_DEVICES: &str = "list_devices";
pub const START_SIM: &str = "start_sim";
pub const RESET: &str = "reset";
pub const EXPORT_SCRIPT: &str = "export_script";
pub const RUN_TASK: &str = "run_task";
pub const EVAL: &str = "eval";

fn schema(value: Value) -> Arc<Map<String, Value>> {
    Arc::new(value.as_object().cloned().unwrap_or_default())
}

const DEVICE_DOC: &str = "the device: \"sim\" (a virtual phone of this client's own), \"sim:ios\", \"sim:harmony\", an adb serial, or hdc:KEY; default: the one start_sim chose, else the server's --device";

fn device_property() -> Value {
    json!({"type": "string", "description": DEVICE_DOC})
}

fn annotations(title: &str, read_only: bool, destructive: bool, idempotent: bool) -> ToolAnnotations {
    let a = ToolAnnotations::with_title(title).read_only(read_only).open_world(false);
    if read_only { a } else { a.destructive(destructive).idempotent(idempotent) }
}

/// `run_script`'s description: what it does, how a snippet is written, and the API
/// (`api`: the allowed tools with their signatures and docs).
fn run_script_description(api: &str) -> String {
    format!(
        "Run a Rhai script on the phone in one call, instead of one call per tap. Variables and `fn` \
         definitions persist between calls (one session per client and device). `ui_state` is the screen \
         now (a list of elements with index, text, desc, id, class, bounds); it is fresh after each action. \
         `print(...)` what you need to read back. Every sandbox limit applies (operations, time, memory, \
         output); no file, network or process access. The answer lists what the script printed, each action \
         with what it changed on screen, the value of the last expression, an error with its line and \
         column, `complete(...)`'s verdict, and the screen after it; `screenshot: true` adds a picture \
         (longest side ≤ {MAX_PICTURE_SIDE} px).\n\nExample: open_app(\"Messages\"); tap(\"Alice\"); \
         type_text(\"hello\"); tap(#{{desc: \"Send\"}}); assert_visible(\"hello\");\n\nFunctions:\n{api}"
    )
}

/// Every tool the server lists, for a session allowing `allowed`.
pub fn listed_tools(expose: Expose, allowed: &dyn Fn(&str) -> bool, script_tools: &ScriptTools) -> Vec<Tool> {
    let mut out = Vec::new();
    if expose != Expose::Tools {
        let api = codeact_tools::describe_with(allowed, &script_tools.describe());
        out.push(
            Tool::new(
                RUN_SCRIPT,
                run_script_description(&api),
                schema(json!({
                    "type": "object",
                    "properties": {
                        "code": {"type": "string", "description": "the Rhai script", "maxLength": MAX_CODE_BYTES},
                        "device": device_property(),
                        "screenshot": {"type": "boolean", "description": "add a screenshot of the screen after it"},
                        "max_side": {"type": "integer", "minimum": 16, "maximum": MAX_PICTURE_SIDE,
                            "description": "the screenshot's longest side in pixels (default 2000)"}
                    },
                    "required": ["code"],
                    "additionalProperties": false
                })),
            )
            .with_annotations(annotations("Run a script on the phone", false, true, false)),
        );
    }
    out.push(
        Tool::new(
            OBSERVE,
            "The screen as the model reads it: the app and activity, then one line per element with its index, \
             class, text or description and bounds (what ui_state holds); screenshot: true adds a picture.",
            schema(json!({
                "type": "object",
                "properties": {
                    "device": device_property(),
                    "screenshot": {"type": "boolean", "description": "add a screenshot"},
                    "max_side": {"type": "integer", "minimum": 16, "maximum": MAX_PICTURE_SIDE}
                },
                "additionalProperties": false
            })),
        )
        .with_annotations(annotations("Read the screen", true, false, true)),
    );
    out.push(
        Tool::new(
            SCREENSHOT,
            "A PNG of the screen, scaled so its longest side is at most max_side pixels (default 2000).",
            schema(json!({
                "type": "object",
                "properties": {
                    "device": device_property(),
                    "max_side": {"type": "integer", "minimum": 16, "maximum": MAX_PICTURE_SIDE}
                },
                "additionalProperties": false
            })),
        )
        .with_annotations(annotations("Take a screenshot", true, false, true)),
    );
    out.push(
        Tool::new(
            LIST_DEVICES,
            "The phones the adb and hdc servers see (serial, state, model), each a name `device` takes; \
             \"sim\" is always there: a virtual phone of this client's own.",
            schema(json!({"type": "object", "properties": {}, "additionalProperties": false})),
        )
        .with_annotations(annotations("List devices", true, false, true)),
    );
    out.push(
        Tool::new(
            START_SIM,
            "Start a fresh built-in virtual phone for this client (android, ios or harmony); calls that name \
             no device go to it from then on. Its apps: Settings, Messages, Notes, Contacts, Clock, a shop.",
            schema(json!({
                "type": "object",
                "properties": {"platform": {"type": "string", "enum": ["android", "ios", "harmony"]}},
                "additionalProperties": false
            })),
        )
        .with_annotations(annotations("Start a virtual phone", false, false, false)),
    );
    out.push(
        Tool::new(
            RESET,
            "Forget the session's variables and functions and put a virtual phone back to its first state \
             (settings, apps' data); a real phone keeps its state.",
            schema(
                json!({"type": "object", "properties": {"device": device_property()}, "additionalProperties": false}),
            ),
        )
        .with_annotations(annotations("Reset the session", false, true, true)),
    );
    out.push(
        Tool::new(
            EXPORT_SCRIPT,
            "This session's calls as one Rhai script that replays them (`codeact exec session.rhai`): the \
             snippets that ran without an error, in order, index taps as selectors; it is also kept in the \
             session's run directory.",
            schema(json!({"type": "object", "properties": {}, "additionalProperties": false})),
        )
        .with_annotations(annotations("Export the session as a script", true, false, true)),
    );
    out.push(
        Tool::new(
            RUN_TASK,
            "Hand a goal in plain words to codeact's own agent (the model codeact mcp was started with): it \
             observes, writes and runs scripts step by step on this client's phone until it completes or runs \
             out of steps, and answers with the outcome, its reason, and its run directory with a replay script.",
            schema(json!({
                "type": "object",
                "properties": {
                    "goal": {"type": "string", "description": "what to do, e.g. \"Turn off Wi-Fi\""},
                    "device": device_property(),
                    "max_steps": {"type": "integer", "minimum": 1, "maximum": 500, "description": "default 15"}
                },
                "required": ["goal"],
                "additionalProperties": false
            })),
        )
        .with_annotations(annotations("Run a task with codeact's agent", false, true, false).open_world(true)),
    );
    out.push(
        Tool::new(
            EVAL,
            "Run chosen templates of codeact's task suite (79 seeded tasks over the virtual phone's apps: \
             settings, messages, notes, clock, calendar, contacts, expenses, files, arcade), each on a fresh \
             virtual phone, judged on the phone's state; by the oracle (each template's reference script) or \
             the llm agent. Answers with the scores and where the results are. At most 20 instances a call.",
            schema(json!({
                "type": "object",
                "properties": {
                    "tasks": {"type": "string", "description": "template ids or patterns, comma-separated: \"settings_wifi_*,clock_*\""},
                    "agent": {"type": "string", "enum": ["oracle", "llm"], "description": "default: llm when the server has a model, else oracle"},
                    "instances": {"type": "integer", "minimum": 1, "maximum": MAX_EVAL_INSTANCES, "description": "parameter draws per template (default 1)"}
                },
                "required": ["tasks"],
                "additionalProperties": false
            })),
        )
        .with_annotations(annotations("Evaluate on the task suite", false, false, true)),
    );
    if expose != Expose::Code {
        for g in gesture_tools(allowed, Finish::Left).into_iter().chain(script_gesture_tools(script_tools)) {
            let read_only = matches!(g.access, Access::Reads | Access::Asserts);
            let title = format!("{} (codeact tool)", g.name);
            out.push(
                Tool::new(g.name, g.description, Arc::new(g.input_schema))
                    .with_annotations(annotations(&title, read_only, true, false)),
            );
        }
    }
    // Over protocol 2026-07-28 there are no MCP sessions: a caller keeps its variables
    // and phones apart from another program's by naming its own (server.rs's client_key).
    for tool in &mut out {
        if let Some(Value::Object(properties)) = Arc::make_mut(&mut tool.input_schema).get_mut("properties") {
            properties.entry("session").or_insert_with(session_property);
        }
    }
    out
}

fn session_property() -> Value {
    json!({"type": "string", "maxLength": MAX_SESSION_NAME, "description": "only over HTTP without an MCP session (protocol \
        2026-07-28): a name for this caller's session; calls that give the same name share variables, functions \
        and phones (default: one session per client name)"})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_takes_a_session_name() {
        for tools in [
            listed_tools(Expose::Both, &|_| true, &ScriptTools::default()),
            listed_tools(Expose::Code, &|_| true, &ScriptTools::default()),
        ] {
            for tool in tools {
                assert_eq!(tool.input_schema["properties"]["session"]["type"], "string", "{}", tool.name);
                assert!(!tool.input_schema.get("required").is_some_and(|r| r.to_string().contains("session")));
            }
        }
    }

    #[test]
    fn code_mode_lists_run_script_with_the_api_and_no_gestures() {
        let tools = listed_tools(Expose::Code, &|_| true, &ScriptTools::default());
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(
            names,
            [RUN_SCRIPT, OBSERVE, SCREENSHOT, LIST_DEVICES, START_SIM, RESET, EXPORT_SCRIPT, RUN_TASK, EVAL]
        );
        let run = &tools[0];
        let doc = run.description.as_deref().unwrap_or("");
        assert!(doc.contains("- tap(sel)") && doc.contains("- swipe(x1, y1, x2, y2[, ms])"), "{doc}");
        assert_eq!(run.annotations.as_ref().and_then(|a| a.read_only_hint), Some(false));
        assert_eq!(tools[1].annotations.as_ref().and_then(|a| a.read_only_hint), Some(true));
    }

    #[test]
    fn tools_mode_lists_each_gesture_with_its_schema_and_a_persona_narrows_it() {
        let tools = listed_tools(Expose::Tools, &|t| t != "shell", &ScriptTools::default());
        assert!(!tools.iter().any(|t| t.name == RUN_SCRIPT || t.name == "shell"));
        let swipe = tools.iter().find(|t| t.name == "swipe").unwrap();
        let mut required: Vec<&str> =
            swipe.input_schema["required"].as_array().unwrap().iter().filter_map(|v| v.as_str()).collect();
        required.sort_unstable();
        assert_eq!(required, ["x1", "x2", "y1", "y2"], "ms is optional");
        let find = tools.iter().find(|t| t.name == "find").unwrap();
        assert_eq!(find.annotations.as_ref().and_then(|a| a.read_only_hint), Some(true));
        assert!(!tools.iter().any(|t| t.name == "watch"), "a callback cannot come as JSON");
    }
}
