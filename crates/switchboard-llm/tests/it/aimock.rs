//! The production clients against aimock (`@copilotkit/aimock`), a model mock written by
//! others: one whole conversation per wire format, streamed: the user asks, the model calls a
//! tool, the result goes back, the model answers. This checks our reading of the wire formats
//! against someone else's, where the scripted model would share our misreadings.
//!
//! The fixtures are in `tests/fixtures/aimock/`; they match on the user's question and on
//! whether the current turn carries a tool result.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::PathBuf;

use common::{collect, provider_at};
use serde_json::json;
use switchboard_llm::{
    Assembler, ChatMessage, ChatRequest, Completion, FinishReason, Part, Provider, ResultPart,
    RetryPolicy, Role, StreamEvent, ToolDefinition, ToolResult, WireFormat,
};
use switchboard_testkit::{Aimock, Peers};

const QUESTION: &str = "What is the weather in Paris?";
const ANSWER: &str = "It is 21 degrees and sunny in Paris, a fine day for a walk.";

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/aimock")
}

fn weather_tool() -> ToolDefinition {
    ToolDefinition {
        name: "get_weather".into(),
        description: "The current weather in a city".into(),
        parameters: json!({
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
            "required": ["city"],
        }),
        strict: false,
        defer_loading: false,
    }
}

/// One streamed round: the events must arrive in deltas and fold into a whole answer.
async fn round(provider: &dyn Provider, request: &ChatRequest) -> (Vec<StreamEvent>, Completion) {
    let (events, error) = collect(provider, request).await;
    assert!(error.is_none(), "the stream failed: {error:?}");
    let mut assembler = Assembler::default();
    for event in events.clone() {
        assembler.push(event);
    }
    (events, assembler.finish().unwrap())
}

async fn conversation(wire: WireFormat) {
    let peers = Peers::locate();
    let aimock = Aimock::start(&peers, &fixtures()).await.unwrap();
    let base_url = match wire {
        WireFormat::OpenAi => aimock.openai_base_url(),
        WireFormat::Anthropic => aimock.anthropic_base_url(),
    };
    let provider = provider_at(wire, base_url, RetryPolicy::none());
    let mut request = ChatRequest {
        model: match wire {
            WireFormat::OpenAi => "gpt-4o-mini".into(),
            WireFormat::Anthropic => "claude-sonnet-4-5".into(),
        },
        system: Some("You report the weather.".into()),
        messages: vec![ChatMessage::user(QUESTION)],
        tools: vec![weather_tool()],
        max_tokens: None,
        temperature: None,
        native_tool_search: None,
    };

    // Round 1: the model calls the tool.
    let (events, first) = round(provider.as_ref(), &request).await;
    assert_eq!(first.finish, FinishReason::ToolCalls, "{}", aimock.output());
    assert_eq!(first.tool_calls.len(), 1, "{events:?}");
    let call = first.tool_calls[0].clone();
    assert_eq!(call.name, "get_weather");
    assert_eq!(call.arguments["city"], "Paris");
    assert_eq!(call.arguments["unit"], "celsius");
    assert!(call.arguments_error.is_none());
    assert!(!call.id.is_empty());
    assert!(
        events
            .iter()
            .any(|e| matches!(e, StreamEvent::ToolCallStart { index: 0, .. }))
            && events.contains(&StreamEvent::ToolCallEnd { index: 0 }),
        "{events:?}"
    );

    // Round 2: the result goes back; the model answers in text.
    let mut assistant = Vec::new();
    if !first.text.is_empty() {
        assistant.push(Part::Text(first.text.clone()));
    }
    assistant.push(Part::ToolCall(call.clone()));
    request.messages.push(ChatMessage {
        role: Role::Assistant,
        content: assistant,
    });
    request.messages.push(ChatMessage {
        role: Role::User,
        content: vec![Part::ToolResult(ToolResult {
            call_id: call.id.clone(),
            content: vec![ResultPart::Text("21 degrees celsius, sunny".into())],
            is_error: false,
        })],
    });
    let (events, second) = round(provider.as_ref(), &request).await;
    assert_eq!(second.text, ANSWER, "{}", aimock.output());
    assert_eq!(second.finish, FinishReason::Stop);
    assert!(second.tool_calls.is_empty());
    let deltas = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::TextDelta { .. }))
        .count();
    assert!(deltas > 1, "the answer came in one piece: {events:?}");
}

#[tokio::test]
async fn openai_conversation_against_aimock() {
    conversation(WireFormat::OpenAi).await;
}

#[tokio::test]
async fn anthropic_conversation_against_aimock() {
    conversation(WireFormat::Anthropic).await;
}
