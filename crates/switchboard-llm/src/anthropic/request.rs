//! A [`ChatRequest`] as an Anthropic Messages request body.
//!
//! The neutral conversation is already shaped like Anthropic's (tool results in user
//! messages), so the mapping is mostly one block per part. Three rules of the API need work:
//! the roles must alternate, so consecutive messages of one role are merged into one; in a user
//! message the `tool_result` blocks must come before anything else; and empty text blocks are
//! refused, so they are dropped (with any message left empty by that).
//!
//! With the provider's tool search ([`ChatRequest::native_tool_search`]) the tool search tool
//! goes first in `tools`, the deferred tools carry `defer_loading: true`, and the blocks of
//! earlier searches ([`Part::Provider`]) are sent back as they came, less any reference to a
//! tool the request does not define as deferred (the API refuses a reference without a
//! definition; a tool no longer deferred is loaded without one).
//! Without it those blocks are dropped: a search result means nothing without the search tool.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use crate::types::{
    ChatMessage, ChatRequest, NativeToolSearch, Part, ResultPart, Role, ToolDefinition,
};

/// The beta that enables the tool search tool and `defer_loading`, sent as `anthropic-beta`.
pub const TOOL_SEARCH_BETA: &str = "advanced-tool-use-2025-11-20";

/// The tool search tool's definition: its versioned type and its fixed name.
pub(crate) fn search_tool(search: NativeToolSearch) -> Value {
    let (kind, name) = match search {
        NativeToolSearch::Bm25 => ("tool_search_tool_bm25_20251119", "tool_search_tool_bm25"),
        NativeToolSearch::Regex => ("tool_search_tool_regex_20251119", "tool_search_tool_regex"),
    };
    json!({"type": kind, "name": name})
}

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
    let deferred: Option<HashSet<&str>> = request.native_tool_search.map(|_| {
        request
            .tools
            .iter()
            .filter(|t| t.defer_loading)
            .map(|t| t.name.as_str())
            .collect()
    });
    body.insert(
        "messages".into(),
        Value::Array(messages(&request.messages, deferred.as_ref())),
    );
    let mut tools: Vec<Value> = request
        .native_tool_search
        .map(search_tool)
        .into_iter()
        .collect();
    let defers = request.native_tool_search.is_some();
    tools.extend(request.tools.iter().map(|t| tool(t, defers)));
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(temperature) = request.wire_temperature() {
        body.insert("temperature".into(), temperature);
    }
    body.insert("stream".into(), json!(true));
    Value::Object(body)
}

/// A function; deferred when it asks to be and the request `defers` (has the search tool).
fn tool(tool: &ToolDefinition, defers: bool) -> Value {
    let mut out = json!({
        "name": tool.name,
        "description": tool.description,
        "input_schema": tool.parameters,
    });
    if defers && tool.defer_loading {
        out["defer_loading"] = json!(true);
    }
    out
}

/// The conversation with one message per turn of a role. `deferred` names the request's
/// deferred tools when it has the tool search tool, and is `None` when provider blocks are to
/// be dropped.
fn messages(conversation: &[ChatMessage], deferred: Option<&HashSet<&str>>) -> Vec<Value> {
    let mut merged: Vec<(Role, Vec<Value>)> = Vec::new();
    for message in conversation {
        let blocks: Vec<Value> = message
            .content
            .iter()
            .filter_map(|part| match part {
                Part::Provider(block) => deferred.map(|names| provider_block(block, names)),
                other => block(other),
            })
            .collect();
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

/// A provider block as it came, with the references of a search result cut down to the tools
/// in `deferred`.
fn provider_block(block: &Value, deferred: &HashSet<&str>) -> Value {
    let mut block = block.clone();
    if let Some(references) = block
        .pointer_mut("/content/tool_references")
        .and_then(Value::as_array_mut)
    {
        references.retain(|r| {
            r["tool_name"]
                .as_str()
                .is_none_or(|name| deferred.contains(name))
        });
    }
    block
}

fn block(part: &Part) -> Option<Value> {
    match part {
        Part::Provider(_) => None,
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
                defer_loading: false,
            }],
            max_tokens: None,
            temperature: Some(0.5),
            native_tool_search: None,
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

    fn weather_tool(name: &str, defer_loading: bool) -> ToolDefinition {
        ToolDefinition {
            name: name.into(),
            description: "Get the weather at a specific location".into(),
            parameters: json!({
                "type": "object",
                "properties": {"location": {"type": "string"}},
                "required": ["location"],
            }),
            strict: false,
            defer_loading,
        }
    }

    /// The blocks of a search that found `get_weather` and `get_forecast`, as Anthropic
    /// documents them.
    fn search_blocks() -> Vec<Part> {
        vec![
            Part::Provider(json!({
                "type": "server_tool_use",
                "id": "srvtoolu_01ABC123",
                "name": "tool_search_tool_bm25",
                "input": {"query": "weather"},
            })),
            Part::Provider(json!({
                "type": "tool_search_tool_result",
                "tool_use_id": "srvtoolu_01ABC123",
                "content": {
                    "type": "tool_search_tool_search_result",
                    "tool_references": [
                        {"type": "tool_reference", "tool_name": "get_weather"},
                        {"type": "tool_reference", "tool_name": "get_forecast"},
                    ],
                },
            })),
        ]
    }

    fn searched_conversation() -> Vec<ChatMessage> {
        let mut content = search_blocks();
        content.push(Part::ToolCall(ToolCall {
            id: "toolu_01XYZ789".into(),
            name: "get_weather".into(),
            arguments: json!({"location": "San Francisco"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            arguments_error: None,
        }));
        vec![
            ChatMessage::user("What is the weather in San Francisco?"),
            ChatMessage {
                role: Role::Assistant,
                content,
            },
            ChatMessage {
                role: Role::User,
                content: vec![Part::ToolResult(ToolResult {
                    call_id: "toolu_01XYZ789".into(),
                    content: vec![ResultPart::Text("Sunny".into())],
                    is_error: false,
                })],
            },
        ]
    }

    #[test]
    fn native_search_adds_the_search_tool_and_defers_the_marked_tools() {
        let mut request = request(searched_conversation());
        request.tools = vec![
            weather_tool("pinned", false),
            weather_tool("get_weather", true),
            weather_tool("get_forecast", true),
        ];
        request.native_tool_search = Some(NativeToolSearch::Bm25);
        let body = body(&request, 100);
        let tools = body["tools"].as_array().cloned().unwrap_or_default();
        assert_eq!(
            tools[0],
            json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
        );
        assert_eq!(tools[1].get("defer_loading"), None, "{:#}", tools[1]);
        assert_eq!(tools[2]["defer_loading"], true);
        assert_eq!(tools[3]["defer_loading"], true);
        assert_eq!(tools[2]["input_schema"]["required"], json!(["location"]));
        // The search is sent back as it came, before the call it led to.
        let assistant = &body["messages"][1]["content"];
        let replayed: Vec<Part> = assistant
            .as_array()
            .map(|blocks| blocks[..2].iter().cloned().map(Part::Provider).collect())
            .unwrap_or_default();
        assert_eq!(replayed, search_blocks());
        assert_eq!(assistant[2]["type"], "tool_use");
        assert_eq!(body["messages"][2]["content"][0]["type"], "tool_result");
    }

    #[test]
    fn the_regex_variant_has_its_own_type_and_name() {
        let mut request = request(vec![ChatMessage::user("Hi")]);
        request.native_tool_search = Some(NativeToolSearch::Regex);
        let body = body(&request, 100);
        assert_eq!(
            body["tools"][0],
            json!({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"})
        );
    }

    #[test]
    fn references_to_tools_no_longer_deferred_are_left_out() {
        let mut request = request(searched_conversation());
        // get_forecast is now loaded from the start: its reference goes, as would that of a
        // tool no longer defined at all.
        request.tools = vec![
            weather_tool("get_weather", true),
            weather_tool("get_forecast", false),
        ];
        request.native_tool_search = Some(NativeToolSearch::Bm25);
        let body = body(&request, 100);
        assert_eq!(
            body["messages"][1]["content"][1]["content"]["tool_references"],
            json!([{"type": "tool_reference", "tool_name": "get_weather"}])
        );
    }

    #[test]
    fn without_native_search_nothing_is_deferred_and_search_blocks_are_dropped() {
        let mut request = request(searched_conversation());
        request.tools = vec![weather_tool("get_weather", true)];
        let body = body(&request, 100);
        assert_eq!(body["tools"].as_array().map(Vec::len), Some(1));
        assert_eq!(body["tools"][0].get("defer_loading"), None);
        let assistant = body["messages"][1]["content"].as_array().cloned();
        assert_eq!(
            assistant.map(|blocks| blocks.iter().map(|b| b["type"].clone()).collect::<Vec<_>>()),
            Some(vec![json!("tool_use")])
        );
    }
}
