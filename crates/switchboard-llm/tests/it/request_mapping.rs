//! What the production clients send: the request bodies and headers the scripted model
//! recorded, for a conversation with a system prompt, tools, images, tool calls and tool
//! results (an error among them, one with an image).

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::{ANTHROPIC_KEY, MODEL, OPENAI_KEY, PNG, events, provider, request};
use serde_json::{Map, json};
use switchboard_llm::{
    ChatMessage, ChatRequest, Part, ResultPart, Role, ToolCall, ToolResult, WireFormat,
};
use switchboard_testkit::{RecordedRequest, ScriptedLlm, Turn};

fn png() -> Part {
    Part::Image {
        media_type: "image/png".into(),
        data: PNG.into(),
    }
}

/// user (text + image) → assistant (text + two calls) → user (two results: one with an
/// image, one an error), and a follow-up user text as a separate message.
fn conversation(first_id: &str, second_id: &str) -> ChatRequest {
    let mut arguments = Map::new();
    arguments.insert("message".into(), json!("hi"));
    let mut req = request(vec![
        ChatMessage {
            role: Role::User,
            content: vec![Part::Text("What is in this picture?".into()), png()],
        },
        ChatMessage {
            role: Role::Assistant,
            content: vec![
                Part::Text("Let me look.".into()),
                Part::ToolCall(ToolCall {
                    id: first_id.into(),
                    name: "mcp__everything__echo".into(),
                    arguments,
                    arguments_error: None,
                }),
                Part::ToolCall(ToolCall {
                    id: second_id.into(),
                    name: "mcp__everything__fail".into(),
                    arguments: Map::new(),
                    arguments_error: None,
                }),
            ],
        },
        ChatMessage {
            role: Role::User,
            content: vec![
                Part::ToolResult(ToolResult {
                    call_id: first_id.into(),
                    content: vec![
                        ResultPart::Text("echo: hi".into()),
                        ResultPart::Image {
                            media_type: "image/png".into(),
                            data: PNG.into(),
                        },
                    ],
                    is_error: false,
                }),
                Part::ToolResult(ToolResult {
                    call_id: second_id.into(),
                    content: vec![ResultPart::Text("the tool failed".into())],
                    is_error: true,
                }),
            ],
        },
        ChatMessage::user("Please go on."),
    ]);
    req.temperature = Some(0.25);
    req
}

async fn send(wire: WireFormat, request: &ChatRequest) -> RecordedRequest {
    let llm = ScriptedLlm::start(vec![Turn::text("ok")]).await;
    events(provider(&llm, wire).as_ref(), request).await;
    let mut requests = llm.requests();
    assert_eq!(requests.len(), 1);
    requests.remove(0)
}

#[tokio::test]
async fn openai_request_body_and_headers() {
    let sent = send(WireFormat::OpenAi, &conversation("call_a", "call_b")).await;
    assert_eq!(sent.wire, WireFormat::OpenAi);
    assert_eq!(
        sent.header("authorization"),
        Some(format!("Bearer {OPENAI_KEY}").as_str())
    );
    let body = &sent.body;
    assert_eq!(body["model"], MODEL);
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(body["temperature"], 0.25);
    assert!(body.get("max_tokens").is_none());
    assert_eq!(
        body["tools"],
        json!([{
            "type": "function",
            "function": {
                "name": "mcp__everything__echo",
                "description": "Echoes the message back",
                "parameters": {
                    "type": "object",
                    "properties": {"message": {"type": "string"}},
                    "required": ["message"],
                },
            },
        }])
    );

    let messages = body["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "tool",
            "tool",
            "user",
            "user"
        ]
    );
    assert_eq!(messages[0]["content"], "You are a test.");
    assert_eq!(
        messages[1]["content"],
        json!([
            {"type": "text", "text": "What is in this picture?"},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}},
        ])
    );
    assert_eq!(messages[2]["content"], "Let me look.");
    assert_eq!(
        messages[2]["tool_calls"],
        json!([
            {"id": "call_a", "type": "function",
             "function": {"name": "mcp__everything__echo", "arguments": "{\"message\":\"hi\"}"}},
            {"id": "call_b", "type": "function",
             "function": {"name": "mcp__everything__fail", "arguments": "{}"}},
        ])
    );
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_a", "content": "echo: hi"})
    );
    assert_eq!(messages[4]["tool_call_id"], "call_b");
    assert_eq!(messages[4]["content"], "Error: the tool failed");
    // The image of call_a's result, which a tool message cannot carry.
    let images = messages[5]["content"].as_array().unwrap();
    assert!(images[0]["text"].as_str().unwrap().contains("call_a"));
    assert_eq!(
        images[1],
        json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}})
    );
    assert_eq!(images.len(), 2);
    assert_eq!(messages[6]["content"], "Please go on.");
}

#[tokio::test]
async fn anthropic_request_body_and_headers() {
    let sent = send(WireFormat::Anthropic, &conversation("toolu_a", "toolu_b")).await;
    assert_eq!(sent.wire, WireFormat::Anthropic);
    assert_eq!(sent.header("x-api-key"), Some(ANTHROPIC_KEY));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(sent.header("authorization"), None);
    let body = &sent.body;
    assert_eq!(body["model"], MODEL);
    assert_eq!(body["stream"], true);
    assert_eq!(body["max_tokens"], 4096);
    assert_eq!(body["system"], "You are a test.");
    assert_eq!(body["temperature"], 0.25);
    assert_eq!(
        body["tools"],
        json!([{
            "name": "mcp__everything__echo",
            "description": "Echoes the message back",
            "input_schema": {
                "type": "object",
                "properties": {"message": {"type": "string"}},
                "required": ["message"],
            },
        }])
    );
    let image = json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}});
    assert_eq!(
        body["messages"],
        json!([
            {"role": "user", "content": [
                {"type": "text", "text": "What is in this picture?"},
                image,
            ]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "toolu_a", "name": "mcp__everything__echo", "input": {"message": "hi"}},
                {"type": "tool_use", "id": "toolu_b", "name": "mcp__everything__fail", "input": {}},
            ]},
            // The results and the follow-up text, merged into one user message, results first.
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_a", "content": [
                    {"type": "text", "text": "echo: hi"},
                    image,
                ]},
                {"type": "tool_result", "tool_use_id": "toolu_b", "is_error": true, "content": [
                    {"type": "text", "text": "the tool failed"},
                ]},
                {"type": "text", "text": "Please go on."},
            ]},
        ])
    );
}

#[tokio::test]
async fn anthropic_merges_consecutive_messages_of_one_role() {
    let mut req = request(vec![
        ChatMessage::user("one"),
        ChatMessage::user("two"),
        ChatMessage::assistant("three"),
        ChatMessage::assistant("four"),
        ChatMessage::user("five"),
    ]);
    req.system = None;
    req.max_tokens = Some(100);
    let sent = send(WireFormat::Anthropic, &req).await;
    let text = |t: &str| json!({"type": "text", "text": t});
    assert_eq!(
        sent.body["messages"],
        json!([
            {"role": "user", "content": [text("one"), text("two")]},
            {"role": "assistant", "content": [text("three"), text("four")]},
            {"role": "user", "content": [text("five")]},
        ])
    );
    assert!(sent.body.get("system").is_none());
    assert_eq!(sent.body["max_tokens"], 100);
}

#[tokio::test]
async fn openai_sends_strict_only_when_asked_and_max_tokens_when_given() {
    let mut req = request(vec![ChatMessage::user("Hi")]);
    req.tools[0].strict = true;
    req.max_tokens = Some(321);
    req.system = None;
    let sent = send(WireFormat::OpenAi, &req).await;
    assert_eq!(sent.body["tools"][0]["function"]["strict"], true);
    assert_eq!(sent.body["max_tokens"], 321);
    assert_eq!(
        sent.body["messages"],
        json!([{"role": "user", "content": "Hi"}])
    );
}

#[tokio::test]
async fn no_key_means_no_credential_header() {
    use switchboard_llm::{AnthropicConfig, AnthropicProvider, OpenAiConfig, OpenAiProvider};
    let llm = ScriptedLlm::start(vec![Turn::text("a"), Turn::text("b")]).await;
    let req = request(vec![ChatMessage::user("Hi")]);
    events(
        // A trailing slash on the base URL is fine.
        &OpenAiProvider::new(OpenAiConfig::new(format!("{}/", llm.openai_base_url()))),
        &req,
    )
    .await;
    events(
        &AnthropicProvider::new(AnthropicConfig::new(format!(
            "{}/",
            llm.anthropic_base_url()
        ))),
        &req,
    )
    .await;
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].header("authorization"), None);
    assert_eq!(requests[1].header("x-api-key"), None);
    assert!(requests.iter().all(|r| r.body.is_object()));
}
