//! Code against function calls, without a model: what the two action formats cost in
//! model calls and tokens when the same plan drives both. The oracle solves every
//! template once (`codeact eval --agent oracle`); its recorded actions are the plan.
//! A scripted OpenAI-compatible server on 127.0.0.1 then plays that plan through
//! `codeact eval --actions code,json`: as code, one Rhai snippet per screen (the
//! actions until the app or activity changes, `complete` after the last); as
//! function calls, one call per turn (`complete` a turn of its own). Reads (`find`)
//! are the oracle's own way to compute and are left out of both: a model reads the
//! screen it is shown; so are what the blocker watchers did (they run for both
//! formats alike). Tokens are o200k (GPT-4o's tokenizer) counts of what each
//! request carries — the messages, and the tools' JSON for function calls — and of
//! each reply. It prints the per-template table and the totals (also
//! `formats.md` in the output folder).
//!
//! Run with `cargo bench --bench formats` (`-- --tasks 'settings_*'` narrows it;
//! under `cargo test` it runs two templates as a smoke test).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::routing::post;
use serde_json::{Map, Value, json};

/// One template's plan: the snippets of the code format and the calls of the other.
#[derive(Debug, Default, Clone)]
struct Plan {
    snippets: Vec<String>,
    calls: Vec<(String, Value)>,
}

/// A recorded Rhai literal (an action's argument) as JSON: evaluated by a bare
/// engine, then converted.
fn literal_json(engine: &rhai::Engine, literal: &str) -> Option<Value> {
    let value = engine.eval_expression::<rhai::Dynamic>(literal).ok()?;
    Some(dynamic_json(&value))
}

fn dynamic_json(value: &rhai::Dynamic) -> Value {
    if let Some(s) = value.clone().try_cast::<rhai::ImmutableString>() {
        return Value::String(s.to_string());
    }
    if let Ok(i) = value.as_int() {
        return json!(i);
    }
    if let Ok(f) = value.as_float() {
        return json!(f);
    }
    if let Ok(b) = value.as_bool() {
        return json!(b);
    }
    if let Some(items) = value.clone().try_cast::<rhai::Array>() {
        return Value::Array(items.iter().map(dynamic_json).collect());
    }
    if let Some(map) = value.clone().try_cast::<rhai::Map>() {
        return Value::Object(map.iter().map(|(k, v)| (k.to_string(), dynamic_json(v))).collect());
    }
    Value::Null
}

/// The plan a recorded run makes: its actions (reads left out), as snippets per
/// screen and as calls with named arguments.
fn plan(events: &str) -> Option<Plan> {
    let engine = rhai::Engine::new_raw();
    let mut plan = Plan::default();
    let mut group: Vec<String> = Vec::new();
    let mut screen: Option<Value> = None;
    for line in events.lines() {
        let event: Value = serde_json::from_str(line).ok()?;
        if event["event"] != "action" {
            continue;
        }
        let tool = event["tool"].as_str()?;
        let args: Vec<&str> = event["args"].as_array()?.iter().filter_map(Value::as_str).collect();
        // A watcher's own record is not a call, and a call a watcher had already
        // made for the script did nothing: a model would not see the dialog at all.
        let by_watcher = event["effect"].as_str().is_some_and(|e| e.starts_with("already done:"));
        let Some(spec) = codeact::tools::form_of(tool, args.len()) else { continue };
        if by_watcher {
            continue;
        }
        if spec.access == codeact::tools::Access::Reads {
            continue;
        }
        let mut named = Map::new();
        for (param, arg) in spec.params.iter().zip(&args) {
            named.insert(param.name.to_string(), literal_json(&engine, arg)?);
        }
        plan.calls.push((tool.to_string(), Value::Object(named)));
        group.push(format!("{tool}({});", args.join(", ")));
        // The screen it left: a new app or activity ends the snippet.
        let after = event.get("screen").cloned();
        if after.is_some() && screen.is_some() && after != screen {
            plan.snippets.push(group.join("\n"));
            group.clear();
        }
        if after.is_some() {
            screen = after;
        }
    }
    group.push("complete(true, \"done\");".into());
    plan.snippets.push(group.join("\n"));
    Some(plan)
}

struct Server {
    plans: HashMap<String, Plan>,
    bpe: &'static tiktoken_rs::CoreBPE,
}

/// The task a request is about, from its first user message (`Task: ...`).
fn task_of(request: &Value) -> String {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let first = messages.iter().find(|m| m["role"] == "user").and_then(|m| m["content"].as_str()).unwrap_or("");
    // The system prompt may lead the first user message (`--no-system-role`).
    let from = first.find("Task: ").map_or(first, |at| &first[at + "Task: ".len()..]);
    from.lines().next().unwrap_or("").trim().to_string()
}

async fn completions(State(server): State<Arc<Server>>, body: String) -> axum::Json<Value> {
    let request: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let turn = request["messages"].as_array().map_or(0, |m| m.iter().filter(|m| m["role"] == "assistant").count());
    let plan = server.plans.get(&task_of(&request)).cloned().unwrap_or_default();
    let json_format = request.get("tools").is_some();
    let (content, calls) = if json_format {
        match plan.calls.get(turn) {
            Some((name, args)) => (String::new(), vec![(name.clone(), args.to_string())]),
            None if turn == plan.calls.len() => {
                (String::new(), vec![("complete".to_string(), json!({"success": true, "reason": "done"}).to_string())])
            }
            None => (
                String::new(),
                vec![("complete".to_string(), json!({"success": false, "reason": "off plan"}).to_string())],
            ),
        }
    } else {
        let code = plan.snippets.get(turn).cloned().unwrap_or_else(|| "complete(false, \"off plan\");".into());
        (format!("Thought: step {}.\n```rhai\n{code}\n```", turn + 1), Vec::new())
    };
    // What the request carries: every message's text and calls, and the tools offered.
    let mut sent = String::new();
    for m in request["messages"].as_array().into_iter().flatten() {
        sent.push_str(m["content"].as_str().unwrap_or(""));
        if let Some(tool_calls) = m.get("tool_calls") {
            sent.push_str(&tool_calls.to_string());
        }
    }
    if let Some(tools) = request.get("tools") {
        sent.push_str(&tools.to_string());
    }
    let called: String = calls.iter().map(|(n, a)| format!("{n}{a}")).collect();
    let written = format!("{content}{called}");
    let (prompt, completion) = (server.bpe.encode_ordinary(&sent).len(), server.bpe.encode_ordinary(&written).len());
    let mut message = json!({"role": "assistant", "content": content});
    if !calls.is_empty() {
        message["tool_calls"] = calls
            .iter()
            .enumerate()
            .map(|(i, (name, args))| {
                json!({"id": format!("call_{turn}_{i}"), "type": "function", "function": {"name": name, "arguments": args}})
            })
            .collect();
    }
    axum::Json(json!({
        "id": "chatcmpl-plan",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": request["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": if calls.is_empty() { "stop" } else { "tool_calls" }}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    }))
}

fn codeact(args: &[String]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(args)
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("CODEACT_MODEL")
        .env_remove("CODEACT_CONFIG")
        .output()
        .expect("codeact runs")
}

/// The oracle's run of every chosen template: goal → its plan.
fn record(out: &Path, tasks: &[String]) -> HashMap<String, Plan> {
    let dir = out.join("oracle");
    let mut args: Vec<String> = ["eval", "--agent", "oracle", "--out"].map(String::from).to_vec();
    args.push(dir.display().to_string());
    args.extend(tasks.iter().cloned());
    let ran = codeact(&args);
    assert!(ran.status.success(), "the oracle: {}", String::from_utf8_lossy(&ran.stderr));
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).expect("results.json")).expect("JSON");
    let mut plans = HashMap::new();
    for r in results["results"].as_array().into_iter().flatten() {
        let run = PathBuf::from(r["run_dir"].as_str().unwrap_or_default());
        let events = std::fs::read_to_string(run.join("events.jsonl")).unwrap_or_default();
        match plan(&events) {
            Some(p) => {
                plans.insert(r["goal"].as_str().unwrap_or_default().to_string(), p);
            }
            None => eprintln!("{}: its recorded actions make no plan", r["task"]),
        }
    }
    plans
}

/// A persona with the default one's prompt and every tool the plans call.
fn persona(out: &Path, plans: &HashMap<String, Plan>) -> PathBuf {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/personas/default.toml")).expect("default");
    let mut table: toml::Table = toml::from_str(&text).expect("the default persona");
    let mut tools: Vec<String> =
        table["tools"].as_array().into_iter().flatten().filter_map(|t| t.as_str().map(String::from)).collect();
    for plan in plans.values() {
        for (tool, _) in &plan.calls {
            if !tools.contains(tool) {
                tools.push(tool.clone());
            }
        }
    }
    table.insert("name".into(), "formats".into());
    table.insert("tools".into(), toml::Value::Array(tools.into_iter().map(toml::Value::String).collect()));
    let path = out.join("formats.toml");
    std::fs::write(&path, toml::to_string(&table).expect("TOML")).expect("write the persona");
    path
}

fn main() {
    let given: Vec<String> = std::env::args().skip(1).collect();
    let smoke = !given.iter().any(|a| a == "--bench");
    let mut tasks: Vec<String> = given.into_iter().filter(|a| a != "--bench").collect();
    if smoke && !tasks.iter().any(|a| a == "--tasks") {
        tasks.extend(["--tasks".to_string(), "settings_wifi_off,notes_create".to_string()]);
    }
    let out = std::env::temp_dir().join(format!("codeact-formats-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).expect("the output folder");
    let plans = record(&out, &tasks);
    let persona = persona(&out, &plans);
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).expect("a loopback port");
    let addr = listener.local_addr().expect("the port");
    let server = Arc::new(Server { plans, bpe: tiktoken_rs::o200k_base_singleton() });
    runtime.spawn(async move {
        let app = Router::new().route("/v1/chat/completions", post(completions)).with_state(server);
        let _ = axum::serve(listener, app).await;
    });
    let mut args: Vec<String> =
        ["eval", "--actions", "code,json", "--model", "plan", "--vision", "off"].map(String::from).to_vec();
    args.extend(["--verify-completion".into(), "off".into(), "--base-url".into(), format!("http://{addr}/v1")]);
    args.extend(["--persona".into(), persona.display().to_string()]);
    args.extend(["--out".into(), out.join("formats").display().to_string()]);
    args.extend(tasks.iter().cloned());
    let ran = codeact(&args);
    let table = std::fs::read_to_string(out.join("formats/formats.md")).unwrap_or_default();
    println!("{table}");
    if !ran.status.success() {
        eprintln!("{}", String::from_utf8_lossy(&ran.stderr));
    }
    let per_step = |format: &str| -> Option<(f64, f64)> {
        let text = std::fs::read_to_string(out.join("formats").join(format).join("results.json")).ok()?;
        let results: Value = serde_json::from_str(&text).ok()?;
        let all = &results["summary"]["all"];
        let calls = all["llm_calls"].as_f64()?.max(1.0);
        let instances = all["instances"].as_f64()?.max(1.0);
        Some((all["prompt_tokens"].as_f64()? / calls, all["prompt_tokens"].as_f64()? / instances))
    };
    for format in ["code", "json"] {
        if let Some((step, task)) = per_step(format) {
            println!("{format}: {step:.0} prompt tokens per model call, {task:.0} per task");
        }
    }
    eprintln!("folders: {}", out.display());
    if smoke {
        let _ = std::fs::remove_dir_all(&out);
    }
    std::process::exit(ran.status.code().unwrap_or(1));
}
