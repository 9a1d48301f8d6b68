//! `meta` (seed 004): one `mcp_query` tool with `resource` (the server), `operation` (the
//! tool) and `params` (its arguments), whose description lists every server, tool and
//! parameter. Suited to many tools: the request carries one small function instead of
//! hundreds. Results go back as `Tool execution successful: ...` or
//! `Tool execution failed: ...`.

use serde_json::{Map, Value, json};
use switchboard_core::{ErrorCode, ToolCallRecord};
use switchboard_llm::{ChatMessage, Part, ResultPart, Role, ToolCall, ToolDefinition, ToolResult};

use super::params::describe;
use super::{CallProblem, FoundCall};
use crate::offer::Offer;
use crate::results::MappedResult;

pub const TOOL_NAME: &str = "mcp_query";

pub fn definition(offer: &Offer) -> ToolDefinition {
    definition_with(offer, "")
}

/// The definition with `extra` lines after the servers' (the search of a deferred run).
pub fn definition_with(offer: &Offer, extra: &str) -> ToolDefinition {
    let mut description = String::from(
        "This tool lets you use the tools of MCP servers. Call it with a JSON object with \
         'resource' (the server), 'operation' (the tool) and 'params' (the tool's parameters).\n\n\
         Available MCP servers (resources) and their operations:\n",
    );
    for (server, tools) in offer.by_server() {
        description.push_str(&format!("\n- Server '{}':\n", server.name));
        for tool in tools {
            description.push_str(&format!(
                "  - Operation '{}': {} Parameters: {}.\n",
                tool.tool.name,
                tool.tool
                    .description
                    .as_deref()
                    .map(str::trim)
                    .filter(|d| !d.is_empty())
                    .map(|d| if d.ends_with('.') {
                        d.to_owned()
                    } else {
                        format!("{d}.")
                    })
                    .unwrap_or_default(),
                describe(&tool.schema),
            ));
        }
    }
    description.push_str(extra);
    if offer.is_empty() && extra.is_empty() {
        description.push_str("\n(no servers are available)\n");
    }
    ToolDefinition {
        name: TOOL_NAME.into(),
        description,
        parameters: json!({
            "type": "object",
            "properties": {
                "resource": {"type": "string", "description": "The MCP server to use."},
                "operation": {"type": "string", "description": "The tool of that server to call."},
                "params": {"type": "object", "description": "The tool's parameters."}
            },
            "required": ["resource", "operation"]
        }),
        strict: false,
    }
}

pub fn found_call(call: &ToolCall, offer: &Offer) -> FoundCall {
    let text = |key: &str| {
        call.arguments
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let server_name = text("resource");
    let tool_name = text("operation");
    let (arguments, params_problem) = match call.arguments.get("params") {
        None | Some(Value::Null) => (Map::new(), None),
        Some(Value::Object(params)) => (params.clone(), None),
        Some(other) => (
            Map::new(),
            Some(format!("params must be an object, got {other}")),
        ),
    };
    let target = if call.name != TOOL_NAME {
        Err(CallProblem {
            code: ErrorCode::McpToolNotFound,
            message: format!("there is no tool named {:?}; use {TOOL_NAME}", call.name),
        })
    } else if let Some(reason) = call.arguments_error.clone().or(params_problem) {
        Err(CallProblem {
            code: ErrorCode::McpInvalidParams,
            message: reason,
        })
    } else {
        offer
            .by_server_and_tool(&server_name, &tool_name)
            .cloned()
            .ok_or_else(|| CallProblem {
                code: ErrorCode::McpToolNotFound,
                message: format!(
                    "server {server_name:?} has no operation {tool_name:?}; see the list in \
                     the description of {TOOL_NAME}"
                ),
            })
    };
    FoundCall {
        id: call.id.clone(),
        called_as: call.name.clone(),
        server_name,
        tool_name,
        arguments,
        target,
    }
}

pub fn replayed_call(record: &ToolCallRecord) -> Part {
    Part::ToolCall(ToolCall {
        id: record.id.clone(),
        name: TOOL_NAME.into(),
        arguments: json!({
            "resource": record.server_name,
            "operation": record.tool_name,
            "params": record.arguments,
        })
        .as_object()
        .cloned()
        .unwrap_or_default(),
        arguments_error: None,
    })
}

/// The seed's result string, with any images after it.
pub fn result_text(mapped: &MappedResult) -> Vec<ResultPart> {
    let outcome = if mapped.is_error {
        "Tool execution failed"
    } else {
        "Tool execution successful"
    };
    let text: Vec<&str> = mapped
        .parts
        .iter()
        .filter_map(|p| match p {
            ResultPart::Text(t) => Some(t.as_str()),
            ResultPart::Image { .. } => None,
        })
        .collect();
    let mut parts = vec![ResultPart::Text(format!("{outcome}: {}", text.join("\n")))];
    parts.extend(
        mapped
            .parts
            .iter()
            .filter(|p| matches!(p, ResultPart::Image { .. }))
            .cloned(),
    );
    parts
}

pub fn results_message(calls: &[(&ToolCallRecord, MappedResult)]) -> Option<ChatMessage> {
    if calls.is_empty() {
        return None;
    }
    Some(ChatMessage {
        role: Role::User,
        content: calls
            .iter()
            .map(|(record, mapped)| {
                Part::ToolResult(ToolResult {
                    call_id: record.id.clone(),
                    content: result_text(mapped),
                    is_error: mapped.is_error,
                })
            })
            .collect(),
    })
}
