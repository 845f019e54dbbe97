//! The span and attribute names codeact exports, in one place: the OpenTelemetry
//! GenAI semantic conventions (`gen_ai.*`, written out here because the crates'
//! constants are experimental and deprecated) and codeact's own (`codeact.*`).
//! Only names and fixed values live here; which span carries what is `spans.rs`.

// Span names (the GenAI ones end with the agent, model or tool).
pub const INVOKE_AGENT: &str = "invoke_agent";
pub const CHAT: &str = "chat";
pub const EXECUTE_TOOL: &str = "execute_tool";
/// One agent step: observe, ask, run.
pub const STEP_SPAN: &str = "step";
/// One snippet (the code of a reply, or a replayed step) run in the sandbox.
pub const SNIPPET_SPAN: &str = "snippet";
/// One `codeact exec` script.
pub const SCRIPT_SPAN: &str = "exec";
/// A `--strategy tree` node (`tree_node 1.2`).
pub const NODE_SPAN: &str = "tree_node";

// gen_ai.* (OpenTelemetry GenAI semantic conventions).
pub const OPERATION_NAME: &str = "gen_ai.operation.name";
pub const PROVIDER_NAME: &str = "gen_ai.provider.name";
pub const REQUEST_MODEL: &str = "gen_ai.request.model";
pub const USAGE_INPUT_TOKENS: &str = "gen_ai.usage.input_tokens";
pub const USAGE_OUTPUT_TOKENS: &str = "gen_ai.usage.output_tokens";
pub const CONVERSATION_ID: &str = "gen_ai.conversation.id";
pub const AGENT_NAME: &str = "gen_ai.agent.name";
pub const TOOL_NAME: &str = "gen_ai.tool.name";
pub const TOOL_TYPE: &str = "gen_ai.tool.type";
/// Content (only with `--otlp-content`): JSON as the conventions shape it.
pub const INPUT_MESSAGES: &str = "gen_ai.input.messages";
pub const OUTPUT_MESSAGES: &str = "gen_ai.output.messages";
pub const TOOL_CALL_ARGUMENTS: &str = "gen_ai.tool.call.arguments";
pub const TOOL_CALL_RESULT: &str = "gen_ai.tool.call.result";
/// `error.type` (general semantic conventions): why an operation failed.
pub const ERROR_TYPE: &str = "error.type";

// codeact.*: what the conventions have no name for.
pub const PERSONA: &str = "codeact.persona";
pub const DEVICE: &str = "codeact.device";
pub const MAX_STEPS: &str = "codeact.max_steps";
pub const STRATEGY_ROLE: &str = "codeact.role";
pub const STEP_NUMBER: &str = "codeact.step";
pub const STEP_LLM_MS: &str = "codeact.step.llm_ms";
pub const STEP_DEVICE_MS: &str = "codeact.step.device_ms";
pub const STEP_OVERHEAD_MS: &str = "codeact.step.overhead_ms";
pub const REPLAYED_STEP: &str = "codeact.replayed_step";
pub const LLM_ATTEMPTS: &str = "codeact.llm.attempts";
pub const TOOL_FAILURE: &str = "codeact.tool.failure";
pub const TOOL_EFFECT: &str = "codeact.tool.effect";
pub const TOOL_TARGET: &str = "codeact.tool.target";
pub const OUTCOME: &str = "codeact.outcome";
pub const STEPS: &str = "codeact.steps";
pub const SCRIPT_PATH: &str = "codeact.script";
pub const RUN_DIR: &str = "codeact.run_dir";
/// An exploration's strategy (systematic, llm) and a finding's kind (crash, anr...).
pub const STRATEGY: &str = "codeact.explore.strategy";
pub const FINDING: &str = "codeact.finding.kind";
/// A `--strategy tree` node: its path (`1.2.1`), depth and how it ended (done,
/// partial, failed, replayed); its goal is content.
pub const NODE_PATH: &str = "codeact.node.path";
pub const NODE_DEPTH: &str = "codeact.node.depth";
pub const NODE_OUTCOME: &str = "codeact.node.outcome";
pub const NODE_GOAL: &str = "codeact.node.goal";
/// On span events: a plan's replan count, a stall's length and whether it ends
/// the run, a completion's success.
pub const REPLAN: &str = "codeact.replan";
pub const STALLED_STEPS: &str = "codeact.stalled_steps";
pub const ENDING: &str = "codeact.ending";
pub const SUCCESS: &str = "codeact.success";
/// Content (only with `--otlp-content`).
pub const TASK: &str = "codeact.task";
pub const SNIPPET_CODE: &str = "codeact.snippet.code";
pub const SNIPPET_OUTPUT: &str = "codeact.snippet.output";
/// Why the run ended as it did.
pub const REASON: &str = "codeact.reason";

// Span events.
pub const EVENT_PLAN: &str = "codeact.plan";
pub const EVENT_REFLECTION: &str = "codeact.reflection";
pub const EVENT_STALLED: &str = "codeact.stalled";
pub const EVENT_COMPLETION_HELD: &str = "codeact.completion_held";
pub const EVENT_DIVERGED: &str = "codeact.replay_diverged";
pub const EVENT_COMPLETION: &str = "codeact.completion";
pub const EVENT_RECALL: &str = "codeact.recall";
pub const EVENT_FINDING: &str = "codeact.finding";
pub const EVENT_NODE_SPLIT: &str = "codeact.node.split";
/// An event attribute: the text (content, only with `--otlp-content`).
pub const EVENT_TEXT: &str = "codeact.text";

// Values.
pub const AGENT: &str = "codeact";
pub const TOOL_TYPE_FUNCTION: &str = "function";

/// The conventions' well-known `gen_ai.provider.name` for an OpenAI-compatible
/// endpoint's host; any other host is named as it is (`localhost:11434`).
pub fn provider_name(host: &str) -> &str {
    let bare = host.split(':').next().unwrap_or(host);
    match bare {
        "api.openai.com" => "openai",
        "api.anthropic.com" => "anthropic",
        "api.deepseek.com" => "deepseek",
        "api.groq.com" => "groq",
        "api.mistral.ai" => "mistral_ai",
        "api.x.ai" => "x_ai",
        "api.perplexity.ai" => "perplexity",
        "generativelanguage.googleapis.com" => "gcp.gemini",
        h if h.ends_with(".openai.azure.com") => "azure.ai.openai",
        _ => host,
    }
}
