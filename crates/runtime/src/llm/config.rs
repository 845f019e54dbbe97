//! Which LLM to talk to, resolved once: flags > environment (`OPENAI_BASE_URL`,
//! `CODEACT_MODEL`, the key variable) > `[llm]` in codeact.toml > defaults. The API
//! key lives here and nowhere else: its `Debug` shows only where it came from, and
//! [`LlmConfig::redact`] blots it (and anything shaped like one) out of text.

use std::time::Duration;

use serde::Deserialize;

use super::error::LlmError;

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
    /// The most tokens one reply may have (`max_tokens`): a small local model may
    /// otherwise write until its context is full.
    pub max_tokens: Option<u32>,
    /// Whether the model reads a `system` message (default true). Some chat
    /// templates have no system turn and drop it (Gemma's in llama.cpp's Python
    /// server): `false` puts the system prompt at the head of the first user message.
    pub system_role: Option<bool>,
    /// Ask for the reply as a stream of pieces (server-sent events) and read it
    /// only as far as its bounds (default false).
    pub stream: Option<bool>,
    /// `[llm.planner]`: the model that plans (`--strategy plan`, `hierarchical`);
    /// unset keys come from `[llm]`.
    pub planner: Option<RoleSection>,
    /// `[llm.reflector]`: the model that critiques progress.
    pub reflector: Option<RoleSection>,
    /// `[llm.locator]`: the vision model `#{ai: ...}` selectors and `locate()` ask.
    pub locator: Option<RoleSection>,
}

/// `[llm.planner]`, `[llm.reflector]` or `[llm.locator]`: what differs from the
/// acting model.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleSection {
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub api_key_env: Option<String>,
    pub temperature: Option<f32>,
    pub timeout_s: Option<f64>,
}

/// What the command line says about one role's model (`--planner-model`, ...).
#[derive(Debug, Clone, Default)]
pub struct RoleFlags {
    pub base_url: Option<String>,
    pub model: Option<String>,
}

/// What the command line says about the LLM.
#[derive(Debug, Clone, Default)]
pub struct LlmFlags {
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub api_key_env: Option<String>,
    pub temperature: Option<f32>,
    /// `--max-tokens`.
    pub max_tokens: Option<u32>,
    /// `--no-system-role` (as `Some(false)`).
    pub system_role: Option<bool>,
    /// `--stream` (as `Some(true)`).
    pub stream: Option<bool>,
}

/// The most a reply's token cap may be.
pub const MAX_REPLY_TOKENS: u32 = 1_000_000;

/// A resolved, ready-to-use configuration.
#[derive(Clone)]
pub struct LlmConfig {
    pub base_url: String,
    pub model: String,
    pub(super) api_key: Option<String>,
    /// Where the key came from (`$OPENAI_API_KEY`), for messages.
    pub key_source: Option<String>,
    pub temperature: Option<f32>,
    pub timeout: Duration,
    pub max_retries: u32,
    /// The most tokens one reply may have (`None`: the provider's own limit).
    pub max_tokens: Option<u32>,
    /// Whether the system prompt goes as a `system` message (else at the head of
    /// the first user message).
    pub system_role: bool,
    /// Whether replies come streamed.
    pub stream: bool,
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
                return Err(LlmError::KeyVariableNotAName);
            }
        }
        let explicit_var = key_var.is_some();
        let key_var = key_var.unwrap_or_else(|| "OPENAI_API_KEY".to_string());
        let api_key = env(&key_var);
        if explicit_var && api_key.is_none() {
            return Err(LlmError::KeyVariableUnset(key_var));
        }
        if base_url.is_none() && api_key.is_none() {
            return Err(LlmError::NotConfigured { default_model: OPENAI_DEFAULT_MODEL });
        }
        let base_url = base_url.unwrap_or_else(|| OPENAI_BASE_URL.to_string()).trim_end_matches('/').to_string();
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(LlmError::BadBaseUrl(base_url));
        }
        let model = flags.model.clone().or_else(|| env("CODEACT_MODEL")).or_else(|| section.model.clone());
        let model = match model {
            Some(m) => m,
            None if base_url == OPENAI_BASE_URL => OPENAI_DEFAULT_MODEL.to_string(),
            None => return Err(LlmError::NoModel(base_url)),
        };
        let temperature = flags.temperature.or(section.temperature);
        if temperature.is_some_and(|t| !(0.0..=2.0).contains(&t)) {
            return Err(LlmError::BadTemperature);
        }
        let max_tokens = flags.max_tokens.or(section.max_tokens);
        if max_tokens.is_some_and(|n| n == 0 || n > MAX_REPLY_TOKENS) {
            return Err(LlmError::BadMaxTokens(MAX_REPLY_TOKENS));
        }
        let timeout_s = section.timeout_s.unwrap_or(120.0);
        if !(timeout_s > 0.0 && timeout_s <= 3600.0) {
            return Err(LlmError::BadTimeout);
        }
        Ok(Self {
            base_url,
            model,
            key_source: api_key.as_ref().map(|_| format!("${key_var}")),
            api_key,
            temperature,
            timeout: Duration::from_secs_f64(timeout_s),
            max_retries: section.max_retries.unwrap_or(2).min(10),
            max_tokens,
            system_role: flags.system_role.or(section.system_role).unwrap_or(true),
            stream: flags.stream.or(section.stream).unwrap_or(false),
        })
    }

    /// The configuration of another role (planner, reflector): the acting model's,
    /// with what `section` and `flags` change (flags first). Another endpoint gets
    /// the key from the role's own `api_key_env`, never the acting model's: a key is
    /// sent only where it was configured to go.
    pub fn for_role(&self, section: Option<&RoleSection>, flags: &RoleFlags) -> Result<Self, LlmError> {
        let empty = RoleSection::default();
        let section = section.unwrap_or(&empty);
        let mut role = self.clone();
        if let Some(url) = flags.base_url.clone().or_else(|| section.base_url.clone()) {
            let url = url.trim_end_matches('/').to_string();
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(LlmError::BadBaseUrl(url));
            }
            if url != self.base_url {
                role.api_key = None;
                role.key_source = None;
            }
            role.base_url = url;
        }
        if let Some(name) = &section.api_key_env {
            let key = env(name).ok_or_else(|| LlmError::KeyVariableUnset(name.clone()))?;
            role.key_source = Some(format!("${name}"));
            role.api_key = Some(key);
        }
        if let Some(model) = flags.model.clone().or_else(|| section.model.clone()) {
            role.model = model;
        }
        if let Some(t) = section.temperature {
            if !(0.0..=2.0).contains(&t) {
                return Err(LlmError::BadTemperature);
            }
            role.temperature = Some(t);
        }
        if let Some(s) = section.timeout_s {
            if !(s > 0.0 && s <= 3600.0) {
                return Err(LlmError::BadTimeout);
            }
            role.timeout = Duration::from_secs_f64(s);
        }
        Ok(role)
    }

    /// The host the requests go to (for messages: no credentials, path or query).
    pub fn provider(&self) -> String {
        let rest = self.base_url.split("://").nth(1).unwrap_or(&self.base_url);
        let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
        host.rsplit('@').next().unwrap_or(host).to_string()
    }

    /// `text` with the key, and anything shaped like one, blotted out: providers echo
    /// (masked) keys in their error messages. Code blocks stay runnable (a short
    /// secret is blotted there only in strings and comments).
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        if let Some(key) = self.api_key.as_deref().filter(|k| k.len() >= 6) {
            out = out.replace(key, codeact_base::secrets::REDACTED);
        }
        codeact_base::secrets::redact_reply(&out).into_owned()
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
        let message = LlmError::NotConfigured { default_model: "m" }.to_string();
        assert!(message.contains("Ollama"), "{message}");
        for without_a_model in ["codeact exec scripts/", "codeact repl --device sim", "codeact eval --agent oracle"] {
            assert!(message.contains(without_a_model), "{message}");
        }
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
    fn a_role_changes_only_what_it_names_and_keeps_its_key_at_home() {
        let actor = LlmConfig {
            base_url: "http://127.0.0.1:9/v1".into(),
            model: "small".into(),
            api_key: Some("actor-key-123456".into()),
            key_source: Some("$OPENAI_API_KEY".into()),
            temperature: None,
            timeout: Duration::from_secs(120),
            max_retries: 2,
            max_tokens: None,
            system_role: true,
            stream: false,
        };
        let flags = RoleFlags { model: Some("big".into()), ..RoleFlags::default() };
        let planner = actor.for_role(None, &flags).unwrap();
        assert_eq!((planner.model.as_str(), planner.api_key.as_deref()), ("big", Some("actor-key-123456")));
        let elsewhere = RoleSection { base_url: Some("http://127.0.0.1:10/v1/".into()), ..RoleSection::default() };
        let reflector = actor.for_role(Some(&elsewhere), &RoleFlags::default()).unwrap();
        assert_eq!((reflector.base_url.as_str(), reflector.model.as_str()), ("http://127.0.0.1:10/v1", "small"));
        assert!(reflector.api_key.is_none(), "the acting model's key does not go to another host");
        let bad = RoleFlags { base_url: Some("localhost".into()), ..RoleFlags::default() };
        assert!(actor.for_role(None, &bad).is_err());
    }
}
