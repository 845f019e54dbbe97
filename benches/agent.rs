//! The agent loop's own cost, with an instant scripted LLM on loopback and the virtual
//! device: per step, wall time minus the LLM request and minus the device's time
//! (observation and actions) — goal ≤ 1 ms — and the prompt's size in o200k tokens at
//! each step of a 10-step run (it may grow only by the kept thoughts and code).
//! Run with `cargo bench --bench agent`.

#[path = "../tests/it/common/llm.rs"]
#[allow(dead_code)]
mod llm;

use std::time::Duration;

use codeact::agent::{self, AgentOptions, SaveMode};
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
    let Ok(mut session) = Session::new(device, &settings) else { return };
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
    };
    let mut one_run = |server: &llm::ScriptedLlm| {
        let flags =
            LlmFlags { base_url: Some(server.base_url.clone()), model: Some("scripted".into()), ..LlmFlags::default() };
        let client = LlmConfig::resolve(&LlmSection::default(), &flags).and_then(LlmClient::new).ok()?;
        runtime
            .block_on(agent::run_task(
                &mut session,
                &client,
                &persona,
                &options,
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
}

criterion_group!(benches, agent_steps);
criterion_main!(benches);
