//! Spans from a run directory's events, as they are appended: `invoke_agent
//! codeact` for a run (`exec NAME` for a script), `invoke_agent PERSONA` for a
//! hierarchical sub-agent, a `step` span per step, `chat MODEL` per LLM call,
//! `snippet` per snippet run, `execute_tool TOOL` per action, a `tree_node PATH`
//! span per `--strategy tree` node nesting its children's and its steps; planner
//! and reflector calls between steps hang off the run (or the node). Each span takes its times
//! from its events, so the trace and `events.jsonl` agree to the millisecond.
//!
//! Not here: sending (the SDK's batch exporter) or deciding what is content. Every
//! string goes through the secret filter; contents only when asked for.

use std::time::{Duration, SystemTime};

use opentelemetry::trace::{SpanKind, Status, TraceContextExt as _, Tracer as _};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::trace::SdkTracer;
use serde_json::json;

mod attributes;

use super::semconv as sc;
use crate::trajectory::{Event, EventObserver, RunFacts};
use attributes::{count, enum_word, error_status, error_type, input_messages, ms, text};
use codeact_runtime::llm::Message;

/// The spans of one run directory, open ones kept until their closing event.
pub struct RunSpans {
    tracer: SdkTracer,
    conversation: String,
    content: bool,
    /// `gen_ai.provider.name` of the run's model.
    provider: String,
    root: Option<Context>,
    phase: Option<Context>,
    /// The open tree nodes, outermost first, by path.
    nodes: Vec<(String, Context)>,
    step: Option<Context>,
    chat: Option<Context>,
    snippet: Option<Context>,
    /// The messages of the LLM request about to start (contents only).
    prompt: Option<String>,
}

/// Ends the span `cx` holds, if any, at `at`.
fn end(cx: Option<Context>, at: SystemTime) {
    if let Some(cx) = cx {
        cx.span().end_with_timestamp(at);
    }
}

impl RunSpans {
    pub(super) fn new(tracer: SdkTracer, conversation: &str, content: bool) -> Self {
        Self {
            tracer,
            conversation: conversation.to_string(),
            content,
            provider: String::new(),
            root: None,
            phase: None,
            nodes: Vec::new(),
            step: None,
            chat: None,
            snippet: None,
            prompt: None,
        }
    }

    fn open(
        &self,
        name: String,
        kind: SpanKind,
        parent: Option<&Context>,
        at: SystemTime,
        attrs: Vec<KeyValue>,
    ) -> Context {
        let builder = opentelemetry::trace::SpanBuilder::from_name(name)
            .with_kind(kind)
            .with_start_time(at)
            .with_attributes(attrs);
        let span = self.tracer.build_with_context(builder, parent.unwrap_or(&Context::new()));
        Context::new().with_span(span)
    }

    /// Where a step or a between-steps call hangs: the tree node in hand, else the
    /// sub-agent, else the run.
    fn agent(&self) -> Option<&Context> {
        self.nodes.last().map(|(_, cx)| cx).or(self.phase.as_ref()).or(self.root.as_ref())
    }

    /// Where an action hangs: the snippet, else the step, else the agent.
    fn innermost(&self) -> Option<&Context> {
        self.snippet.as_ref().or(self.step.as_ref()).or_else(|| self.agent())
    }

    fn content_attr(&self, attrs: &mut Vec<KeyValue>, key: &'static str, value: &str) {
        if self.content {
            attrs.push(text(key, value));
        }
    }

    /// A span event on the innermost open span.
    fn note(&self, name: &'static str, at: SystemTime, mut attrs: Vec<KeyValue>, content: Option<&str>) {
        if let Some(t) = content {
            self.content_attr(&mut attrs, sc::EVENT_TEXT, t);
        }
        if let Some(cx) = self.innermost() {
            cx.span().add_event_with_timestamp(name, at, attrs);
        }
    }

    fn close_step(&mut self, at: SystemTime) {
        end(self.chat.take(), at);
        end(self.snippet.take(), at);
        end(self.step.take(), at);
    }

    fn close_nodes(&mut self, at: SystemTime) {
        while let Some((_, cx)) = self.nodes.pop() {
            cx.span().end_with_timestamp(at);
        }
    }

    /// A tree node's event: `start` opens its span under the node in hand, `branch`
    /// marks the split, an ending closes it (and any child left open).
    fn node(&mut self, path: &str, goal: &str, state: &str, detail: Option<&str>, at: SystemTime) {
        match state {
            "start" => {
                self.close_step(at);
                let depth = path.split('.').count() as u64;
                let mut attrs = vec![text(sc::NODE_PATH, path), count(sc::NODE_DEPTH, depth)];
                self.content_attr(&mut attrs, sc::NODE_GOAL, goal);
                let name = format!("{} {path}", sc::NODE_SPAN);
                let cx = self.open(name, SpanKind::Internal, self.agent(), at, attrs);
                self.nodes.push((path.to_string(), cx));
            }
            "branch" => {
                if let Some((_, cx)) = self.nodes.iter().rev().find(|(p, _)| p == path) {
                    let mut attrs = Vec::new();
                    self.content_attr(&mut attrs, sc::EVENT_TEXT, detail.unwrap_or(""));
                    cx.span().add_event_with_timestamp(sc::EVENT_NODE_SPLIT, at, attrs);
                }
            }
            outcome => {
                if !self.nodes.iter().any(|(p, _)| p == path) {
                    return;
                }
                self.close_step(at);
                while let Some((p, cx)) = self.nodes.pop() {
                    if p != path {
                        cx.span().end_with_timestamp(at);
                        continue;
                    }
                    let span = cx.span();
                    span.set_attribute(text(sc::NODE_OUTCOME, outcome));
                    if outcome == "failed" {
                        span.set_attribute(text(sc::ERROR_TYPE, "node_failed"));
                        let why = detail.filter(|_| self.content).unwrap_or("the node failed");
                        span.set_status(error_status(why));
                    } else {
                        span.set_status(Status::Ok);
                    }
                    span.end_with_timestamp(at);
                    break;
                }
            }
        }
    }

    fn close_all(&mut self, at: SystemTime) {
        self.close_step(at);
        self.close_nodes(at);
        end(self.phase.take(), at);
        end(self.root.take(), at);
    }

    fn on_event(&mut self, event: &Event, at: SystemTime) {
        match event {
            Event::RunStart { task, persona, model, provider, device, max_steps, .. } => {
                self.close_all(at);
                self.provider = sc::provider_name(provider).to_string();
                let mut attrs = vec![
                    text(sc::OPERATION_NAME, sc::INVOKE_AGENT),
                    text(sc::AGENT_NAME, sc::AGENT),
                    text(sc::PROVIDER_NAME, &self.provider),
                    text(sc::REQUEST_MODEL, model),
                    text(sc::CONVERSATION_ID, &self.conversation),
                    text(sc::PERSONA, persona),
                    text(sc::DEVICE, device),
                    count(sc::MAX_STEPS, *max_steps as u64),
                ];
                self.content_attr(&mut attrs, sc::TASK, task);
                let name = format!("{} {}", sc::INVOKE_AGENT, sc::AGENT);
                self.root = Some(self.open(name, SpanKind::Internal, None, at, attrs));
            }
            Event::Start { script, device } => {
                self.close_all(at);
                let file = std::path::Path::new(script.as_ref()).file_name().map(|f| f.to_string_lossy().into_owned());
                let attrs = vec![
                    text(sc::SCRIPT_PATH, script),
                    text(sc::DEVICE, device),
                    text(sc::CONVERSATION_ID, &self.conversation),
                ];
                let name = format!("{} {}", sc::SCRIPT_SPAN, file.as_deref().unwrap_or(script));
                self.root = Some(self.open(name, SpanKind::Internal, None, at, attrs));
            }
            Event::SessionStart { client, device, door } => {
                self.close_all(at);
                let attrs = vec![text(sc::DEVICE, device), text(sc::CONVERSATION_ID, &self.conversation)];
                let door = door.as_deref().unwrap_or("mcp");
                self.root = Some(self.open(format!("{door}_session {client}"), SpanKind::Server, None, at, attrs));
            }
            Event::ExploreStart { app, strategy, .. } => {
                self.close_all(at);
                let attrs = vec![text(sc::STRATEGY, strategy), text(sc::CONVERSATION_ID, &self.conversation)];
                self.root = Some(self.open(format!("explore {app}"), SpanKind::Internal, None, at, attrs));
            }
            Event::Finding { kind, title, .. } => {
                self.note(sc::EVENT_FINDING, at, vec![text(sc::FINDING, kind)], Some(title))
            }
            Event::Phase { persona, task, .. } => {
                self.close_step(at);
                end(self.phase.take(), at);
                let mut attrs = vec![
                    text(sc::OPERATION_NAME, sc::INVOKE_AGENT),
                    text(sc::AGENT_NAME, persona),
                    text(sc::CONVERSATION_ID, &self.conversation),
                ];
                self.content_attr(&mut attrs, sc::TASK, task);
                let name = format!("{} {persona}", sc::INVOKE_AGENT);
                self.phase = Some(self.open(name, SpanKind::Internal, self.root.as_ref(), at, attrs));
            }
            Event::StepStart { step } => {
                self.close_step(at);
                let attrs = vec![count(sc::STEP_NUMBER, *step as u64)];
                self.step = Some(self.open(sc::STEP_SPAN.into(), SpanKind::Internal, self.agent(), at, attrs));
            }
            Event::LlmRequest { role, model, .. } => {
                end(self.chat.take(), at);
                let mut attrs = vec![
                    text(sc::OPERATION_NAME, sc::CHAT),
                    text(sc::PROVIDER_NAME, &self.provider),
                    text(sc::REQUEST_MODEL, model),
                    text(sc::CONVERSATION_ID, &self.conversation),
                    text(sc::STRATEGY_ROLE, role),
                ];
                if let Some(prompt) = self.prompt.take() {
                    self.content_attr(&mut attrs, sc::INPUT_MESSAGES, &prompt);
                }
                let parent = self.step.as_ref().or_else(|| self.agent());
                self.chat = Some(self.open(format!("{} {model}", sc::CHAT), SpanKind::Client, parent, at, attrs));
            }
            Event::LlmReply { text: reply, prompt_tokens, completion_tokens, attempts, calls, .. } => {
                if let Some(cx) = self.chat.take() {
                    let span = cx.span();
                    span.set_attribute(count(sc::USAGE_INPUT_TOKENS, *prompt_tokens));
                    span.set_attribute(count(sc::USAGE_OUTPUT_TOKENS, *completion_tokens));
                    span.set_attribute(count(sc::LLM_ATTEMPTS, u64::from(*attempts)));
                    if self.content {
                        let mut parts = vec![json!({"type": "text", "content": reply})];
                        parts.extend(calls.iter().map(
                            |c| json!({"type": "tool_call", "id": c.id, "name": c.name, "arguments": c.arguments}),
                        ));
                        let finish = if calls.is_empty() { "stop" } else { "tool_call" };
                        let output = json!([{"role": "assistant", "parts": parts, "finish_reason": finish}]);
                        span.set_attribute(text(sc::OUTPUT_MESSAGES, &output.to_string()));
                    }
                    span.end_with_timestamp(at);
                }
            }
            Event::LlmError { message, .. } => {
                if let Some(cx) = self.chat.take() {
                    cx.span().set_attribute(text(sc::ERROR_TYPE, "llm_request"));
                    cx.span().set_status(error_status(message));
                    cx.span().end_with_timestamp(at);
                }
            }
            Event::Code { code, .. } => {
                end(self.snippet.take(), at);
                let mut attrs = Vec::new();
                self.content_attr(&mut attrs, sc::SNIPPET_CODE, code);
                let parent = self.step.as_ref().or_else(|| self.agent());
                self.snippet = Some(self.open(sc::SNIPPET_SPAN.into(), SpanKind::Internal, parent, at, attrs));
            }
            Event::ParseError { error, .. } | Event::Error { error, .. } => {
                if let Some(cx) = self.snippet.as_ref().or(self.step.as_ref()) {
                    cx.span().set_attribute(text(sc::ERROR_TYPE, &error_type(error)));
                    cx.span().set_status(error_status(&error.message));
                }
                if matches!(event, Event::ParseError { .. }) {
                    end(self.snippet.take(), at);
                }
            }
            Event::Output { output, value, .. } => {
                if self.content
                    && let Some(cx) = &self.snippet
                {
                    let shown = match value {
                        Some(v) if output.is_empty() => v.to_string(),
                        Some(v) => format!("{output}\n=> {v}"),
                        None => output.to_string(),
                    };
                    cx.span().set_attribute(text(sc::SNIPPET_OUTPUT, &shown));
                }
            }
            Event::Action { tool, args, result, failure, duration_ms, target, effect, .. } => {
                let took = Duration::from_secs_f64(duration_ms.max(0.0) / 1000.0);
                let start = at.checked_sub(took).unwrap_or(at);
                let mut attrs = vec![
                    text(sc::OPERATION_NAME, sc::EXECUTE_TOOL),
                    text(sc::TOOL_NAME, tool),
                    text(sc::TOOL_TYPE, sc::TOOL_TYPE_FUNCTION),
                ];
                if self.content {
                    attrs.push(text(sc::TOOL_CALL_ARGUMENTS, &serde_json::to_string(args).unwrap_or_default()));
                    attrs.push(text(sc::TOOL_CALL_RESULT, result));
                    if let Some(target) = target {
                        attrs.push(text(sc::TOOL_TARGET, target));
                    }
                    if let Some(effect) = effect {
                        attrs.push(text(sc::TOOL_EFFECT, effect));
                    }
                }
                if let Some(kind) = failure {
                    let word = enum_word(kind);
                    attrs.push(text(sc::TOOL_FAILURE, &word));
                    attrs.push(text(sc::ERROR_TYPE, &format!("tool.{word}")));
                }
                let name = format!("{} {tool}", sc::EXECUTE_TOOL);
                let cx = self.open(name, SpanKind::Internal, self.innermost(), start, attrs);
                if failure.is_some() {
                    // The result of a failed call is the tool's own error message.
                    cx.span().set_status(error_status(if self.content { result } else { "the tool failed" }));
                }
                cx.span().end_with_timestamp(at);
            }
            Event::DeviceError { message, .. } => {
                if let Some(cx) = self.step.as_ref().or_else(|| self.agent()) {
                    cx.span().set_attribute(text(sc::ERROR_TYPE, "device"));
                    cx.span().set_status(error_status(message));
                }
            }
            Event::StepEnd { llm_ms, device_ms, overhead_ms, .. } => {
                if let Some(cx) = &self.step {
                    let span = cx.span();
                    span.set_attribute(ms(sc::STEP_LLM_MS, *llm_ms));
                    span.set_attribute(ms(sc::STEP_DEVICE_MS, *device_ms));
                    span.set_attribute(ms(sc::STEP_OVERHEAD_MS, *overhead_ms));
                }
                self.close_step(at);
            }
            Event::Replayed { of, .. } => {
                if let Some(cx) = &self.step {
                    cx.span().set_attribute(count(sc::REPLAYED_STEP, *of as u64));
                }
            }
            Event::Diverged { of, why, .. } => {
                self.note(sc::EVENT_DIVERGED, at, vec![count(sc::REPLAYED_STEP, *of as u64)], Some(why));
            }
            Event::Recall { steps, .. } => self.note(sc::EVENT_RECALL, at, vec![count(sc::STEPS, *steps as u64)], None),
            Event::Plan { replan, items, why, .. } => {
                let mut shown = serde_json::to_string(items).unwrap_or_default();
                if let Some(why) = why {
                    shown = format!("{shown}\nwhy: {why}");
                }
                self.note(sc::EVENT_PLAN, at, vec![count(sc::REPLAN, *replan as u64)], Some(&shown));
            }
            Event::Reflection { text: critique, .. } => self.note(sc::EVENT_REFLECTION, at, Vec::new(), Some(critique)),
            Event::Stalled { stalled, ending, .. } => self.note(
                sc::EVENT_STALLED,
                at,
                vec![count(sc::STALLED_STEPS, *stalled as u64), KeyValue::new(sc::ENDING, *ending)],
                None,
            ),
            Event::CompletionHeld { reason, .. } => self.note(sc::EVENT_COMPLETION_HELD, at, Vec::new(), Some(reason)),
            Event::Completion { success, reason, .. } => {
                self.note(sc::EVENT_COMPLETION, at, vec![KeyValue::new(sc::SUCCESS, *success)], Some(reason));
            }
            Event::RunEnd(summary) => {
                self.close_step(at);
                self.close_nodes(at);
                end(self.phase.take(), at);
                if let Some(cx) = self.root.take() {
                    let span = cx.span();
                    let facts = RunFacts::of(summary);
                    let outcome = facts.outcome.as_deref().unwrap_or("unknown");
                    span.set_attribute(text(sc::OUTCOME, outcome));
                    span.set_attribute(count(sc::STEPS, facts.steps.unwrap_or(0)));
                    if let Some(dir) = &facts.run_dir {
                        span.set_attribute(text(sc::RUN_DIR, dir));
                    }
                    let reason = facts.reason.as_deref().unwrap_or("");
                    if self.content {
                        span.set_attribute(text(sc::REASON, reason));
                    }
                    match outcome {
                        // An agent's success, an MCP session or an exploration that ended.
                        "success" | "ended" => span.set_status(Status::Ok),
                        _ => {
                            span.set_attribute(text(sc::ERROR_TYPE, outcome));
                            span.set_status(error_status(if self.content { reason } else { outcome }));
                        }
                    }
                    span.end_with_timestamp(at);
                }
            }
            Event::End { output, error, completion, .. } => {
                self.close_step(at);
                if let Some(cx) = self.root.take() {
                    let span = cx.span();
                    if self.content && !output.is_empty() {
                        span.set_attribute(text(sc::SNIPPET_OUTPUT, output));
                    }
                    match (error, completion) {
                        (Some(e), _) => {
                            span.set_attribute(text(sc::ERROR_TYPE, &error_type(e)));
                            span.set_status(error_status(&e.message));
                        }
                        (None, Some(c)) if !c.success => {
                            span.set_attribute(text(sc::ERROR_TYPE, "failure"));
                            span.set_status(error_status(if self.content { &c.reason } else { "complete(false)" }));
                        }
                        _ => span.set_status(Status::Ok),
                    }
                    span.end_with_timestamp(at);
                }
            }
            Event::Node { path, goal, state, detail, .. } => self.node(path, goal, state, detail.as_deref(), at),
            Event::Observation { .. }
            | Event::NoCode { .. }
            | Event::McpCall { .. }
            | Event::WebdriverCall { .. }
            | Event::StudioAct { .. }
            | Event::Note { .. }
            | Event::NewScreen { .. }
            | Event::Activity { .. }
            | Event::Restart { .. }
            | Event::Planned { .. }
            | Event::Task { .. }
            | Event::ToolResult { .. }
            | Event::Unknown => {}
        }
    }
}

impl EventObserver for RunSpans {
    fn event(&mut self, event: &Event, at: SystemTime) {
        self.on_event(event, at);
    }

    fn prompt(&mut self, messages: &[Message]) {
        if self.content {
            self.prompt = Some(input_messages(messages));
        }
    }
}

impl Drop for RunSpans {
    /// A run that stopped without its closing event (a crash, an early error)
    /// still closes its spans, marked as cut short.
    fn drop(&mut self) {
        let now = SystemTime::now();
        let nodes = std::mem::take(&mut self.nodes).into_iter().rev().map(|(_, cx)| Some(cx));
        let inner = [self.chat.take(), self.snippet.take(), self.step.take()];
        for cx in inner.into_iter().chain(nodes).chain([self.phase.take(), self.root.take()]).flatten() {
            cx.span().set_status(Status::error("the run stopped before this span ended"));
            cx.span().end_with_timestamp(now);
        }
    }
}

#[cfg(test)]
mod tests;
