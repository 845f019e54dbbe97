//! The LLM: any OpenAI-compatible endpoint (OpenAI, DeepSeek, DashScope, OpenRouter,
//! Ollama, vLLM). `config.rs` resolves which one (and holds the key), `client.rs`
//! asks it, `extract.rs` pulls code out of its replies, `locator.rs` makes it the tools'
//! vision model (`#{ai: ...}`). This module knows nothing of
//! devices or prompts.

mod client;
mod config;
mod error;
pub mod extract;
pub mod locator;
mod stream;
pub mod tool_calls;

pub use client::{LlmClient, Message, Reply, Role, Usage};
pub use config::{
    LlmConfig, LlmFlags, LlmSection, MAX_REPLY_TOKENS, OPENAI_BASE_URL, OPENAI_DEFAULT_MODEL, RoleFlags, RoleSection,
};
pub use error::LlmError;
pub use tool_calls::{FunctionTool, ToolCall, ToolTurn};
