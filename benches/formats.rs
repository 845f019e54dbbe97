//! Code against function calls, without a model: what the action formats cost in
//! model calls and tokens when the same plan drives them. The oracle solves every
//! template once (`codeact eval --agent oracle --record ui`); its recorded actions and
//! the screens after them make the plans (`formats/plan.rs` says how, mechanically).
//! A scripted OpenAI-compatible server on 127.0.0.1 then plays them through
//! `codeact eval`: as code, one Rhai snippet per screen (`--actions code`); as
//! function calls one per turn (`--actions json`, model `plan`); and as function calls
//! in parallel, every call a turn's observation allows in that turn (`--actions json`,
//! model `plan-parallel`). What the blocker watchers did is left out of all three
//! (they run for every format alike). Tokens are o200k (GPT-4o's tokenizer) counts of
//! what each request carries — the messages, and the tools' JSON for function calls —
//! and of each reply. It prints the three rows for the whole suite, for the
//! control-flow category and for each category (also `formats.md` in the output
//! folder), with the turns of the parallel plan that a decision on something read
//! forced.
//!
//! Run with `cargo bench --bench formats` (`-- --tasks 'settings_*'` narrows it;
//! under `cargo test` it runs four templates as a smoke test).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::routing::post;
use serde_json::{Value, json};

#[path = "formats/plan.rs"]
mod plan;

use plan::Plan;

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
    let done = || ("complete".to_string(), json!({"success": true, "reason": "done"}).to_string());
    let parallel = request["model"] == "plan-parallel";
    let (content, calls) = if json_format && parallel {
        let mut calls: Vec<(String, String)> =
            plan.turns.get(turn).into_iter().flatten().map(|(n, a)| (n.clone(), a.to_string())).collect();
        // `complete` rides with the last turn.
        if turn + 1 >= plan.turns.len() {
            calls.push(done());
        }
        (String::new(), calls)
    } else if json_format {
        match plan.calls.get(turn) {
            Some((name, args)) => (String::new(), vec![(name.clone(), args.to_string())]),
            None if turn == plan.calls.len() => (String::new(), vec![done()]),
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
    let mut args: Vec<String> = ["eval", "--agent", "oracle", "--record", "ui", "--out"].map(String::from).to_vec();
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
        match plan::plan(&events, &run) {
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
        for tool in &plan.tools {
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

/// One format's figures over a group of instances.
#[derive(Debug, Default, Clone)]
struct Row {
    instances: usize,
    solved: usize,
    calls: u64,
    prompt: u64,
    completion: u64,
    /// Turns of the parallel plan a decision on something read forced.
    read_turns: usize,
}

/// The formats, as the rows name them: (key, name).
const FORMATS: [(&str, &str); 3] =
    [("code", "code"), ("json", "function calls, one per turn"), ("parallel", "function calls in parallel")];

/// The instances of a results file.
fn instances(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let results: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    results["results"].as_array().cloned().unwrap_or_default()
}

/// The figures of `results` whose category `keep` accepts.
fn row(results: &[Value], plans: &HashMap<String, Plan>, keep: &dyn Fn(&str) -> bool, parallel: bool) -> Row {
    let mut row = Row::default();
    for r in results.iter().filter(|r| keep(r["category"].as_str().unwrap_or(""))) {
        row.instances += 1;
        row.solved += usize::from(r["score"].as_f64() == Some(1.0));
        row.calls += r["llm_calls"].as_u64().unwrap_or(0);
        row.prompt += r["prompt_tokens"].as_u64().unwrap_or(0);
        row.completion += r["completion_tokens"].as_u64().unwrap_or(0);
        if parallel {
            row.read_turns += plans.get(r["goal"].as_str().unwrap_or("")).map_or(0, |p| p.read_turns);
        }
    }
    row
}

/// The table: three rows (one per format) for each group of templates.
fn table(groups: &[(String, Vec<Row>)]) -> String {
    let price = codeact::eval::prices::listed("gpt-4o-mini");
    let mut md = String::from(
        "| templates | format | solved | model calls | prompt tokens | completion tokens | $ at gpt-4o-mini | turns a read forced |\n|---|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for (group, rows) in groups {
        for ((key, name), r) in FORMATS.iter().zip(rows) {
            let cost = price.map_or("?".to_string(), |p| format!("{:.4}", p.cost(r.prompt, r.completion)));
            let forced = if *key == "parallel" { r.read_turns.to_string() } else { "-".to_string() };
            md.push_str(&format!(
                "| {group} | {name} | {}/{} | {} | {} | {} | {cost} | {forced} |\n",
                r.solved, r.instances, r.calls, r.prompt, r.completion
            ));
        }
    }
    md
}

/// "how many times code's" for one group: calls and prompt tokens of each
/// function-call row against code's.
fn ratios(group: &str, rows: &[Row]) -> String {
    let code = &rows[0];
    let times = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let mut line = format!("{group}:");
    for ((_, name), r) in FORMATS.iter().zip(rows).skip(1) {
        line.push_str(&format!(
            " {name} take {:.1}x the model calls and {:.1}x the prompt tokens of code;",
            times(r.calls, code.calls),
            times(r.prompt, code.prompt)
        ));
    }
    line.trim_end_matches(';').to_string()
}

fn main() {
    let given: Vec<String> = std::env::args().skip(1).collect();
    let smoke = !given.iter().any(|a| a == "--bench");
    let mut tasks: Vec<String> = given.into_iter().filter(|a| a != "--bench").collect();
    if smoke && !tasks.iter().any(|a| a == "--tasks") {
        tasks.extend([
            "--tasks".to_string(),
            "settings_wifi_off,notes_create,flow_settings_if_dark,flow_expenses_delete_largest".to_string(),
        ]);
    }
    let out = std::env::temp_dir().join(format!("codeact-formats-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).expect("the output folder");
    let plans = record(&out, &tasks);
    let persona = persona(&out, &plans);
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).expect("a loopback port");
    let addr = listener.local_addr().expect("the port");
    let server = Arc::new(Server { plans: plans.clone(), bpe: tiktoken_rs::o200k_base_singleton() });
    runtime.spawn(async move {
        let app = Router::new().route("/v1/chat/completions", post(completions)).with_state(server);
        let _ = axum::serve(listener, app).await;
    });
    let play = |actions: &str, model: &str, folder: &str| {
        let mut args: Vec<String> =
            ["eval", "--actions", actions, "--model", model, "--vision", "off"].map(String::from).to_vec();
        args.extend(["--verify-completion".into(), "off".into(), "--base-url".into(), format!("http://{addr}/v1")]);
        args.extend(["--persona".into(), persona.display().to_string()]);
        args.extend(["--out".into(), out.join(folder).display().to_string()]);
        args.extend(tasks.iter().cloned());
        let ran = codeact(&args);
        if !ran.status.success() {
            eprintln!("{}", String::from_utf8_lossy(&ran.stderr));
        }
        ran.status.success()
    };
    let played = play("code,json", "plan", "formats") & play("json", "plan-parallel", "parallel");
    let per_format = [
        instances(&out.join("formats/code/results.json")),
        instances(&out.join("formats/json/results.json")),
        instances(&out.join("parallel/results.json")),
    ];
    let mut categories: Vec<String> =
        per_format[0].iter().filter_map(|r| r["category"].as_str().map(String::from)).collect();
    categories.sort();
    categories.dedup();
    let rows_of = |keep: &dyn Fn(&str) -> bool| -> Vec<Row> {
        per_format.iter().enumerate().map(|(i, results)| row(results, &plans, keep, i == 2)).collect()
    };
    let mut groups: Vec<(String, Vec<Row>)> = vec![("all".to_string(), rows_of(&|_| true))];
    groups.push(("control_flow".to_string(), rows_of(&|c| c == "control_flow")));
    for category in categories.iter().filter(|c| *c != "control_flow") {
        groups.push((category.clone(), rows_of(&|c| c == category)));
    }
    let mut md = table(&groups);
    md.push('\n');
    for (group, rows) in groups.iter().take(2) {
        md.push_str(&ratios(group, rows));
        md.push('\n');
    }
    let _ = std::fs::write(out.join("formats.md"), &md);
    println!("{md}");
    println!("per template: {}", out.join("formats/formats.md").display());
    eprintln!("folders: {}", out.display());
    let all_solved = per_format.iter().all(|r| r.iter().all(|r| r["score"].as_f64() == Some(1.0)));
    if smoke {
        let _ = std::fs::remove_dir_all(&out);
        assert!(all_solved, "every format solves every template of the smoke run");
    }
    std::process::exit(if played { 0 } else { 1 });
}
