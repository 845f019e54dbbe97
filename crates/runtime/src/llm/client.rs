//! The chat client over async-openai: the request (text, and a PNG as a data URL for
//! vision models; function calls offered and answered), the reply whole or streamed
//! (`stream.rs` folds it), a timeout per request, retries on timeouts on top of the
//! client's own 429/5xx retries, and errors that name the provider, its message
//! (keys redacted) and what to check.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::types::chat::{
    ChatCompletionMessageToolCalls, CreateChatCompletionRequest, CreateChatCompletionResponse,
};
use async_openai::types::embeddings::{CreateEmbeddingRequest, EmbeddingInput};
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::config::LlmConfig;
use super::error::LlmError;
use super::tool_calls::{FunctionTool, ToolCall, ToolTurn};

/// One chat message as the agent builds it.
#[derive(Debug, Clone)]
pub struct Message {
    pub role: Role,
    pub text: String,
    /// A PNG shown with the text (vision models).
    pub image_png: Option<Arc<[u8]>>,
    /// The calls an assistant message asked for, or the call a `tool` message
    /// answers (`--actions json`).
    pub tool: Option<ToolTurn>,
}

impl Message {
    /// A message of text alone.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        Self { role, text: text.into(), image_png: None, tool: None }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    /// The result of a function call (`--actions json`).
    Tool,
}

/// Tokens as the server counted them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, o: Self) {
        self.prompt_tokens += o.prompt_tokens;
        self.completion_tokens += o.completion_tokens;
        self.total_tokens += o.total_tokens;
    }
}

pub use super::stream::MAX_REPLY_BYTES;

/// What the model answered.
#[derive(Debug, Clone)]
pub struct Reply {
    pub text: String,
    /// The functions it called, when it was offered some.
    pub calls: Vec<ToolCall>,
    pub usage: Usage,
    /// Wall time of the request, retries included.
    pub elapsed: Duration,
    pub attempts: u32,
}

pub struct LlmClient {
    client: Client<OpenAIConfig>,
    config: LlmConfig,
    /// Where the provider last tried to redirect a request (scheme and host only).
    redirected: Arc<Mutex<Option<String>>>,
}

impl LlmClient {
    /// The model asked (for reports).
    pub fn model(&self) -> &str {
        &self.config.model
    }

    pub fn new(config: LlmConfig) -> Result<Self, LlmError> {
        // Two TLS back ends may be linked (adb_client brings ring); choose one before
        // any TLS configuration is built, or rustls panics. Installing twice is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        // No redirect is followed: the key goes to the address given and nowhere
        // else (a provider that redirects is named in the error, with the fix).
        let redirected: Arc<Mutex<Option<String>>> = Arc::default();
        let seen = redirected.clone();
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::custom(move |attempt| {
                let url = attempt.url();
                let to = format!("{}://{}", url.scheme(), url.host_str().unwrap_or("?"));
                let to = match url.port() {
                    Some(port) => format!("{to}:{port}"),
                    None => to,
                };
                *seen.lock().unwrap_or_else(|e| e.into_inner()) = Some(to);
                attempt.stop()
            }))
            .timeout(config.timeout)
            .connect_timeout(Duration::from_secs(10).min(config.timeout))
            .build()
            .map_err(LlmError::HttpClient)?;
        let mut openai = OpenAIConfig::new().with_api_base(&config.base_url);
        // An empty key would still send "Authorization: Bearer": local servers need none.
        if let Some(key) = &config.api_key {
            // From now on no log line, reply or error of this process shows it.
            codeact_base::secrets::register(key);
            openai = openai.with_api_key(key.as_str());
        } else {
            openai = openai.with_api_key("");
        }
        Ok(Self { client: Client::with_config(openai).with_http_client(http), config, redirected })
    }

    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    /// The request body for `messages`, offering `tools` when there are any (also
    /// what tests and logs may inspect: it holds no key).
    pub fn request_body(&self, messages: &[Message], tools: &[FunctionTool]) -> Value {
        // Nothing a prompt quotes (a screen, an output, a reply) carries a secret.
        let mut redacted: Vec<Message> = messages
            .iter()
            .map(|m| Message { text: codeact_base::secrets::redact_reply(&m.text).into_owned(), ..m.clone() })
            .collect();
        if !self.config.system_role {
            redacted = system_into_user(redacted);
        }
        let msgs: Vec<Value> = redacted
            .iter()
            .map(|m| match &m.image_png {
                Some(png) if m.role == Role::User => {
                    let url =
                        format!("data:image/png;base64,{}", base64::engine::general_purpose::STANDARD.encode(png));
                    json!({
                        "role": m.role,
                        "content": [
                            { "type": "text", "text": m.text },
                            { "type": "image_url", "image_url": { "url": url } }
                        ]
                    })
                }
                _ => match &m.tool {
                    Some(ToolTurn::Calls(calls)) if !calls.is_empty() => json!({
                        "role": m.role,
                        // Text, even empty: some servers' templates read `content` of every
                        // message (llama.cpp's Python server fails on one without).
                        "content": m.text,
                        "tool_calls": calls.iter().map(ToolCall::to_json).collect::<Vec<_>>()
                    }),
                    Some(ToolTurn::Result { call_id }) => {
                        json!({ "role": Role::Tool, "tool_call_id": call_id, "content": m.text })
                    }
                    _ => json!({ "role": m.role, "content": m.text }),
                },
            })
            .collect();
        let mut body = json!({ "model": self.config.model, "messages": msgs });
        if let Some(t) = self.config.temperature {
            body["temperature"] = json!(t);
        }
        if let Some(n) = self.config.max_tokens {
            // `max_tokens` rather than `max_completion_tokens`: every
            // OpenAI-compatible server reads it (llama.cpp, Ollama, vLLM).
            body["max_tokens"] = json!(n);
        }
        if !tools.is_empty() {
            body["tools"] = Value::Array(tools.iter().map(FunctionTool::to_json).collect());
            body["tool_choice"] = json!("auto");
        }
        if self.config.stream {
            body["stream"] = json!(true);
            // The counts come in a last chunk, when the server sends them.
            body["stream_options"] = json!({ "include_usage": true });
        }
        body
    }

    /// Sends the conversation and returns the first choice's text. The client retries
    /// 429 and 5xx by itself (with backoff); timeouts are retried here, up to
    /// `max_retries` times.
    pub async fn complete(&self, messages: &[Message]) -> Result<Reply, LlmError> {
        self.complete_with_tools(messages, &[]).await
    }

    /// [`complete`](Self::complete), offering the model `tools` to call: the reply
    /// holds the calls it made (and whatever text it wrote beside them).
    pub async fn complete_with_tools(&self, messages: &[Message], tools: &[FunctionTool]) -> Result<Reply, LlmError> {
        let provider = self.config.provider();
        let request: CreateChatCompletionRequest =
            serde_json::from_value(self.request_body(messages, tools)).map_err(LlmError::Request)?;
        let started = Instant::now();
        let mut attempts = 0;
        loop {
            attempts += 1;
            let answered = if self.config.stream {
                match self.client.chat().create_stream(request.clone()).await {
                    Ok(stream) => super::stream::fold(stream).await.map(|folded| {
                        let usage = folded.usage.map(|u| (u.prompt_tokens, u.completion_tokens, u.total_tokens));
                        self.finish(folded.text, folded.calls, usage, started, attempts)
                    }),
                    Err(e) => Err(e),
                }
            } else {
                self.client.chat().create(request.clone()).await.map(|r| self.reply(r, started, attempts))
            };
            match answered {
                Ok(reply) => return Ok(reply),
                Err(OpenAIError::Reqwest(e)) if e.is_timeout() && attempts <= self.config.max_retries => {
                    tokio::time::sleep(Duration::from_millis(500) * 2u32.pow(attempts - 1)).await;
                }
                Err(e) => return Err(self.error(e, &provider, attempts)),
            }
        }
    }

    /// The embedding of `text` by `model` through the provider's `/v1/embeddings`
    /// (the same endpoint, key and retries as the chat model's).
    pub async fn embed(&self, model: &str, text: &str) -> Result<Vec<f32>, LlmError> {
        let provider = self.config.provider();
        let request = CreateEmbeddingRequest {
            model: model.to_string(),
            input: EmbeddingInput::String(text.to_string()),
            encoding_format: None,
            user: None,
            dimensions: None,
        };
        let mut attempts = 0;
        loop {
            attempts += 1;
            match self.client.embeddings().create(request.clone()).await {
                Ok(response) => {
                    return response
                        .data
                        .into_iter()
                        .next()
                        .map(|e| e.embedding)
                        .filter(|v| !v.is_empty())
                        .ok_or(LlmError::NoEmbedding { provider, model: model.to_string() });
                }
                Err(OpenAIError::Reqwest(e)) if e.is_timeout() && attempts <= self.config.max_retries => {
                    tokio::time::sleep(Duration::from_millis(500) * 2u32.pow(attempts - 1)).await;
                }
                Err(e) => return Err(self.error(e, &provider, attempts)),
            }
        }
    }

    fn reply(&self, response: CreateChatCompletionResponse, started: Instant, attempts: u32) -> Reply {
        let message = response.choices.into_iter().next().map(|c| c.message);
        let (text, calls) = match message {
            Some(m) => (m.content.unwrap_or_default(), m.tool_calls.unwrap_or_default()),
            None => (String::new(), Vec::new()),
        };
        let calls = calls
            .into_iter()
            .filter_map(|call| match call {
                ChatCompletionMessageToolCalls::Function(f) => Some((f.id, f.function.name, f.function.arguments)),
                // Free-form custom tools are never offered.
                ChatCompletionMessageToolCalls::Custom(_) => None,
            })
            .collect();
        let usage = response.usage.map(|u| (u.prompt_tokens, u.completion_tokens, u.total_tokens));
        self.finish(text, calls, usage, started, attempts)
    }

    /// A reply, whole or streamed, made safe to keep: bounded, keys blotted out.
    fn finish(
        &self,
        text: String,
        calls: Vec<(String, String, String)>,
        usage: Option<(u32, u32, u32)>,
        started: Instant,
        attempts: u32,
    ) -> Reply {
        let calls = super::tool_calls::bounded(
            calls
                .into_iter()
                .map(|(id, name, arguments)| (id, self.config.redact(&name), self.config.redact(&arguments))),
        );
        // A runaway reply is kept (run, recorded, sent back) only up to a bound.
        let text = codeact_base::clip::clip(&text, MAX_REPLY_BYTES).into_owned();
        // A provider may echo the key even in a good reply; nothing downstream (the
        // prompt's history, the run directory, the terminal) must see it.
        let text = self.config.redact(&text);
        let usage = usage
            .map(|(prompt, completion, total)| Usage {
                prompt_tokens: u64::from(prompt),
                completion_tokens: u64::from(completion),
                total_tokens: u64::from(total),
            })
            .unwrap_or_default();
        Reply { text, calls, usage, elapsed: started.elapsed(), attempts }
    }

    fn error(&self, e: OpenAIError, provider: &str, attempts: u32) -> LlmError {
        let provider = provider.to_string();
        if let Some(to) = self.redirected.lock().unwrap_or_else(|e| e.into_inner()).take() {
            return LlmError::Redirected { provider, to };
        }
        match e {
            OpenAIError::ApiError(resp) => {
                let status = resp.status_code.as_u16();
                let key = self.config.key_source.as_deref().unwrap_or("the API key variable");
                let hint = match status {
                    401 | 403 => format!("check the key in {key} and that it may use this model"),
                    404 => format!(
                        "check --base-url (usually ending in /v1) and that model {:?} exists there",
                        self.config.model
                    ),
                    429 => {
                        "rate limited or out of quota even after retries; wait, or check the account's plan".to_string()
                    }
                    400 => refused_hint(&resp.api_error.message),
                    s if s >= 500 => "the provider kept failing after retries; try again later".to_string(),
                    _ => "see the provider's message".to_string(),
                };
                LlmError::Api { provider, status, message: self.config.redact(&resp.api_error.message), hint }
            }
            OpenAIError::Reqwest(e) if e.is_timeout() => {
                LlmError::Timeout { provider, secs: self.config.timeout.as_secs_f64(), attempts }
            }
            OpenAIError::Reqwest(e) if e.is_connect() => {
                LlmError::Unreachable { provider, message: "connection refused or no route".to_string() }
            }
            OpenAIError::Reqwest(e) => {
                LlmError::Broken { provider, message: self.config.redact(&codeact_base::error_text::full_message(&e)) }
            }
            OpenAIError::JSONDeserialize(e, content) => {
                let head: String = content.chars().take(200).collect();
                LlmError::BadReply { provider, message: self.config.redact(&format!("{e}; it began {head:?}")) }
            }
            other => LlmError::BadReply { provider, message: self.config.redact(&other.to_string()) },
        }
    }
}

/// The system messages folded into the head of the first user message, for a
/// model whose chat template has no system turn (or drops it).
fn system_into_user(messages: Vec<Message>) -> Vec<Message> {
    let (system, mut rest): (Vec<Message>, Vec<Message>) = messages.into_iter().partition(|m| m.role == Role::System);
    if system.is_empty() {
        return rest;
    }
    let head = system.into_iter().map(|m| m.text).collect::<Vec<_>>().join("\n\n");
    match rest.iter_mut().find(|m| m.role == Role::User) {
        Some(first) => first.text = format!("{head}\n\n{}", first.text),
        None => rest.insert(0, Message::text(Role::User, head)),
    }
    rest
}

/// What to do about a request the provider refused (HTTP 400), from what it said:
/// a prompt past the model's context is the usual refusal of a small local model.
fn refused_hint(message: &str) -> String {
    let said = message.to_ascii_lowercase();
    let too_long =
        ["context length", "context_length", "context window", "n_ctx", "too many tokens", "maximum context"];
    if too_long.iter().any(|w| said.contains(w)) {
        return "the prompt is longer than the model's context window: give the server a larger one (llama.cpp: \
                --n_ctx 8192; Ollama: num_ctx), or use a model with a longer context"
            .to_string();
    }
    "the provider refused the request; check the model name and whether it accepts images".to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_prompt_past_the_context_says_so() {
        let llama = "This model's maximum context length is 2048 tokens. However, you requested 2264 tokens";
        assert!(super::refused_hint(llama).contains("--n_ctx"));
        assert!(super::refused_hint("image_url is not supported").contains("accepts images"));
    }

    use super::*;
    use crate::llm::{LlmFlags, LlmSection};

    #[test]
    fn images_go_as_data_urls_and_the_body_parses_as_a_request() {
        let config = LlmConfig::resolve(
            &LlmSection::default(),
            &LlmFlags { base_url: Some("http://127.0.0.1:9/v1".into()), model: Some("m".into()), ..Default::default() },
        )
        .unwrap();
        let client = LlmClient::new(config).unwrap();
        let msgs = [
            Message::text(Role::System, "s"),
            Message { image_png: Some(Arc::from(&b"\x89PNG"[..])), ..Message::text(Role::User, "u") },
        ];
        let body = client.request_body(&msgs, &[]);
        assert_eq!(body["messages"][1]["content"][1]["image_url"]["url"], "data:image/png;base64,iVBORw==");
        assert!(serde_json::from_value::<CreateChatCompletionRequest>(body).is_ok());
        let folded = system_into_user(msgs.to_vec());
        assert_eq!((folded.len(), folded[0].text.as_str()), (1, "s\n\nu"), "no system turn: its text leads");
        let calls = vec![crate::llm::ToolCall {
            id: "c1".into(),
            name: "back".into(),
            arguments: "{}".into(),
            result: String::new(),
        }];
        let turn = [
            Message { tool: Some(ToolTurn::Calls(calls)), ..Message::text(Role::Assistant, "") },
            Message { tool: Some(ToolTurn::Result { call_id: "c1".into() }), ..Message::text(Role::Tool, "ok") },
        ];
        let offered =
            [FunctionTool { name: "back".into(), description: "Back".into(), parameters: serde_json::Map::new() }];
        let body = client.request_body(&turn, &offered);
        assert_eq!(body["messages"][0]["content"], "", "calls without text still have a content");
        assert_eq!(body["messages"][0]["tool_calls"][0]["function"]["name"], "back");
        assert_eq!(
            (body["messages"][1]["role"].as_str(), body["messages"][1]["tool_call_id"].as_str()),
            (Some("tool"), Some("c1"))
        );
        assert_eq!(body["tools"][0]["function"]["name"], "back");
        assert!(serde_json::from_value::<CreateChatCompletionRequest>(body).is_ok());
    }
}
