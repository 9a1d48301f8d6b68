//! Helpers shared by the provider tests: providers pointed at a scripted model, requests, and
//! collecting what a stream yields.

#![allow(dead_code)] // each test binary uses a different subset

use std::time::Duration;

use futures::StreamExt;
use serde_json::json;
use switchboard_llm::{
    AnthropicConfig, AnthropicProvider, ChatMessage, ChatRequest, LlmError, OpenAiConfig,
    OpenAiProvider, Provider, RetryPolicy, StreamEvent, ToolDefinition, WireFormat,
};
use switchboard_testkit::ScriptedLlm;

pub const OPENAI_KEY: &str = "sk-test-openai-0123456789";
pub const ANTHROPIC_KEY: &str = "sk-ant-test-0123456789";
pub const MODEL: &str = "test-model";
/// A 1x1 red PNG.
pub const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

pub const BOTH: [WireFormat; 2] = [WireFormat::OpenAi, WireFormat::Anthropic];

/// Three attempts with millisecond delays, so retry tests do not wait.
pub fn fast_retry() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 3,
        base: Duration::from_millis(1),
        max: Duration::from_millis(5),
    }
}

/// The production client for `wire`, pointed at `base_url`, with the test key.
pub fn provider_at(wire: WireFormat, base_url: String, retry: RetryPolicy) -> Box<dyn Provider> {
    match wire {
        WireFormat::OpenAi => Box::new(OpenAiProvider::new(
            OpenAiConfig::new(base_url)
                .with_api_key(OPENAI_KEY)
                .with_retry(retry),
        )),
        WireFormat::Anthropic => Box::new(AnthropicProvider::new(
            AnthropicConfig::new(base_url)
                .with_api_key(ANTHROPIC_KEY)
                .with_retry(retry),
        )),
    }
}

/// The production client for `wire`, pointed at the scripted model, with fast retries.
pub fn provider(llm: &ScriptedLlm, wire: WireFormat) -> Box<dyn Provider> {
    provider_at(wire, llm.base_url(wire), fast_retry())
}

pub fn request(messages: Vec<ChatMessage>) -> ChatRequest {
    ChatRequest {
        model: MODEL.into(),
        system: Some("You are a test.".into()),
        messages,
        tools: vec![echo_tool()],
        max_tokens: None,
        temperature: None,
        native_tool_search: None,
    }
}

pub fn echo_tool() -> ToolDefinition {
    ToolDefinition {
        name: "mcp__everything__echo".into(),
        description: "Echoes the message back".into(),
        parameters: json!({
            "type": "object",
            "properties": {"message": {"type": "string"}},
            "required": ["message"],
        }),
        strict: false,
        defer_loading: false,
    }
}

/// Everything the stream yields: the events before the first error, and that error.
pub async fn collect(
    provider: &dyn Provider,
    request: &ChatRequest,
) -> (Vec<StreamEvent>, Option<LlmError>) {
    let mut stream = match provider.stream(request).await {
        Ok(stream) => stream,
        Err(error) => return (Vec::new(), Some(error)),
    };
    let mut events = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(event) => events.push(event),
            Err(error) => return (events, Some(error)),
        }
    }
    (events, None)
}

/// The events of a stream that must succeed.
pub async fn events(provider: &dyn Provider, request: &ChatRequest) -> Vec<StreamEvent> {
    match collect(provider, request).await {
        (events, None) => events,
        (_, Some(error)) => panic!("the stream failed: {error}"),
    }
}

/// The streamed text deltas, in order.
pub fn text_deltas(events: &[StreamEvent]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}
