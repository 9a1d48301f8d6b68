//! What the production clients make of streamed answers: text in deltas, one and several tool
//! calls with fragmented arguments, usage, finish reasons, and `complete()` folding it all,
//! in both wire formats, against the scripted model.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::{BOTH, events, provider, request, text_deltas};
use serde_json::json;
use switchboard_llm::{ChatMessage, FinishReason, StreamEvent, Usage, WireFormat, complete};
use switchboard_testkit::{ScriptedLlm, Turn};

fn call_id(wire: WireFormat, n: u32) -> String {
    match wire {
        WireFormat::OpenAi => format!("call_{n}"),
        WireFormat::Anthropic => format!("toolu_{n}"),
    }
}

async fn text_streams_in_several_deltas(wire: WireFormat) {
    let llm = ScriptedLlm::start(vec![Turn::text("The answer is 42.").usage(11, 7)]).await;
    let events = events(
        provider(&llm, wire).as_ref(),
        &request(vec![ChatMessage::user("What is 6 x 7?")]),
    )
    .await;
    let deltas = text_deltas(&events);
    assert!(deltas.len() > 1, "one delta only: {events:?}");
    assert_eq!(deltas.concat(), "The answer is 42.");
    let tail = &events[events.len() - 2..];
    assert_eq!(
        tail,
        [
            StreamEvent::Usage {
                usage: Usage {
                    input_tokens: 11,
                    output_tokens: 7
                }
            },
            StreamEvent::Finish {
                reason: FinishReason::Stop
            },
        ],
        "{events:?}"
    );
}

#[tokio::test]
async fn openai_text_streams_in_several_deltas() {
    text_streams_in_several_deltas(WireFormat::OpenAi).await;
}

#[tokio::test]
async fn anthropic_text_streams_in_several_deltas() {
    text_streams_in_several_deltas(WireFormat::Anthropic).await;
}

async fn one_tool_call_with_fragmented_arguments(wire: WireFormat) {
    let arguments = json!({"message": "hello there, a message long enough to be cut up"});
    let llm = ScriptedLlm::start(vec![Turn::tool_call(
        "mcp__everything__echo",
        arguments.clone(),
    )])
    .await;
    let events = events(
        provider(&llm, wire).as_ref(),
        &request(vec![ChatMessage::user("Echo something")]),
    )
    .await;

    assert_eq!(
        events[0],
        StreamEvent::ToolCallStart {
            index: 0,
            id: call_id(wire, 1),
            name: "mcp__everything__echo".into()
        }
    );
    let fragments: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallDelta {
                index: 0,
                arguments,
            } => Some(arguments.as_str()),
            _ => None,
        })
        .collect();
    assert!(fragments.len() > 1, "arguments came whole: {events:?}");
    let joined: serde_json::Value = serde_json::from_str(&fragments.concat()).unwrap();
    assert_eq!(joined, arguments);
    let end = events
        .iter()
        .position(|e| *e == StreamEvent::ToolCallEnd { index: 0 })
        .expect("ToolCallEnd");
    let last_delta = events
        .iter()
        .rposition(|e| matches!(e, StreamEvent::ToolCallDelta { .. }))
        .unwrap();
    assert!(end > last_delta);
    assert_eq!(
        events.last(),
        Some(&StreamEvent::Finish {
            reason: FinishReason::ToolCalls
        })
    );
}

#[tokio::test]
async fn openai_one_tool_call_with_fragmented_arguments() {
    one_tool_call_with_fragmented_arguments(WireFormat::OpenAi).await;
}

#[tokio::test]
async fn anthropic_one_tool_call_with_fragmented_arguments() {
    one_tool_call_with_fragmented_arguments(WireFormat::Anthropic).await;
}

async fn several_tool_calls_in_one_turn(wire: WireFormat) {
    let llm = ScriptedLlm::start(vec![
        Turn::tool_calls(vec![
            (
                "mcp__everything__echo",
                json!({"message": "first of two calls"}),
            ),
            ("mcp__everything__add", json!({"a": 40, "b": 2})),
        ])
        .with_text("Let me check both."),
    ])
    .await;
    let provider = provider(&llm, wire);
    let answer = complete(
        provider.as_ref(),
        &request(vec![ChatMessage::user("Do two things")]),
    )
    .await
    .unwrap();

    assert_eq!(answer.text, "Let me check both.");
    assert_eq!(answer.finish, FinishReason::ToolCalls);
    assert_eq!(answer.tool_calls.len(), 2);
    let [first, second] = &answer.tool_calls[..] else {
        unreachable!()
    };
    assert_eq!(
        (first.id.as_str(), first.name.as_str()),
        (call_id(wire, 1).as_str(), "mcp__everything__echo")
    );
    assert_eq!(first.arguments["message"], "first of two calls");
    assert_eq!(
        (second.id.as_str(), second.name.as_str()),
        (call_id(wire, 2).as_str(), "mcp__everything__add")
    );
    assert_eq!(second.arguments["a"], 40);
    assert_eq!(second.arguments["b"], 2);
    assert!(first.arguments_error.is_none() && second.arguments_error.is_none());
    assert!(answer.usage.input_tokens > 0 && answer.usage.output_tokens > 0);
}

#[tokio::test]
async fn openai_several_tool_calls_in_one_turn() {
    several_tool_calls_in_one_turn(WireFormat::OpenAi).await;
}

#[tokio::test]
async fn anthropic_several_tool_calls_in_one_turn() {
    several_tool_calls_in_one_turn(WireFormat::Anthropic).await;
}

#[tokio::test]
async fn complete_folds_text_answers_in_both_formats() {
    for wire in BOTH {
        let llm = ScriptedLlm::start(vec![
            Turn::raw_text("Here:\n```json\n{\"tool\": \"echo\", \"arguments\": {}}\n```\n")
                .usage(3, 4),
        ])
        .await;
        let answer = complete(
            provider(&llm, wire).as_ref(),
            &request(vec![ChatMessage::user("Hi")]),
        )
        .await
        .unwrap();
        assert_eq!(
            answer.text, "Here:\n```json\n{\"tool\": \"echo\", \"arguments\": {}}\n```\n",
            "{wire:?}"
        );
        assert!(answer.tool_calls.is_empty());
        assert_eq!(answer.finish, FinishReason::Stop);
        assert_eq!(
            answer.usage,
            Usage {
                input_tokens: 3,
                output_tokens: 4
            }
        );
    }
}

#[tokio::test]
async fn a_truncated_answer_finishes_with_length_in_both_formats() {
    for wire in BOTH {
        let llm = ScriptedLlm::start(vec![Turn::text("It was a dark and").truncated()]).await;
        let answer = complete(
            provider(&llm, wire).as_ref(),
            &request(vec![ChatMessage::user("Tell a story")]),
        )
        .await
        .unwrap();
        assert_eq!(answer.finish, FinishReason::Length, "{wire:?}");
        assert_eq!(answer.text, "It was a dark and");
    }
}
