//! What `--otlp` adds to a step: one step's events appended to a run directory
//! (step start, LLM request and reply, code, two actions, step end) without a trace
//! observer and with one, whose spans go in batches to an OTLP/HTTP sink on
//! 127.0.0.1 (it answers 200 and keeps nothing). The batch exporter works on its
//! own thread: the difference is what the run's own thread pays. Run with
//! `cargo bench --bench traces`.

use std::sync::Arc;

use codeact::sandbox::{Action, Capture};
use codeact::trace::{Endpoint, Traces};
use codeact::trajectory::{Event, Trajectory};
use criterion::{Criterion, criterion_group, criterion_main};

/// An OTLP/HTTP endpoint that accepts everything, on a runtime of its own.
fn sink() -> Option<String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").ok()?;
    let addr = listener.local_addr().ok()?;
    listener.set_nonblocking(true).ok()?;
    std::thread::spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
        runtime.block_on(async move {
            let Ok(listener) = tokio::net::TcpListener::from_std(listener) else { return };
            let app = axum::Router::new().route("/v1/traces", axum::routing::post(|| async { "" }));
            let _ = axum::serve(listener, app).await;
        });
    });
    Some(format!("http://{addr}"))
}

fn action(tool: &str) -> Action {
    Action {
        tool: tool.into(),
        args: vec!["#{id: \"wifi_switch\"}".into()],
        result: "ok".into(),
        failure: None,
        started_ms: 1.0,
        duration_ms: 6.0,
        capture: Capture::default(),
    }
}

fn one_step(t: &mut Trajectory, n: usize, actions: &[Action]) {
    t.append(&Event::StepStart { step: n });
    t.append(&Event::LlmRequest { step: n, role: "actor".into(), model: "gpt-4o-mini".into(), messages: 3, images: 1 });
    t.append(&Event::LlmReply {
        step: n,
        role: "actor".into(),
        text: "Thought: flip it.\n```rhai\ntap(#{id: \"wifi_switch\"});\n```".into(),
        prompt_tokens: 2300,
        completion_tokens: 30,
        total_tokens: 2330,
        ms: 700.0,
        attempts: 1,
        calls: Vec::new(),
    });
    t.append(&Event::Code { step: n, code: "tap(#{id: \"wifi_switch\"});".into() });
    for a in actions {
        t.action(n, a, false);
    }
    t.append(&Event::StepEnd {
        step: n,
        wall_ms: 900.0,
        llm_ms: 700.0,
        device_ms: 190.0,
        overhead_ms: 10.0,
        more_actions: 0,
    });
}

fn traces(c: &mut Criterion) {
    let Some(url) = sink() else { return };
    let Ok(Some(endpoint)) = Endpoint::resolve(Some(&url)) else { return };
    let Ok(exporter) = Traces::start(endpoint, false) else { return };
    let exporter = Arc::new(exporter);
    let actions = [action("tap"), action("refresh")];
    let base = std::env::temp_dir().join(format!("codeact-bench-traces-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let mut group = c.benchmark_group("a step's events");
    for (name, traced) in [("without --otlp", false), ("with --otlp", true)] {
        let Ok(mut t) = Trajectory::create(&base.join(name.replace(' ', "_"))) else { return };
        if traced {
            t.add_observer(Box::new(exporter.spans_for("bench")));
        }
        let mut n = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                n += 1;
                one_step(&mut t, n, &actions);
            })
        });
    }
    group.finish();
    let sent = exporter.finish();
    println!("spans sent: {}, lost: {}", sent.spans, sent.lost);
    let _ = std::fs::remove_dir_all(&base);
}

criterion_group!(benches, traces);
criterion_main!(benches);
