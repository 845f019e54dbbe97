//! The agent loop's own cost, with an instant scripted LLM on loopback and the virtual
//! device: per step, wall time minus the LLM request and minus the device's time
//! (observation and actions) — goal ≤ 1 ms — and the prompt's size in o200k tokens at
//! each step of a 10-step run (it may grow only by the kept thoughts and code); and
//! the prompt tokens each strategy (react, plan, hierarchical) sends, per role, for
//! the same task done in the same two actions.
//! Run with `cargo bench --bench agent`.

#[path = "../tests/it/common/llm.rs"]
#[allow(dead_code)]
mod llm;

use std::time::Duration;

use codeact::agent::{self, AgentOptions, Models, SaveMode, Strategy};
use codeact::config::{FileConfig, Flags};
use codeact::device::{DeviceSpec, open};
use codeact::llm::{LlmClient, LlmConfig, LlmFlags, LlmSection};
use codeact::persona::Persona;
use codeact::session::Session;
use criterion::{Criterion, criterion_group, criterion_main};
use tokio_util::sync::CancellationToken;

const STEPS: usize = 10;

fn replies() -> Vec<llm::Canned> {
    (1..=STEPS)
        .map(|i| {
            llm::reply(&format!("Thought: step {i}; back to the home screen.\n```rhai\nhome();\nprint({i});\n```"))
        })
        .collect()
}

fn agent_steps(c: &mut Criterion) {
    let Ok(runtime) = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() else {
        return;
    };
    let out = std::env::temp_dir().join(format!("codeact-bench-agent-{}", std::process::id()));
    let settings = FileConfig::default().resolve(&Flags { persona: Some("big_agent".into()), ..Flags::default() });
    let (Ok(mut settings), Ok(persona)) = (settings, Persona::load("big_agent")) else { return };
    // The engine's worker process is the codeact binary.
    settings.worker = codeact::isolation::WorkerProgram(env!("CARGO_BIN_EXE_codeact").into());
    let Ok(device) = open(&DeviceSpec::Sim, Duration::from_secs(10)) else { return };
    let Ok(mut session) = Session::open_on(device, &settings) else { return };
    let options = AgentOptions {
        task: "Go home ten times".into(),
        max_steps: STEPS,
        vision: false,
        save: SaveMode::None,
        out_dir: out.clone(),
        loop_limit: 3,
        device_spec: Some("sim".into()),
        // Pressing Home ten times changes nothing after the first: the threshold
        // would end the run the bench measures.
        error_threshold: 0,
        verify_completion: true,
        strategy: Strategy::React,
        reflect_every: 0,
        memory: None,
        script: None,
        embeddings: None,
        report: Default::default(),
        traces: None,
        tree_depth: 3,
        export_flow: false,
        actions: Default::default(),
    };
    let mut one_run = |server: &llm::ScriptedLlm| {
        let flags =
            LlmFlags { base_url: Some(server.base_url.clone()), model: Some("scripted".into()), ..LlmFlags::default() };
        let client = LlmConfig::resolve(&LlmSection::default(), &flags).and_then(LlmClient::new).ok()?;
        let models = Models::single(client);
        runtime
            .block_on(agent::run_task(
                agent::AgentRequest { session: &mut session, models: &models, persona: &persona, options: &options },
                &CancellationToken::new(),
                &mut |_| {},
            ))
            .ok()
    };

    // Prompt size per step, counted with GPT-4o's tokenizer over what the server got.
    let server = llm::ScriptedLlm::start(replies());
    if let Some(summary) = one_run(&server) {
        let bpe = tiktoken_rs::o200k_base_singleton();
        let tokens: Vec<usize> = server
            .requests()
            .iter()
            .map(|r| {
                let text: String = r["messages"]
                    .as_array()
                    .map(|m| m.iter().map(|m| m["content"].as_str().unwrap_or("").to_string() + "\n").collect())
                    .unwrap_or_default();
                bpe.encode_ordinary(&text).len()
            })
            .collect();
        eprintln!("prompt o200k tokens per step over {} steps: {tokens:?}", summary.steps);
        let growth: Vec<i64> = tokens.windows(2).map(|w| w[1] as i64 - w[0] as i64).collect();
        eprintln!("growth per step: {growth:?}");
        eprintln!(
            "per step: wall {:.2} ms, LLM {:.2} ms, device {:.2} ms, overhead {:.3} ms",
            summary.wall_ms / summary.steps as f64,
            summary.llm_ms / summary.steps as f64,
            summary.device_ms / summary.steps as f64,
            summary.overhead_ms_per_step
        );
    }

    let mut group = c.benchmark_group("agent step (instant scripted LLM, virtual device)");
    group.sample_size(10);
    group.bench_function("runtime overhead per step (wall - LLM - device)", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let server = llm::ScriptedLlm::start(replies());
                if let Some(s) = one_run(&server) {
                    total += Duration::from_secs_f64(s.overhead_ms_per_step / 1000.0);
                }
            }
            total
        })
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&out);
    strategy_prompts(&runtime, &mut session, &persona);
}

/// o200k tokens of everything a request sent.
fn request_tokens(request: &serde_json::Value) -> usize {
    let text: String = request["messages"]
        .as_array()
        .map(|m| m.iter().map(|m| m["content"].as_str().unwrap_or("").to_string() + "\n").collect())
        .unwrap_or_default();
    tiktoken_rs::o200k_base_singleton().encode_ordinary(&text).len()
}

/// "Turn off Wi-Fi" under each strategy, the same two actions each time (open
/// Settings, tap the switch): the prompt tokens each role sent, per actor step.
fn strategy_prompts(runtime: &tokio::runtime::Runtime, session: &mut Session, persona: &Persona) {
    let open =
        llm::reply("Thought: Settings.\n```rhai\nstart_app(\"com.android.settings\");\ncomplete(true, \"open\");\n```");
    let open_only = llm::reply("Thought: Settings.\n```rhai\nstart_app(\"com.android.settings\");\n```");
    let tap = llm::reply("Thought: the switch.\n```rhai\ntap(#{id: \"wifi_switch\"});\ncomplete(true, \"off\");\n```");
    let plan = "{\"steps\": [{\"goal\": \"Open Settings\", \"expect\": \"the Settings list\"}, {\"goal\": \"Turn off Wi-Fi\"}]}";
    let apps = "{\"apps\": [{\"app\": \"Settings\", \"goal\": \"turn off Wi-Fi\"}]}";
    let cases = [
        (Strategy::React, vec![open_only, tap.clone()], None),
        (Strategy::Plan, vec![open.clone(), tap.clone()], Some(plan)),
        (Strategy::Hierarchical, vec![open, tap], Some(apps)),
    ];
    let out = std::env::temp_dir().join(format!("codeact-bench-strategies-{}", std::process::id()));
    for (strategy, actor, planner) in cases {
        let mut lists = vec![("actor", actor), ("reflector", vec![llm::reply("On track.")])];
        if let Some(p) = planner {
            lists.push(("planner", vec![llm::reply(p)]));
        }
        let server = llm::ScriptedLlm::per_model(lists);
        let client = |model: &str| {
            let flags =
                LlmFlags { base_url: Some(server.base_url.clone()), model: Some(model.into()), ..LlmFlags::default() };
            LlmConfig::resolve(&LlmSection::default(), &flags).and_then(LlmClient::new).ok()
        };
        let (Some(actor), planner, reflector) = (client("actor"), client("planner"), client("reflector")) else {
            return;
        };
        let models = Models { actor, planner, reflector };
        let options = AgentOptions {
            task: "Turn off Wi-Fi".into(),
            max_steps: 8,
            vision: false,
            save: SaveMode::None,
            out_dir: out.clone(),
            loop_limit: 3,
            device_spec: Some("sim".into()),
            error_threshold: 3,
            verify_completion: false,
            strategy,
            reflect_every: strategy.default_reflect_every(),
            memory: None,
            script: None,
            embeddings: None,
            report: Default::default(),
            traces: None,
            tree_depth: 3,
            export_flow: false,
            actions: Default::default(),
        };
        let _ = session.reset_virtual_phone();
        let (interrupt, mut quiet) = (CancellationToken::new(), |_: agent::Progress| {});
        let run = agent::run_task(
            agent::AgentRequest { session, models: &models, persona, options: &options },
            &interrupt,
            &mut quiet,
        );
        let Ok(summary) = runtime.block_on(run) else { continue };
        let by_role = |model: &str| -> Vec<usize> { server.requests_for(model).iter().map(request_tokens).collect() };
        let (actor, planner, reflector) = (by_role("actor"), by_role("planner"), by_role("reflector"));
        let all: usize = actor.iter().chain(&planner).chain(&reflector).sum();
        eprintln!(
            "strategy {:<12} outcome {:?}, {} steps: actor {actor:?}, planner {planner:?}, reflector {reflector:?}; \
             {all} prompt tokens in all, {:.0} per step",
            strategy.as_str(),
            summary.outcome,
            summary.steps,
            all as f64 / summary.steps.max(1) as f64
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}

criterion_group!(benches, agent_steps);
criterion_main!(benches);
