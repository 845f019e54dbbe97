//! How setting up or asking the LLM fails.

/// Why the LLM could not be set up or did not answer; each says what to check.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error(
        "no LLM is configured. For OpenAI: export OPENAI_API_KEY=sk-... and run `codeact run --model {default_model} \"task\"`. \
         For a local Ollama: `codeact run --base-url http://localhost:11434/v1 --model qwen2.5:7b --vision off \"task\"` (no key needed). \
         Without a model: `codeact exec scripts/send_message.rhai --device sim` runs a script, \
         `codeact repl --device sim` runs what you type, `codeact eval --agent oracle` runs the task suite by its oracle \
         (in a checkout, `cargo run --release --` stands for `codeact`)"
    )]
    NotConfigured { default_model: &'static str },
    /// Never echoes what was given: it may be the key itself, pasted in the wrong place.
    #[error(
        "--api-key-env (or [llm] api_key_env) takes the NAME of an environment variable, like OPENAI_API_KEY, not the key itself; export the key in that variable"
    )]
    KeyVariableNotAName,
    #[error(
        "the API key variable ${0} is empty or unset; export it, or drop --api-key-env for a server that needs no key"
    )]
    KeyVariableUnset(String),
    #[error("--base-url {0:?} must start with http:// or https://, e.g. http://localhost:11434/v1")]
    BadBaseUrl(String),
    #[error("name the model {0} should run: --model NAME (e.g. qwen2.5:7b on Ollama), CODEACT_MODEL, or [llm] model")]
    NoModel(String),
    #[error("--temperature must be between 0 and 2")]
    BadTemperature,
    #[error("--max-tokens (or [llm] max_tokens) must be between 1 and {0}")]
    BadMaxTokens(u32),
    #[error("[llm] timeout_s must be between 0 and 3600")]
    BadTimeout,
    #[error("cannot set up the HTTP client")]
    HttpClient(#[source] reqwest::Error),
    #[error("cannot start the locator model's runtime")]
    Runtime(#[source] std::io::Error),
    #[error("cannot build the request")]
    Request(#[source] serde_json::Error),
    #[error("{provider} answered {status}: {}; {hint}", codeact_base::clip::clip(.message, 2048))]
    Api { provider: String, status: u16, message: String, hint: String },
    #[error(
        "{provider} did not answer within {secs:.0} s (after {attempts} attempts); raise [llm] timeout_s or check the server's load"
    )]
    Timeout { provider: String, secs: f64, attempts: u32 },
    #[error("cannot reach {provider}: {}; is the server running and is --base-url right?", codeact_base::clip::clip(.message, 2048))]
    Unreachable { provider: String, message: String },
    /// Connected, but the exchange broke off (a reset, a cut or garbled body).
    #[error(
        "the exchange with {provider} broke off ({message}); try again, and check any proxy between codeact and the server"
    )]
    Broken { provider: String, message: String },
    #[error("{provider} returned no embedding for model {model:?}; is it an embeddings model there (--embeddings)?")]
    NoEmbedding { provider: String, model: String },
    #[error(
        "{provider} answered with a redirect to {to}, which codeact does not follow (the key would go there too); give the address it redirects to as --base-url if you trust it"
    )]
    Redirected { provider: String, to: String },
    #[error(
        "{provider}'s reply is not an OpenAI chat completion ({message}); is --base-url an OpenAI-compatible /v1 endpoint?"
    )]
    BadReply { provider: String, message: String },
}
