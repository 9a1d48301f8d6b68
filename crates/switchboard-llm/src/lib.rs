//! Switchboard's LLM providers.
//!
//! One trait, [`Provider`], with one required method: [`Provider::stream`], which yields typed
//! [`StreamEvent`]s. The non-streaming call, [`complete`], is derived from it by folding the
//! events with an [`Assembler`], which the agent also uses while it streams. Two wire formats
//! cover the field: OpenAI-compatible chat completions (OpenAI, DeepSeek, Qwen, Ollama, vLLM,
//! llama.cpp, ...) and Anthropic Messages. This crate knows nothing about MCP: tools arrive as
//! [`ToolDefinition`]s with a ready JSON Schema, results as [`ToolResult`]s.
//!
//! The two adapters, [`OpenAiProvider`] and [`AnthropicProvider`], share everything but the
//! wire format: the start of a call is retried under a [`RetryPolicy`] when the failure may
//! pass, HTTP and in-stream errors are classified into [`LlmError`] keeping the provider's
//! message, and the API key appears in no error and no `Debug` output.
//!
//! ```no_run
//! use switchboard_llm::{ChatMessage, ChatRequest, OpenAiConfig, OpenAiProvider, complete};
//!
//! # async fn demo() -> Result<(), switchboard_llm::LlmError> {
//! let provider = OpenAiProvider::new(OpenAiConfig::default().with_api_key("sk-..."));
//! let request = ChatRequest {
//!     model: "gpt-4.1-mini".into(),
//!     system: Some("Answer briefly.".into()),
//!     messages: vec![ChatMessage::user("What is 6 x 7?")],
//!     tools: Vec::new(),
//!     max_tokens: None,
//!     temperature: None,
//!     native_tool_search: None,
//! };
//! let answer = complete(&provider, &request).await?;
//! println!("{}", answer.text);
//! # Ok(())
//! # }
//! ```

mod anthropic;
mod assemble;
mod classify;
mod error;
mod from_env;
#[cfg(test)]
mod fuzz_tests;
mod local;
mod models;
mod openai;
mod provider;
mod redact;
mod retry;
mod sse;
mod transport;
mod types;

pub use anthropic::{
    ANTHROPIC_DEFAULT_BASE_URL, ANTHROPIC_DEFAULT_MAX_TOKENS, ANTHROPIC_TOOL_SEARCH_BETA,
    ANTHROPIC_VERSION, AnthropicConfig, AnthropicProvider,
};
pub use assemble::{Assembler, Completion};
pub use error::LlmError;
pub use from_env::{
    ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, DefaultProvider, OPENAI_API_KEY, OPENAI_BASE_URL,
    default_provider_from_env,
};
pub use local::{LOCAL_PORTS, LocalServer, find_local_servers, local_server_name};
pub use models::{ListLimits, ModelsError};
pub use openai::{OPENAI_DEFAULT_BASE_URL, OpenAiConfig, OpenAiProvider};
pub use provider::{EventStream, Provider, WireFormat, complete};
pub use retry::RetryPolicy;
pub use types::{
    ChatMessage, ChatRequest, FinishReason, NativeToolSearch, Part, ResultPart, Role, StreamEvent,
    ToolCall, ToolDefinition, ToolResult, Usage,
};
