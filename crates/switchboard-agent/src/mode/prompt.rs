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
use switchboard_core::{ErrorCode, ToolCallRecord};
use switchboard_llm::{ChatMessage, Part, ResultPart, Role};

use super::params::describe;
use super::{CallProblem, FoundCall};
use crate::offer::Offer;
use crate::results::MappedResult;

pub const INSTRUCTION_TYPE: &str = "use_mcp_tool";

pub fn instructions(offer: &Offer) -> String {
    instructions_with(offer, "")
}

/// The instructions with `extra` listed after the servers' tools (the search of a deferred
/// run).
pub fn instructions_with(offer: &Offer, extra: &str) -> String {
    let mut text = String::from("# Tools\n\nYou can use these tools of MCP servers.\n");
    for (server, tools) in offer.by_server() {
        text.push_str(&format!("\n## Server \"{}\"\n", server.name));
        for tool in tools {
            text.push_str(&format!(
                "- **{}**: {}\n  Parameters: {}\n",
                tool.tool.name,
                tool.tool.description.as_deref().unwrap_or("").trim(),
                describe(&tool.schema)
            ));
        }
    }
    text.push_str(extra);
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

/// One fenced JSON block: where the whole fence is in the text, and its body.
struct Block<'t> {
    fence: std::ops::Range<usize>,
    body: &'t str,
}

/// Every fenced ```json block, in order.
fn json_blocks(text: &str) -> Vec<Block<'_>> {
    let mut blocks = Vec::new();
    let mut offset = 0;
    while let Some(start) = text[offset..].find("```") {
        let start = offset + start;
        let after = start + 3;
        let Some(line_end) = text[after..].find('\n') else {
            break;
        };
        let info = text[after..after + line_end].trim();
        let body_start = after + line_end + 1;
        let Some(end) = text[body_start..].find("```") else {
            break;
        };
        let body = &text[body_start..body_start + end];
        if info.eq_ignore_ascii_case("json")
            || (info.is_empty() && body.trim_start().starts_with('{'))
        {
            blocks.push(Block {
                fence: start..body_start + end + 3,
                body,
            });
        }
        offset = body_start + end + 3;
    }
    blocks
}

/// The id of the call made from the `index`th JSON block of `round`'s text.
fn call_id(round: u32, index: usize) -> String {
    format!("prompt_{round}_{index}")
}

/// What a person reads of one round's text (seed 000 `MCPHostService.processMCPInstructions`):
/// each block that became a call with a result is replaced by that result, formatted; blocks
/// still waiting (and JSON that is no call) stay as written. The stored text keeps the blocks,
/// so the model's replay is unchanged.
pub fn display_round(
    text: &str,
    round: u32,
    calls: &[ToolCallRecord],
    max_result_chars: usize,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for (index, block) in json_blocks(text).into_iter().enumerate() {
        let id = call_id(round, index);
        let Some(call) = calls
            .iter()
            .find(|c| c.id == id && c.round == round && c.status.is_terminal())
        else {
            continue;
        };
        out.push_str(&text[copied..block.fence.start]);
        out.push_str(&formatted_result(call, max_result_chars));
        copied = block.fence.end;
    }
    out.push_str(&text[copied..]);
    out
}

/// A call's result as a person reads it in place of its block.
fn formatted_result(call: &ToolCallRecord, max_result_chars: usize) -> String {
    let mapped = crate::results::map_stored(
        call.response.as_ref(),
        call.is_error.unwrap_or(false),
        max_result_chars,
    );
    let outcome = match (call.status, mapped.is_error) {
        (switchboard_core::ToolCallStatus::Cancelled, _) => "was not run",
        (_, true) => "failed",
        (_, false) => "returned",
    };
    let label = if call.tool_name.is_empty() {
        "A tool call block".to_owned()
    } else {
        format!("Tool `{}` of server `{}`", call.tool_name, call.server_name)
    };
    let text = mapped.text();
    let text = text.trim_end();
    if text.is_empty() {
        format!("> {label} {outcome}.")
    } else {
        format!("> {label} {outcome}:\n\n```\n{text}\n```")
    }
}

pub fn found_calls(text: &str, offer: &Offer, round: u32) -> Vec<FoundCall> {
    let mut calls = Vec::new();
    for (i, block) in json_blocks(text).into_iter().enumerate() {
        let id = call_id(round, i);
        let block = block.body;
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
        let target = offer
            .by_server_and_tool(&server_name, &tool_name)
            .cloned()
            .ok_or_else(|| CallProblem {
                code: ErrorCode::McpToolNotFound,
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
            code: ErrorCode::McpParseError,
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
    use switchboard_core::ToolCallStatus;

    use super::*;

    #[test]
    fn every_instruction_block_is_found_and_broken_ones_are_reported() {
        let text = "I'll check.\n```json\n{\"type\": \"use_mcp_tool\", \"server_name\": \"s\", \
                    \"tool_name\": \"t\", \"arguments\": {\"a\": 1}}\n```\nAnd:\n```json\n\
                    {\"type\": \"use_mcp_tool\", \"server_name\": \n```\nAn example:\n\
                    ```json\n{\"not\": \"a call\"}\n```\n```json\n{\"type\": \"use_mcp_tool\", \
                    \"tool_name\": \"t\"}\n```";
        let calls = found_calls(text, &Offer::default(), 2);
        assert_eq!(calls.len(), 3);
        assert_eq!(calls[0].id, "prompt_2_0");
        assert_eq!(calls[0].server_name, "s");
        assert_eq!(calls[0].arguments["a"], 1);
        assert_eq!(
            calls[0].target.as_ref().unwrap_err().code,
            ErrorCode::McpToolNotFound
        );
        assert_eq!(
            calls[1].target.as_ref().unwrap_err().code,
            ErrorCode::McpParseError
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

    fn record(id: &str, round: u32, status: ToolCallStatus, response: Value) -> ToolCallRecord {
        ToolCallRecord {
            id: id.into(),
            server_id: switchboard_core::ServerId("s1".into()),
            server_name: "Everything".into(),
            tool_name: "echo".into(),
            display_name: "mcp__everything__echo".into(),
            arguments: Map::new(),
            status,
            response: Some(response),
            is_error: Some(false),
            round,
            approved: Some(true),
            question: None,
            pending_input: None,
            task: None,
            resolved_arguments: None,
            mapped_parameters: Default::default(),
        }
    }

    #[test]
    fn each_block_with_a_result_reads_as_that_result() {
        let text = "Example:\n```json\n{\"not\": \"a call\"}\n```\nCalling:\n```json\n\
                    {\"type\": \"use_mcp_tool\", \"server_name\": \"Everything\", \
                    \"tool_name\": \"echo\", \"arguments\": {\"message\": \"hi\"}}\n```\n\
                    And:\n```json\n{\"type\": \"use_mcp_tool\"}\n```\nDone.";
        let result = serde_json::json!({"content": [{"type": "text", "text": "Echo: hi"}]});
        let calls = [
            record("prompt_1_1", 1, ToolCallStatus::Done, result.clone()),
            record("prompt_1_2", 1, ToolCallStatus::Pending, Value::Null),
        ];
        let shown = display_round(text, 1, &calls, 1000);
        assert_eq!(
            shown,
            "Example:\n```json\n{\"not\": \"a call\"}\n```\nCalling:\n\
             > Tool `echo` of server `Everything` returned:\n\n```\nEcho: hi\n```\n\
             And:\n```json\n{\"type\": \"use_mcp_tool\"}\n```\nDone."
        );
        // The ids are per round: the same block in another round is not this call.
        assert_eq!(display_round(text, 0, &calls, 1000), text);
        // The calls found in the text are the ones displayed.
        let found = found_calls(text, &Offer::default(), 1);
        assert_eq!(found[0].id, "prompt_1_1");
        // Without calls, the text is as written.
        assert_eq!(display_round(text, 1, &[], 1000), text);
    }

    #[test]
    fn failed_and_rejected_calls_say_so() {
        let block = "```json\n{\"type\": \"use_mcp_tool\", \"server_name\": \"Everything\", \
                     \"tool_name\": \"echo\"}\n```";
        let mut failed = record(
            "prompt_0_0",
            0,
            ToolCallStatus::Error,
            serde_json::json!({"content": [{"type": "text", "text": "boom"}], "isError": true}),
        );
        failed.is_error = Some(true);
        assert!(display_round(block, 0, &[failed.clone()], 1000).contains("failed:\n\n```\nboom"));
        failed.status = ToolCallStatus::Cancelled;
        assert!(display_round(block, 0, &[failed], 1000).contains("was not run"));
    }

    #[test]
    fn text_without_blocks_has_no_calls() {
        assert!(found_calls("Paris is the capital.", &Offer::default(), 0).is_empty());
        assert!(found_calls("```rust\nfn main() {}\n```", &Offer::default(), 0).is_empty());
    }
}
