//! `prompt` (seed 000): for models without native tool calling. The system prompt lists the
//! tools grouped by server with their parameters and asks for fenced JSON instructions:
//!
//! ```json
//! {"type": "use_mcp_tool", "server_name": "files", "tool_name": "read", "arguments": {"path": "a"}}
//! ```
//!
//! Every such block in the answer is a call. A block that is meant as one (it mentions
//! `use_mcp_tool`) but cannot be read is reported back to the model rather than dropped
//! silently; JSON blocks that are not instructions are left alone. The results go back as a
//! user message, since the model has no tool-result role to read them from.

use serde_json::{Map, Value};
use switchboard_core::ToolCallRecord;
use switchboard_llm::{ChatMessage, Part, ResultPart, Role};

use super::params::describe;
use super::{CallProblem, FoundCall};
use crate::catalog::Catalog;
use crate::results::MappedResult;

pub const INSTRUCTION_TYPE: &str = "use_mcp_tool";

pub fn instructions(catalog: &Catalog) -> String {
    let mut text = String::from("# Tools\n\nYou can use these tools of MCP servers.\n");
    for (server, tools) in catalog.by_server() {
        text.push_str(&format!("\n## Server \"{}\"\n", server.name));
        for tool in tools {
            text.push_str(&format!(
                "- **{}**: {}\n  Parameters: {}\n",
                tool.tool.name,
                tool.tool.description.as_deref().unwrap_or("").trim(),
                describe(&tool.tool.input_schema)
            ));
        }
    }
    text.push_str(
        "\nTo use a tool, write a fenced JSON block like this one (one block per call; you \
         may write several):\n\n\
         ```json\n\
         {\n  \"type\": \"use_mcp_tool\",\n  \"server_name\": \"<server>\",\n  \
         \"tool_name\": \"<tool>\",\n  \"arguments\": {\"<parameter>\": \"<value>\"}\n}\n\
         ```\n\n\
         Then stop and wait: the results come back in the next message. When you need no \
         tool, answer normally without such a block.",
    );
    text
}

/// Every fenced ```json block's body, in order.
fn json_blocks(text: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("```") {
        let after = &rest[start + 3..];
        let Some(line_end) = after.find('\n') else {
            break;
        };
        let info = after[..line_end].trim();
        let body_start = &after[line_end + 1..];
        let Some(end) = body_start.find("```") else {
            break;
        };
        if info.eq_ignore_ascii_case("json")
            || (info.is_empty() && body_start.trim_start().starts_with('{'))
        {
            blocks.push(&body_start[..end]);
        }
        rest = &body_start[end + 3..];
    }
    blocks
}

pub fn found_calls(text: &str, catalog: &Catalog, round: u32) -> Vec<FoundCall> {
    let mut calls = Vec::new();
    for (i, block) in json_blocks(text).into_iter().enumerate() {
        let id = format!("prompt_{round}_{i}");
        let parsed = serde_json::from_str::<Value>(block);
        let instruction = match &parsed {
            Ok(Value::Object(map))
                if map.get("type").and_then(Value::as_str) == Some(INSTRUCTION_TYPE) =>
            {
                map
            }
            Ok(_) => continue,
            Err(e) => {
                if block.contains(INSTRUCTION_TYPE) {
                    calls.push(malformed(id, format!("the block is not valid JSON: {e}")));
                }
                continue;
            }
        };
        let field = |key: &str| {
            instruction
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let (Some(server_name), Some(tool_name)) = (field("server_name"), field("tool_name"))
        else {
            calls.push(malformed(
                id,
                "the block needs \"server_name\" and \"tool_name\" strings".into(),
            ));
            continue;
        };
        let arguments = match instruction.get("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(map)) => map.clone(),
            Some(_) => {
                calls.push(malformed(id, "\"arguments\" must be an object".into()));
                continue;
            }
        };
        let target = catalog
            .by_server_and_tool(&server_name, &tool_name)
            .cloned()
            .ok_or_else(|| CallProblem {
                code: "MCP_TOOL_NOT_FOUND",
                message: format!("server {server_name:?} has no tool {tool_name:?}"),
            });
        calls.push(FoundCall {
            id,
            called_as: INSTRUCTION_TYPE.into(),
            server_name,
            tool_name,
            arguments,
            target,
        });
    }
    calls
}

fn malformed(id: String, message: String) -> FoundCall {
    FoundCall {
        id,
        called_as: INSTRUCTION_TYPE.into(),
        server_name: String::new(),
        tool_name: String::new(),
        arguments: Map::new(),
        target: Err(CallProblem {
            code: "MCP_PARSE_ERROR",
            message,
        }),
    }
}

pub fn results_message(calls: &[(&ToolCallRecord, MappedResult)]) -> Option<ChatMessage> {
    if calls.is_empty() {
        return None;
    }
    let mut content = Vec::new();
    for (record, mapped) in calls {
        let label = if record.tool_name.is_empty() {
            "A tool call block".to_owned()
        } else {
            format!("Tool {} of server {}", record.tool_name, record.server_name)
        };
        let outcome = if mapped.is_error {
            "failed"
        } else {
            "returned"
        };
        let mut text = format!("{label} {outcome}:\n");
        for part in &mapped.parts {
            match part {
                ResultPart::Text(t) => {
                    text.push_str(t);
                    text.push('\n');
                }
                ResultPart::Image { media_type, data } => {
                    content.push(Part::Image {
                        media_type: media_type.clone(),
                        data: data.clone(),
                    });
                }
            }
        }
        content.push(Part::Text(text));
    }
    Some(ChatMessage {
        role: Role::User,
        content,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_instruction_block_is_found_and_broken_ones_are_reported() {
        let text = "I'll check.\n```json\n{\"type\": \"use_mcp_tool\", \"server_name\": \"s\", \
                    \"tool_name\": \"t\", \"arguments\": {\"a\": 1}}\n```\nAnd:\n```json\n\
                    {\"type\": \"use_mcp_tool\", \"server_name\": \n```\nAn example:\n\
                    ```json\n{\"not\": \"a call\"}\n```\n```json\n{\"type\": \"use_mcp_tool\", \
                    \"tool_name\": \"t\"}\n```";
        let calls = found_calls(text, &Catalog::default(), 2);
        assert_eq!(calls.len(), 3);
        assert_eq!(calls[0].id, "prompt_2_0");
        assert_eq!(calls[0].server_name, "s");
        assert_eq!(calls[0].arguments["a"], 1);
        assert_eq!(
            calls[0].target.as_ref().unwrap_err().code,
            "MCP_TOOL_NOT_FOUND"
        );
        assert_eq!(
            calls[1].target.as_ref().unwrap_err().code,
            "MCP_PARSE_ERROR"
        );
        assert!(
            calls[2]
                .target
                .as_ref()
                .unwrap_err()
                .message
                .contains("server_name")
        );
    }

    #[test]
    fn text_without_blocks_has_no_calls() {
        assert!(found_calls("Paris is the capital.", &Catalog::default(), 0).is_empty());
        assert!(found_calls("```rust\nfn main() {}\n```", &Catalog::default(), 0).is_empty());
    }
}
