//! A [`ChatRequest`] as an Anthropic Messages request body.
//!
//! The neutral conversation is already shaped like Anthropic's (tool results in user
//! messages), so the mapping is mostly one block per part. Three rules of the API need work:
//! the roles must alternate, so consecutive messages of one role are merged into one; in a user
//! message the `tool_result` blocks must come before anything else; and empty text blocks are
//! refused, so they are dropped (with any message left empty by that).

use serde_json::{Map, Value, json};

use crate::types::{ChatMessage, ChatRequest, Part, ResultPart, Role, ToolDefinition};

/// The request body, streaming; `default_max_tokens` when the request names none.
pub(crate) fn body(request: &ChatRequest, default_max_tokens: u32) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    body.insert(
        "max_tokens".into(),
        json!(request.max_tokens.unwrap_or(default_max_tokens)),
    );
    if let Some(system) = request.system.as_deref().filter(|s| !s.is_empty()) {
        body.insert("system".into(), json!(system));
    }
    body.insert("messages".into(), Value::Array(messages(&request.messages)));
    if !request.tools.is_empty() {
        body.insert(
            "tools".into(),
            Value::Array(request.tools.iter().map(tool).collect()),
        );
    }
    if let Some(temperature) = request.wire_temperature() {
        body.insert("temperature".into(), temperature);
    }
    body.insert("stream".into(), json!(true));
    Value::Object(body)
}

fn tool(tool: &ToolDefinition) -> Value {
    json!({
        "name": tool.name,
        "description": tool.description,
        "input_schema": tool.parameters,
    })
}

/// The conversation with one message per turn of a role.
fn messages(conversation: &[ChatMessage]) -> Vec<Value> {
    let mut merged: Vec<(Role, Vec<Value>)> = Vec::new();
    for message in conversation {
        let blocks: Vec<Value> = message.content.iter().filter_map(block).collect();
        if blocks.is_empty() {
            continue;
        }
        match merged.last_mut() {
            Some((role, existing)) if *role == message.role => existing.extend(blocks),
            _ => merged.push((message.role, blocks)),
        }
    }
    merged
        .into_iter()
        .map(|(role, mut blocks)| {
            if role == Role::User {
                // Stable: tool results keep their order, and so does the rest.
                blocks.sort_by_key(|b| b["type"] != "tool_result");
            }
            let role = match role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            json!({"role": role, "content": blocks})
        })
        .collect()
}

fn block(part: &Part) -> Option<Value> {
    match part {
        Part::Text(text) => text_block(text),
        Part::Image { media_type, data } => Some(image_block(media_type, data)),
        Part::ToolCall(call) => Some(json!({
            "type": "tool_use",
            "id": call.id,
            "name": call.name,
            "input": call.arguments,
        })),
        Part::ToolResult(result) => {
            let content: Vec<Value> = result
                .content
                .iter()
                .filter_map(|piece| match piece {
                    ResultPart::Text(text) => text_block(text),
                    ResultPart::Image { media_type, data } => Some(image_block(media_type, data)),
                })
                .collect();
            let mut block = Map::new();
            block.insert("type".into(), json!("tool_result"));
            block.insert("tool_use_id".into(), json!(result.call_id));
            if !content.is_empty() {
                block.insert("content".into(), Value::Array(content));
            }
            if result.is_error {
                block.insert("is_error".into(), json!(true));
            }
            Some(Value::Object(block))
        }
    }
}

fn text_block(text: &str) -> Option<Value> {
    (!text.is_empty()).then(|| json!({"type": "text", "text": text}))
}

fn image_block(media_type: &str, data: &str) -> Value {
    json!({
        "type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": data},
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{ToolCall, ToolResult};

    fn request(messages: Vec<ChatMessage>) -> ChatRequest {
        ChatRequest {
            model: "claude-test".into(),
            system: Some("Be brief.".into()),
            messages,
            tools: vec![ToolDefinition {
                name: "echo".into(),
                description: "Echo".into(),
                parameters: json!({"type": "object"}),
                strict: true,
            }],
            max_tokens: None,
            temperature: Some(0.5),
        }
    }

    #[test]
    fn system_tools_and_max_tokens() {
        let body = body(&request(vec![ChatMessage::user("Hi")]), 4096);
        assert_eq!(body["system"], "Be brief.");
        assert_eq!(body["max_tokens"], 4096);
        assert_eq!(body["stream"], true);
        assert_eq!(
            body["tools"][0],
            json!({"name": "echo", "description": "Echo", "input_schema": {"type": "object"}})
        );
        assert_eq!(
            body["messages"],
            json!([{"role": "user", "content": [{"type": "text", "text": "Hi"}]}])
        );
    }

    #[test]
    fn same_role_messages_merge_with_tool_results_first() {
        let body = body(
            &request(vec![
                ChatMessage::user("first"),
                ChatMessage::assistant(""),
                ChatMessage {
                    role: Role::Assistant,
                    content: vec![
                        Part::Text("calling".into()),
                        Part::ToolCall(ToolCall {
                            id: "toolu_1".into(),
                            name: "echo".into(),
                            arguments: Map::new(),
                            arguments_error: None,
                        }),
                    ],
                },
                ChatMessage::user("by the way"),
                ChatMessage {
                    role: Role::User,
                    content: vec![Part::ToolResult(ToolResult {
                        call_id: "toolu_1".into(),
                        content: vec![
                            ResultPart::Text("failed".into()),
                            ResultPart::Image {
                                media_type: "image/png".into(),
                                data: "AAAA".into(),
                            },
                        ],
                        is_error: true,
                    })],
                },
            ]),
            100,
        );
        let messages = &body["messages"];
        assert_eq!(messages.as_array().map(Vec::len), Some(3), "{messages:#}");
        assert_eq!(messages[1]["content"][1]["type"], "tool_use");
        assert_eq!(messages[1]["content"][1]["input"], json!({}));
        let last = &messages[2]["content"];
        assert_eq!(last[0]["type"], "tool_result");
        assert_eq!(last[0]["is_error"], true);
        assert_eq!(
            last[0]["content"][0],
            json!({"type": "text", "text": "failed"})
        );
        assert_eq!(last[0]["content"][1]["source"]["media_type"], "image/png");
        assert_eq!(last[1], json!({"type": "text", "text": "by the way"}));
    }
}
