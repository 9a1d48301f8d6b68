//! A [`ChatRequest`] as an OpenAI chat-completions request body.
//!
//! The neutral conversation keeps tool results inside user messages (Anthropic's shape); OpenAI
//! wants each as a `role: tool` message right after the assistant message that made the calls.
//! A tool message can only hold text, so images from tool results follow the tool messages as
//! one user message, each call's images introduced by a line naming the call. An error result
//! is prefixed with `Error: ` so the model reads it as a failure.
//!
//! `max_tokens` is sent under that name, the one every OpenAI-compatible server understands;
//! OpenAI's newer `max_completion_tokens` is not.
//!
//! Chat completions have no tool search (OpenAI's `tool_search` and `defer_loading` belong to
//! the Responses API), so [`ChatRequest::native_tool_search`] and
//! [`ToolDefinition::defer_loading`] are not sent, every tool is, and Anthropic's search blocks
//! ([`Part::Provider`]) are dropped.

use serde_json::{Map, Value, json};

use crate::types::{ChatMessage, ChatRequest, Part, ResultPart, Role, ToolCall, ToolDefinition};

/// The request body, streaming with usage.
pub(crate) fn body(request: &ChatRequest) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = request.system.as_deref().filter(|s| !s.is_empty()) {
        messages.push(json!({"role": "system", "content": system}));
    }
    for message in &request.messages {
        match message.role {
            Role::User => user_messages(message, &mut messages),
            Role::Assistant => messages.extend(assistant_message(message)),
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), json!(true));
    body.insert("stream_options".into(), json!({"include_usage": true}));
    if !request.tools.is_empty() {
        body.insert(
            "tools".into(),
            Value::Array(request.tools.iter().map(tool).collect()),
        );
    }
    if let Some(max_tokens) = request.max_tokens {
        body.insert("max_tokens".into(), json!(max_tokens));
    }
    if let Some(temperature) = request.wire_temperature() {
        body.insert("temperature".into(), temperature);
    }
    Value::Object(body)
}

fn tool(tool: &ToolDefinition) -> Value {
    let mut function = Map::new();
    function.insert("name".into(), json!(tool.name));
    function.insert("description".into(), json!(tool.description));
    function.insert("parameters".into(), tool.parameters.clone());
    if tool.strict {
        function.insert("strict".into(), json!(true));
    }
    json!({"type": "function", "function": function})
}

/// A user message: its tool results as `tool` messages, then their images, then the rest.
fn user_messages(message: &ChatMessage, out: &mut Vec<Value>) {
    let mut result_images = Vec::new();
    let mut own = Vec::new();
    for part in &message.content {
        match part {
            Part::ToolResult(result) => {
                let mut texts = Vec::new();
                let mut images = Vec::new();
                for piece in &result.content {
                    match piece {
                        ResultPart::Text(text) => texts.push(text.as_str()),
                        ResultPart::Image { media_type, data } => {
                            images.push(image_part(media_type, data));
                        }
                    }
                }
                let mut text = texts.join("\n");
                if text.is_empty() {
                    text = if images.is_empty() {
                        "(no output)".to_owned()
                    } else {
                        "(the result is the image(s) in the next message)".to_owned()
                    };
                }
                if result.is_error {
                    text = format!("Error: {text}");
                }
                out.push(json!({"role": "tool", "tool_call_id": result.call_id, "content": text}));
                if !images.is_empty() {
                    result_images.push(json!({
                        "type": "text",
                        "text": format!("Image(s) from the result of tool call {}:", result.call_id),
                    }));
                    result_images.extend(images);
                }
            }
            Part::Text(text) => own.push(json!({"type": "text", "text": text})),
            Part::Image { media_type, data } => own.push(image_part(media_type, data)),
            Part::ToolCall(call) => {
                tracing::debug!(call = %call.id, "dropping a tool call from a user message");
            }
            Part::Provider(_) => {
                tracing::debug!("dropping another provider's block from a user message");
            }
        }
    }
    if !result_images.is_empty() {
        out.push(json!({"role": "user", "content": result_images}));
    }
    if !own.is_empty() {
        out.push(json!({"role": "user", "content": user_content(own)}));
    }
}

/// A single text part as a plain string (what every server accepts); anything else as parts.
fn user_content(mut parts: Vec<Value>) -> Value {
    if parts.len() == 1 && parts[0]["type"] == "text" {
        return parts.swap_remove(0)["text"].take();
    }
    Value::Array(parts)
}

fn image_part(media_type: &str, data: &str) -> Value {
    json!({
        "type": "image_url",
        "image_url": {"url": format!("data:{media_type};base64,{data}")},
    })
}

/// An assistant message: its text as `content`, its calls as `tool_calls`. Nothing when the
/// message holds neither.
fn assistant_message(message: &ChatMessage) -> Option<Value> {
    let mut text = String::new();
    let mut calls = Vec::new();
    for part in &message.content {
        match part {
            Part::Text(piece) => text.push_str(piece),
            Part::ToolCall(call) => calls.push(tool_call(call)),
            // Another provider's blocks (Anthropic's tool search) mean nothing here.
            Part::Image { .. } | Part::ToolResult(_) | Part::Provider(_) => {
                tracing::debug!("dropping a part OpenAI does not take in assistant messages");
            }
        }
    }
    if text.is_empty() && calls.is_empty() {
        return None;
    }
    let mut out = Map::new();
    out.insert("role".into(), json!("assistant"));
    out.insert(
        "content".into(),
        if text.is_empty() {
            Value::Null
        } else {
            json!(text)
        },
    );
    if !calls.is_empty() {
        out.insert("tool_calls".into(), Value::Array(calls));
    }
    Some(Value::Object(out))
}

fn tool_call(call: &ToolCall) -> Value {
    json!({
        "id": call.id,
        "type": "function",
        "function": {
            "name": call.name,
            "arguments": Value::Object(call.arguments.clone()).to_string(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ToolResult;

    fn request(messages: Vec<ChatMessage>) -> ChatRequest {
        ChatRequest {
            model: "gpt-test".into(),
            system: Some("Be brief.".into()),
            messages,
            tools: Vec::new(),
            max_tokens: None,
            temperature: None,
            native_tool_search: None,
        }
    }

    fn image() -> ResultPart {
        ResultPart::Image {
            media_type: "image/png".into(),
            data: "AAAA".into(),
        }
    }

    #[test]
    fn a_temperature_goes_out_as_the_decimal_it_was_written_as() {
        let mut asked = request(vec![ChatMessage::user("Hi")]);
        asked.temperature = Some(0.7);
        assert_eq!(body(&asked)["temperature"], json!(0.7));
        asked.temperature = None;
        assert!(body(&asked).get("temperature").is_none());
    }

    #[test]
    fn system_comes_first_and_plain_text_stays_a_string() {
        let body = body(&request(vec![ChatMessage::user("Hi")]));
        assert_eq!(
            body["messages"][0],
            json!({"role": "system", "content": "Be brief."})
        );
        assert_eq!(
            body["messages"][1],
            json!({"role": "user", "content": "Hi"})
        );
        assert_eq!(body["stream"], true);
        assert_eq!(body["stream_options"]["include_usage"], true);
        assert!(body.get("tools").is_none());
        assert!(body.get("max_tokens").is_none());
    }

    #[test]
    fn tool_results_become_tool_messages_and_their_images_a_user_message() {
        let mut arguments = Map::new();
        arguments.insert("q".into(), json!("x"));
        let body = body(&request(vec![
            ChatMessage {
                role: Role::Assistant,
                content: vec![Part::ToolCall(ToolCall {
                    id: "call_1".into(),
                    name: "search".into(),
                    arguments,
                    arguments_error: None,
                })],
            },
            ChatMessage {
                role: Role::User,
                content: vec![
                    Part::ToolResult(ToolResult {
                        call_id: "call_1".into(),
                        content: vec![ResultPart::Text("found".into()), image()],
                        is_error: false,
                    }),
                    Part::ToolResult(ToolResult {
                        call_id: "call_2".into(),
                        content: vec![ResultPart::Text("no such file".into())],
                        is_error: true,
                    }),
                    Part::Text("and now?".into()),
                ],
            },
        ]));
        let messages = body["messages"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        assert_eq!(messages.len(), 6, "{messages:#?}");
        assert_eq!(messages[1]["content"], Value::Null);
        assert_eq!(
            messages[1]["tool_calls"][0]["function"]["arguments"],
            "{\"q\":\"x\"}"
        );
        assert_eq!(
            messages[2],
            json!({"role": "tool", "tool_call_id": "call_1", "content": "found"})
        );
        assert_eq!(messages[3]["content"], "Error: no such file");
        assert_eq!(messages[4]["role"], "user");
        assert!(
            messages[4]["content"][0]["text"]
                .as_str()
                .is_some_and(|t| t.contains("call_1"))
        );
        assert_eq!(
            messages[4]["content"][1]["image_url"]["url"],
            "data:image/png;base64,AAAA"
        );
        assert_eq!(messages[5], json!({"role": "user", "content": "and now?"}));
    }

    #[test]
    fn strict_is_sent_only_when_true() {
        let mut req = request(vec![ChatMessage::user("Hi")]);
        req.tools = vec![
            ToolDefinition {
                name: "a".into(),
                description: "A".into(),
                parameters: json!({"type": "object"}),
                strict: false,
                defer_loading: false,
            },
            ToolDefinition {
                name: "b".into(),
                description: "B".into(),
                parameters: json!({"type": "object"}),
                strict: true,
                defer_loading: false,
            },
        ];
        let body = body(&req);
        assert!(body["tools"][0]["function"].get("strict").is_none());
        assert_eq!(body["tools"][1]["function"]["strict"], true);
        assert_eq!(body["tools"][1]["type"], "function");
    }

    #[test]
    fn anthropic_search_is_neither_sent_nor_replayed() {
        let mut req = request(vec![ChatMessage {
            role: Role::Assistant,
            content: vec![
                Part::Text("Found it.".into()),
                Part::Provider(json!({
                    "type": "server_tool_use",
                    "id": "srvtoolu_1",
                    "name": "tool_search_tool_bm25",
                    "input": {"query": "weather"},
                })),
            ],
        }]);
        req.tools = vec![ToolDefinition {
            name: "get_weather".into(),
            description: "Weather".into(),
            parameters: json!({"type": "object"}),
            strict: false,
            defer_loading: true,
        }];
        req.native_tool_search = Some(crate::types::NativeToolSearch::Bm25);
        let body = body(&req);
        assert_eq!(body["tools"].as_array().map(Vec::len), Some(1));
        assert!(body["tools"][0].get("defer_loading").is_none());
        assert!(body["tools"][0]["function"].get("defer_loading").is_none());
        assert_eq!(
            body["messages"][1],
            json!({"role": "assistant", "content": "Found it."})
        );
    }
}
