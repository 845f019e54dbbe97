//! The spans a run's events make: sub-agents nest their steps, planner calls hang off
//! the run, contents go out without secrets, and a cut run closes its spans.

use std::sync::{Arc, Mutex};

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};

use super::*;
use codeact_engine::sandbox::{ErrorKind, RunError};

/// Keeps what it is given (the simple processor hands each span over as it ends).
#[derive(Debug, Clone, Default)]
struct Kept(Arc<Mutex<Vec<SpanData>>>);

impl SpanExporter for Kept {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        self.0.lock().unwrap().extend(batch);
        Ok(())
    }
}

fn spans_of(content: bool, events: &[Event]) -> Vec<SpanData> {
    let kept = Kept::default();
    let provider = SdkTracerProvider::builder().with_simple_exporter(kept.clone()).build();
    let mut spans = RunSpans::new(provider.tracer("test"), "run-1", content);
    let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    for (i, event) in events.iter().enumerate() {
        spans.event(event, t0 + Duration::from_millis(100 * i as u64));
    }
    drop(spans);
    kept.0.lock().unwrap().clone()
}

fn find<'a>(spans: &'a [SpanData], name: &str) -> Vec<&'a SpanData> {
    spans.iter().filter(|s| s.name == name).collect()
}

fn attr(span: &SpanData, key: &str) -> Option<String> {
    span.attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| kv.value.to_string())
}

fn run_start() -> Event<'static> {
    Event::RunStart {
        task: "Turn off Wi-Fi".into(),
        persona: "default".into(),
        model: "gpt-4o-mini".into(),
        provider: "api.openai.com".into(),
        device: "sim".into(),
        max_steps: 5,
        vision: false,
        save: "step".into(),
        action_format: None,
    }
}

fn request(step: usize, role: &'static str) -> Event<'static> {
    Event::LlmRequest { step, role: role.into(), model: "gpt-4o-mini".into(), messages: 2, images: 0 }
}

fn reply(step: usize, role: &'static str) -> Event<'static> {
    Event::LlmReply {
        step,
        role: role.into(),
        text: "ok sk-abcdefghijklmnop".into(),
        prompt_tokens: 120,
        completion_tokens: 7,
        total_tokens: 127,
        ms: 50.0,
        attempts: 1,
        calls: Vec::new(),
    }
}

fn step_end(step: usize) -> Event<'static> {
    Event::StepEnd { step, wall_ms: 1.0, llm_ms: 0.5, device_ms: 0.25, overhead_ms: 0.25, more_actions: 0 }
}

#[test]
fn sub_agents_nest_their_steps_and_planner_calls_hang_off_the_run() {
    let items = vec![crate::trajectory::PlanItem {
        goal: "open Settings".into(),
        expect: None,
        app: None,
        carry: Vec::new(),
        action: None,
    }];
    let summary = serde_json::json!({"outcome": "failure", "steps": 1, "reason": "gave up"});
    let syntax = RunError::plain("unexpected end", ErrorKind::Syntax);
    let args = vec!["\"com.android.settings\"".to_string()];
    let events = vec![
        run_start(),
        request(0, "planner"),
        reply(0, "planner"),
        Event::Plan { step: 0, replan: 0, items: items.as_slice().into(), why: None },
        Event::Phase { step: 0, persona: "app_starter".into(), task: "open Settings".into() },
        Event::StepStart { step: 1 },
        request(1, "actor"),
        reply(1, "actor"),
        Event::Code { step: 1, code: "start_app(\"com.android.settings\")".into() },
        Event::Action {
            step: 1,
            tool: "start_app".into(),
            args: args.as_slice().into(),
            result: "not installed".into(),
            failure: Some(codeact_engine::sandbox::FailureKind::NotFound),
            started_ms: 0.0,
            duration_ms: 20.0,
            target: None,
            effect: None,
            toggled: Default::default(),
            screen: None,
            fallback: None,
            point: None,
            located: None,
            screenshot: None,
            ui: None,
        },
        Event::ParseError { step: 1, error: std::borrow::Cow::Borrowed(&syntax) },
        step_end(1),
        Event::RunEnd(std::borrow::Cow::Borrowed(&summary)),
    ];
    let spans = spans_of(false, &events);
    let root = find(&spans, "invoke_agent codeact")[0];
    let phase = find(&spans, "invoke_agent app_starter")[0];
    let step = find(&spans, "step")[0];
    let chats = find(&spans, "chat gpt-4o-mini");
    let planner = chats.iter().find(|c| attr(c, sc::STRATEGY_ROLE).as_deref() == Some("planner")).unwrap();
    let actor = chats.iter().find(|c| attr(c, sc::STRATEGY_ROLE).as_deref() == Some("actor")).unwrap();
    let snippet = find(&spans, "snippet")[0];
    let tool = find(&spans, "execute_tool start_app")[0];
    let id = |s: &SpanData| s.span_context.span_id();
    assert_eq!(planner.parent_span_id, id(root));
    assert_eq!(phase.parent_span_id, id(root));
    assert_eq!(step.parent_span_id, id(phase));
    assert_eq!(actor.parent_span_id, id(step));
    assert_eq!(snippet.parent_span_id, id(step));
    assert_eq!(tool.parent_span_id, id(snippet));
    assert!(spans.iter().all(|s| s.span_context.trace_id() == root.span_context.trace_id()));
    assert_eq!(attr(planner, sc::PROVIDER_NAME).as_deref(), Some("openai"));
    assert_eq!(attr(actor, sc::USAGE_INPUT_TOKENS).as_deref(), Some("120"));
    assert_eq!(attr(tool, sc::ERROR_TYPE).as_deref(), Some("tool.not_found"));
    assert_eq!(tool.status, Status::error("the tool failed"), "without contents the tool's message stays home");
    assert_eq!(
        tool.end_time.duration_since(tool.start_time).ok(),
        Some(Duration::from_millis(20)),
        "the action's own duration"
    );
    assert_eq!(attr(snippet, sc::ERROR_TYPE).as_deref(), Some("syntax"));
    assert_eq!(attr(root, sc::OUTCOME).as_deref(), Some("failure"));
    assert_eq!(root.status, Status::error("failure"), "without contents the reason stays home");
    assert_eq!(root.events.len(), 1, "the plan is an event on the run");
    assert!(root.events.events[0].attributes.iter().all(|kv| kv.key.as_str() != sc::EVENT_TEXT));
    assert!(spans.iter().all(|s| attr(s, sc::TASK).is_none() && attr(s, sc::OUTPUT_MESSAGES).is_none()));
}

#[test]
fn contents_are_exported_without_secrets_and_cut_runs_close_their_spans() {
    let events = vec![run_start(), Event::StepStart { step: 1 }, request(1, "actor"), reply(1, "actor")];
    let spans = spans_of(true, &events);
    let chat = find(&spans, "chat gpt-4o-mini")[0];
    let output = attr(chat, sc::OUTPUT_MESSAGES).unwrap();
    assert!(output.contains("ok [key]") && !output.contains("abcdefghijklmnop"), "{output}");
    let root = find(&spans, "invoke_agent codeact")[0];
    assert_eq!(attr(root, sc::TASK).as_deref(), Some("Turn off Wi-Fi"));
    // The run never ended: its step and the run are closed, marked as cut short.
    let step = find(&spans, "step")[0];
    assert!(matches!(&step.status, Status::Error { .. }), "{:?}", step.status);
    assert!(matches!(&root.status, Status::Error { .. }));
}

fn node(step: usize, path: &'static str, state: &'static str) -> Event<'static> {
    Event::Node { step, path: path.into(), goal: "a goal".into(), state: state.into(), detail: Some("why".into()) }
}

#[test]
fn tree_nodes_nest_their_children_and_steps_and_say_how_they_ended() {
    let events = vec![
        run_start(),
        node(0, "1", "start"),
        node(0, "1", "branch"),
        node(0, "1.1", "start"),
        Event::StepStart { step: 1 },
        step_end(1),
        node(1, "1.1", "done"),
        node(1, "1.2", "start"),
        Event::StepStart { step: 2 },
        step_end(2),
        node(2, "1.2", "failed"),
        node(2, "1.3", "start"),
        Event::StepStart { step: 3 },
    ];
    let spans = spans_of(false, &events);
    let by_path = |path: &str| find(&spans, &format!("tree_node {path}"))[0].clone();
    let root = by_path("1");
    for (child, outcome) in [("1.1", "done"), ("1.2", "failed")] {
        let span = by_path(child);
        assert_eq!(span.parent_span_id, root.span_context.span_id(), "{child} hangs off node 1");
        assert_eq!(attr(&span, "codeact.node.outcome").as_deref(), Some(outcome));
        assert_eq!(attr(&span, "codeact.node.goal"), None, "goals are content");
    }
    assert!(matches!(by_path("1.2").status, Status::Error { .. }));
    let steps = find(&spans, "step");
    assert_eq!(steps[0].parent_span_id, by_path("1.1").span_context.span_id(), "a step hangs off its node");
    assert_eq!(steps[2].parent_span_id, by_path("1.3").span_context.span_id());
    assert_eq!(root.events.iter().map(|e| e.name.to_string()).collect::<Vec<_>>(), ["codeact.node.split"]);
    assert!(matches!(by_path("1.3").status, Status::Error { .. }), "cut short: closed by the drop");
}
