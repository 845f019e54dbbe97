//! The chat client: any OpenAI-compatible endpoint (OpenAI, DeepSeek, DashScope,
//! OpenRouter, Ollama, vLLM) through async-openai, with a request timeout, bounded
//! retries and errors that say what to check. The API key is held here and nowhere
//! else: it is never printed, logged or written (its `Debug` shows only where it came
//! from). `extract.rs` pulls code out of replies. This module knows nothing of devices.

pub mod extract;

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::types::chat::{CreateChatCompletionRequest, CreateChatCompletionResponse};
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// OpenAI's endpoint, used when only a key is given.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// The model used with OpenAI's endpoint when none is named.
pub const OPENAI_DEFAULT_MODEL: &str = "gpt-4o-mini";

/// `[llm]` in codeact.toml (every key optional).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmSection {
    pub base_url: Option<String>,
    pub model: Option<String>,
    /// The environment variable that holds the key (never the key itself).
    pub api_key_env: Option<String>,
    pub temperature: Option<f32>,
    /// Seconds one request may take.
    pub timeout_s: Option<f64>,
    /// Retries after a timeout, on top of the client's own 429/5xx retries.
    pub max_retries: Option<u32>,
}

/// What the command line says about the LLM.
#[derive(Debug, Clone, Default)]
pub struct LlmFlags {
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub api_key_env: Option<String>,
    pub temperature: Option<f32>,
}

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error(
        "no LLM is configured. For OpenAI: export OPENAI_API_KEY=sk-... and run `codeact run --model {OPENAI_DEFAULT_MODEL} \"task\"`. \
         For a local Ollama: `codeact run --base-url http://localhost:11434/v1 --model qwen2.5:7b --vision off \"task\"` (no key needed)"
    )]
    NotConfigured,
    #[error("{0}")]
    Config(String),
    #[error("{provider} answered {status}: {message}; {hint}")]
    Api { provider: String, status: u16, message: String, hint: String },
    #[error(
        "{provider} did not answer within {secs:.0} s (after {attempts} attempts); raise [llm] timeout_s or check the server's load"
    )]
    Timeout { provider: String, secs: f64, attempts: u32 },
    #[error("cannot reach {provider}: {message}; is the server running and is --base-url right?")]
    Unreachable { provider: String, message: String },
    #[error(
        "{provider}'s reply is not an OpenAI chat completion ({message}); is --base-url an OpenAI-compatible /v1 endpoint?"
    )]
    BadReply { provider: String, message: String },
}

/// A resolved, ready-to-use configuration.
#[derive(Clone)]
pub struct LlmConfig {
    pub base_url: String,
    pub model: String,
    api_key: Option<String>,
    /// Where the key came from (`$OPENAI_API_KEY`), for messages.
    pub key_source: Option<String>,
    pub temperature: Option<f32>,
    pub timeout: Duration,
    pub max_retries: u32,
}

impl std::fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.key_source.as_deref().map(|s| format!("<from {s}>")))
            .field("temperature", &self.temperature)
            .field("timeout", &self.timeout)
            .finish()
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}

impl LlmConfig {
    /// Flags > environment (`OPENAI_BASE_URL`, `CODEACT_MODEL`, the key variable) >
    /// `[llm]` in codeact.toml > defaults.
    pub fn resolve(section: &LlmSection, flags: &LlmFlags) -> Result<Self, LlmError> {
        let base_url = flags.base_url.clone().or_else(|| env("OPENAI_BASE_URL")).or_else(|| section.base_url.clone());
        let key_var = flags.api_key_env.clone().or_else(|| section.api_key_env.clone());
        if let Some(name) = &key_var {
            let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                // Never echo it: it may be the key itself, pasted in the wrong place.
                return Err(LlmError::Config(
                    "--api-key-env (or [llm] api_key_env) takes the NAME of an environment variable, like \
                     OPENAI_API_KEY, not the key itself; export the key in that variable"
                        .into(),
                ));
            }
        }
        let explicit_var = key_var.is_some();
        let key_var = key_var.unwrap_or_else(|| "OPENAI_API_KEY".to_string());
        let api_key = env(&key_var);
        if explicit_var && api_key.is_none() {
            return Err(LlmError::Config(format!(
                "the API key variable ${key_var} is empty or unset; export it, or drop --api-key-env for a server that needs no key"
            )));
        }
        if base_url.is_none() && api_key.is_none() {
            return Err(LlmError::NotConfigured);
        }
        let base_url = base_url.unwrap_or_else(|| OPENAI_BASE_URL.to_string()).trim_end_matches('/').to_string();
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(LlmError::Config(format!(
                "--base-url {base_url:?} must start with http:// or https://, e.g. http://localhost:11434/v1"
            )));
        }
        let model = flags.model.clone().or_else(|| env("CODEACT_MODEL")).or_else(|| section.model.clone());
        let model = match model {
            Some(m) => m,
            None if base_url == OPENAI_BASE_URL => OPENAI_DEFAULT_MODEL.to_string(),
            None => {
                return Err(LlmError::Config(format!(
                    "name the model {base_url} should run: --model NAME (e.g. qwen2.5:7b on Ollama), CODEACT_MODEL, or [llm] model"
                )));
            }
        };
        let temperature = flags.temperature.or(section.temperature);
        if temperature.is_some_and(|t| !(0.0..=2.0).contains(&t)) {
            return Err(LlmError::Config("--temperature must be between 0 and 2".into()));
        }
        let timeout_s = section.timeout_s.unwrap_or(120.0);
        if !(timeout_s > 0.0 && timeout_s <= 3600.0) {
            return Err(LlmError::Config("[llm] timeout_s must be between 0 and 3600".into()));
        }
        Ok(Self {
            base_url,
            model,
            key_source: api_key.as_ref().map(|_| format!("${key_var}")),
            api_key,
            temperature,
            timeout: Duration::from_secs_f64(timeout_s),
            max_retries: section.max_retries.unwrap_or(2).min(10),
        })
    }

    /// The host the requests go to (for messages: no credentials, path or query).
    pub fn provider(&self) -> String {
        let rest = self.base_url.split("://").nth(1).unwrap_or(&self.base_url);
        let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
        host.rsplit('@').next().unwrap_or(host).to_string()
    }

    /// `text` with the key, and anything shaped like one, blotted out: providers echo
    /// (masked) keys in their error messages.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        if let Some(key) = self.api_key.as_deref().filter(|k| k.len() >= 6) {
            out = out.replace(key, "[key]");
        }
        match regex::Regex::new(r"\b(sk|pk|rk)-[A-Za-z0-9_\-\*]{4,}") {
            Ok(shaped) => shaped.replace_all(&out, "[key]").into_owned(),
            Err(_) => out,
        }
    }
}

/// One chat message as the agent builds it.
#[derive(Debug, Clone)]
pub struct Message {
    pub role: Role,
    pub text: String,
    /// A PNG shown with the text (vision models).
    pub image_png: Option<Arc<[u8]>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
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

/// What the model answered.
#[derive(Debug, Clone)]
pub struct Reply {
    pub text: String,
    pub usage: Usage,
    /// Wall time of the request, retries included.
    pub elapsed: Duration,
    pub attempts: u32,
}

pub struct LlmClient {
    client: Client<OpenAIConfig>,
    config: LlmConfig,
}

impl LlmClient {
    pub fn new(config: LlmConfig) -> Result<Self, LlmError> {
        // Two TLS back ends may be linked (adb_client brings ring); choose one before
        // any TLS configuration is built, or rustls panics. Installing twice is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(Duration::from_secs(10).min(config.timeout))
            .build()
            .map_err(|e| LlmError::Config(format!("cannot set up the HTTP client: {e}")))?;
        let mut openai = OpenAIConfig::new().with_api_base(&config.base_url);
        // An empty key would still send "Authorization: Bearer": local servers need none.
        if let Some(key) = &config.api_key {
            openai = openai.with_api_key(key.as_str());
        } else {
            openai = openai.with_api_key("");
        }
        Ok(Self { client: Client::with_config(openai).with_http_client(http), config })
    }

    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    /// The request body for `messages` (also what tests and logs may inspect: it holds
    /// no key).
    pub fn request_body(&self, messages: &[Message]) -> Value {
        let msgs: Vec<Value> = messages
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
                _ => json!({ "role": m.role, "content": m.text }),
            })
            .collect();
        let mut body = json!({ "model": self.config.model, "messages": msgs });
        if let Some(t) = self.config.temperature {
            body["temperature"] = json!(t);
        }
        body
    }

    /// Sends the conversation and returns the first choice's text. The client retries
    /// 429 and 5xx by itself (with backoff); timeouts are retried here, up to
    /// `max_retries` times.
    pub async fn complete(&self, messages: &[Message]) -> Result<Reply, LlmError> {
        let provider = self.config.provider();
        let request: CreateChatCompletionRequest = serde_json::from_value(self.request_body(messages))
            .map_err(|e| LlmError::Config(format!("cannot build the request: {e}")))?;
        let started = Instant::now();
        let mut attempts = 0;
        loop {
            attempts += 1;
            match self.client.chat().create(request.clone()).await {
                Ok(response) => return Ok(self.reply(response, started, attempts)),
                Err(OpenAIError::Reqwest(e)) if e.is_timeout() && attempts <= self.config.max_retries => {
                    tokio::time::sleep(Duration::from_millis(500) * 2u32.pow(attempts - 1)).await;
                }
                Err(e) => return Err(self.error(e, &provider, attempts)),
            }
        }
    }

    fn reply(&self, response: CreateChatCompletionResponse, started: Instant, attempts: u32) -> Reply {
        let text = response.choices.into_iter().next().and_then(|c| c.message.content).unwrap_or_default();
        let usage = response
            .usage
            .map(|u| Usage {
                prompt_tokens: u64::from(u.prompt_tokens),
                completion_tokens: u64::from(u.completion_tokens),
                total_tokens: u64::from(u.total_tokens),
            })
            .unwrap_or_default();
        Reply { text, usage, elapsed: started.elapsed(), attempts }
    }

    fn error(&self, e: OpenAIError, provider: &str, attempts: u32) -> LlmError {
        let provider = provider.to_string();
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
                    400 => "the provider refused the request; check the model name and whether it accepts images"
                        .to_string(),
                    s if s >= 500 => "the provider kept failing after retries; try again later".to_string(),
                    _ => "see the provider's message".to_string(),
                };
                LlmError::Api { provider, status, message: self.config.redact(&resp.api_error.message), hint }
            }
            OpenAIError::Reqwest(e) if e.is_timeout() => {
                LlmError::Timeout { provider, secs: self.config.timeout.as_secs_f64(), attempts }
            }
            OpenAIError::Reqwest(e) => {
                let message = if e.is_connect() {
                    "connection refused or no route".to_string()
                } else {
                    self.config.redact(&e.to_string())
                };
                LlmError::Unreachable { provider, message }
            }
            OpenAIError::JSONDeserialize(e, content) => {
                let head: String = content.chars().take(200).collect();
                LlmError::BadReply { provider, message: self.config.redact(&format!("{e}; it began {head:?}")) }
            }
            other => LlmError::BadReply { provider, message: self.config.redact(&other.to_string()) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configuration_says_what_is_missing() {
        // Only explicit values: the tests must not depend on the caller's environment.
        let local =
            LlmFlags { base_url: Some("http://127.0.0.1:9/v1/".into()), model: Some("m".into()), ..Default::default() };
        let c = LlmConfig::resolve(&LlmSection::default(), &local).unwrap();
        assert_eq!((c.base_url.as_str(), c.provider().as_str()), ("http://127.0.0.1:9/v1", "127.0.0.1:9"));
        let no_model = LlmFlags { model: None, ..local.clone() };
        if std::env::var_os("CODEACT_MODEL").is_none() {
            assert!(LlmConfig::resolve(&LlmSection::default(), &no_model).unwrap_err().to_string().contains("--model"));
        }
        let bad = LlmFlags { base_url: Some("localhost:11434".into()), ..local.clone() };
        assert!(LlmConfig::resolve(&LlmSection::default(), &bad).unwrap_err().to_string().contains("http://"));
        let missing_key = LlmFlags { api_key_env: Some("CODEACT_TEST_NO_SUCH_VAR".into()), ..local };
        let err = LlmConfig::resolve(&LlmSection::default(), &missing_key).unwrap_err().to_string();
        assert!(err.contains("$CODEACT_TEST_NO_SUCH_VAR"), "{err}");
        assert!(LlmError::NotConfigured.to_string().contains("Ollama"));
        let pasted = LlmFlags { api_key_env: Some("sk-abc123-secret".into()), ..no_model };
        let err = LlmConfig::resolve(&LlmSection::default(), &pasted).unwrap_err().to_string();
        assert!(err.contains("NAME") && !err.contains("sk-abc123"), "{err}");
        let c = LlmConfig { base_url: "https://user:tok@host.example/v1?key=x".into(), ..c };
        assert_eq!(c.provider(), "host.example");
        assert_eq!(
            c.redact("Incorrect API key provided: sk-abc***********wxyz."),
            "Incorrect API key provided: [key]."
        );
    }

    #[test]
    fn images_go_as_data_urls_and_the_body_parses_as_a_request() {
        let config = LlmConfig::resolve(
            &LlmSection::default(),
            &LlmFlags { base_url: Some("http://127.0.0.1:9/v1".into()), model: Some("m".into()), ..Default::default() },
        )
        .unwrap();
        let client = LlmClient::new(config).unwrap();
        let msgs = [
            Message { role: Role::System, text: "s".into(), image_png: None },
            Message { role: Role::User, text: "u".into(), image_png: Some(Arc::from(&b"\x89PNG"[..])) },
        ];
        let body = client.request_body(&msgs);
        assert_eq!(body["messages"][1]["content"][1]["image_url"]["url"], "data:image/png;base64,iVBORw==");
        assert!(serde_json::from_value::<CreateChatCompletionRequest>(body).is_ok());
    }
}
