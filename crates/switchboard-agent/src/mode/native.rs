//! `native`: one provider function per tool, under its mangled name (seed 001).

use switchboard_core::{ErrorCode, ToolCallRecord};
use switchboard_llm::{ChatMessage, Part, Role, ToolCall, ToolDefinition, ToolResult, WireFormat};
use switchboard_schema::{ConvertOptions, Dialect, ToolInput, convert_tool};

use super::{CallProblem, FoundCall, LeftOut};
use crate::offer::Offer;
use crate::results::MappedResult;

/// Every tool whose schema converts for the provider; the others are left out and named.
pub fn definitions(offer: &Offer, wire: WireFormat) -> (Vec<ToolDefinition>, Vec<LeftOut>) {
    let dialect = match wire {
        WireFormat::OpenAi => Dialect::OpenAi,
        WireFormat::Anthropic => Dialect::Anthropic,
    };
    let mut definitions = Vec::new();
    let mut left_out = Vec::new();
    for tool in offer.tools() {
        let input = ToolInput {
            name: tool.display_name.clone(),
            description: tool.tool.description.clone(),
            input_schema: Some(serde_json::Value::Object(tool.schema.clone())),
        };
        match convert_tool(&input, dialect, &ConvertOptions::default()) {
            Ok(converted) => {
                let parameters = match wire {
                    WireFormat::OpenAi => converted.entry["function"]["parameters"].clone(),
                    WireFormat::Anthropic => converted.entry["input_schema"].clone(),
                };
                definitions.push(ToolDefinition {
                    name: tool.display_name.clone(),
                    description: tool.tool.description.clone().unwrap_or_default(),
                    parameters,
                    strict: false,
                    defer_loading: false,
                });
            }
            Err(e) => left_out.push(LeftOut {
                server: tool.server.id.0.clone(),
                tool: tool.tool.name.clone(),
                reason: e.to_string(),
            }),
        }
    }
    (definitions, left_out)
}

pub fn found_call(call: &ToolCall, offer: &Offer) -> FoundCall {
    let tool = offer.by_display_name(&call.name);
    let target = match (tool, &call.arguments_error) {
        (None, _) => Err(CallProblem::unknown_tool(&call.name, offer)),
        (Some(_), Some(reason)) => Err(CallProblem {
            code: ErrorCode::McpInvalidParams,
            message: reason.clone(),
        }),
        (Some(tool), None) => Ok(tool.clone()),
    };
    FoundCall {
        id: call.id.clone(),
        called_as: call.name.clone(),
        server_name: tool.map(|t| t.server.name.clone()).unwrap_or_default(),
        tool_name: tool
            .map(|t| t.tool.name.clone())
            .unwrap_or_else(|| call.name.clone()),
        arguments: call.arguments.clone(),
        target,
    }
}

pub fn replayed_call(record: &ToolCallRecord) -> Part {
    Part::ToolCall(ToolCall {
        id: record.id.clone(),
        name: record.display_name.clone(),
        arguments: record.arguments.clone(),
        arguments_error: None,
    })
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
                    content: mapped.parts.clone(),
                    is_error: mapped.is_error,
                })
            })
            .collect(),
    })
}
