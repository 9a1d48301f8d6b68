//! Reading an Anthropic Messages stream.
//!
//! The answer is a list of content blocks, each opened (`content_block_start`), filled
//! (`content_block_delta`) and closed (`content_block_stop`) by its `index` in the content.
//! Our tool-call indexes count `tool_use` blocks only, so a text block before the first call
//! does not shift them. Input tokens come with `message_start`, output tokens (a running total)
//! and the stop reason with `message_delta`; `message_stop` ends the answer. An `error` event
//! ends it too, classified like an HTTP error of the same type. Thinking blocks and event types
//! this code does not know are skipped, as Anthropic's versioning policy asks of clients.
//!
//! The blocks of a server tool (the tool search tool: a `server_tool_use` whose input streams
//! like a `tool_use`'s, then a `tool_search_tool_result` that comes whole) are not ours to run;
//! each is passed on whole, as the API sent it with its input filled in, when it closes
//! ([`StreamEvent::ProviderBlock`]), so that the conversation can send it back.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::classify::{self, ProviderError};
use crate::error::LlmError;
use crate::sse::{self, Decoder, Flow};
use crate::types::{FinishReason, StreamEvent, Usage};

/// The decoder's state for one answer.
#[derive(Debug, Default)]
pub(crate) struct EventDecoder {
    /// Content block index → our tool-call index, for the open `tool_use` blocks.
    open_calls: HashMap<u64, usize>,
    /// Content block index → the open server-tool blocks, with their input streamed so far.
    open_provider: HashMap<u64, OpenBlock>,
    calls: usize,
    usage: Option<Usage>,
    stop_reason: Option<String>,
    /// The API key, blanked out of in-stream error messages.
    secret: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Event {
    MessageStart {
        message: MessageStart,
    },
    ContentBlockStart {
        index: u64,
        content_block: Value,
    },
    ContentBlockDelta {
        index: u64,
        delta: BlockDelta,
    },
    ContentBlockStop {
        index: u64,
    },
    MessageDelta {
        #[serde(default)]
        delta: MessageDelta,
        #[serde(default)]
        usage: Option<WireUsage>,
    },
    MessageStop,
    Error {
        error: Value,
    },
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
struct MessageStart {
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block {
    Text {
        #[serde(default)]
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        #[serde(default)]
        input: Option<Map<String, Value>>,
    },
    #[serde(other)]
    Other,
}

/// A server-tool block between its start and its stop.
#[derive(Debug)]
struct OpenBlock {
    block: Map<String, Value>,
    input: String,
}

impl OpenBlock {
    /// The block whole: its streamed input, when there was one, replaces the start's.
    fn close(mut self) -> Result<Value, LlmError> {
        if !self.input.trim().is_empty() {
            let input: Value = serde_json::from_str(&self.input).map_err(|e| {
                LlmError::Protocol(format!(
                    "the input of a server tool block is not JSON ({e}): {}",
                    self.input
                ))
            })?;
            self.block.insert("input".into(), input);
        }
        Ok(Value::Object(self.block))
    }
}

/// Whether a content block is one of a server tool's, which the client keeps and sends back
/// rather than runs: the call (`server_tool_use`) and its result (`tool_search_tool_result`,
/// and the other server tools' `*_tool_result`).
fn server_block(block: &Value) -> bool {
    block["type"]
        .as_str()
        .is_some_and(|kind| kind == "server_tool_use" || kind.ends_with("_tool_result"))
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum BlockDelta {
    TextDelta {
        text: String,
    },
    InputJsonDelta {
        partial_json: String,
    },
    #[serde(other)]
    Other,
}

#[derive(Debug, Default, Deserialize)]
struct MessageDelta {
    #[serde(default)]
    stop_reason: Option<String>,
}

/// Usage as Anthropic counts it; cached input counts as input.
#[derive(Debug, Default, Deserialize)]
struct WireUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
}

impl WireUsage {
    fn input(&self) -> Option<u64> {
        let parts = [
            self.input_tokens,
            self.cache_creation_input_tokens,
            self.cache_read_input_tokens,
        ];
        parts
            .iter()
            .any(Option::is_some)
            .then(|| parts.iter().flatten().sum())
    }
}

impl EventDecoder {
    pub(crate) fn new(secret: Option<String>) -> Self {
        Self {
            secret,
            ..Self::default()
        }
    }

    /// Folds a usage report in: later numbers replace earlier ones (they are running totals).
    fn usage(&mut self, usage: &WireUsage) {
        let current = self.usage.get_or_insert_with(Usage::default);
        if let Some(input) = usage.input() {
            current.input_tokens = input;
        }
        if let Some(output) = usage.output_tokens {
            current.output_tokens = output;
        }
    }

    /// A block opens: a server tool's is kept until it closes, text and `tool_use` are passed
    /// on, other kinds are skipped.
    fn block_start(
        &mut self,
        index: u64,
        block: Value,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), LlmError> {
        if server_block(&block) {
            if let Value::Object(block) = block {
                let input = String::new();
                self.open_provider.insert(index, OpenBlock { block, input });
            }
            return Ok(());
        }
        let block: Block = serde_json::from_value(block)
            .map_err(|e| LlmError::Protocol(format!("bad Anthropic content block ({e})")))?;
        match block {
            Block::Text { text } if !text.is_empty() => {
                out.push(StreamEvent::TextDelta { text });
            }
            Block::ToolUse { id, name, input } => {
                let ours = self.calls;
                self.calls += 1;
                self.open_calls.insert(index, ours);
                out.push(StreamEvent::ToolCallStart {
                    index: ours,
                    id,
                    name,
                });
                // The API starts with `input: {}` and streams the input; a proxy that
                // sends it whole here is taken at its word.
                if let Some(input) = input.filter(|i| !i.is_empty()) {
                    out.push(StreamEvent::ToolCallDelta {
                        index: ours,
                        arguments: Value::Object(input).to_string(),
                    });
                }
            }
            Block::Text { .. } | Block::Other => {}
        }
        Ok(())
    }

    fn event(&mut self, event: Event, out: &mut Vec<StreamEvent>) -> Result<Flow, LlmError> {
        match event {
            Event::MessageStart { message } => {
                if let Some(usage) = message.usage {
                    self.usage(&usage);
                }
            }
            Event::ContentBlockStart {
                index,
                content_block,
            } => self.block_start(index, content_block, out)?,
            Event::ContentBlockDelta { index, delta } => match delta {
                BlockDelta::TextDelta { text } if !text.is_empty() => {
                    out.push(StreamEvent::TextDelta { text });
                }
                BlockDelta::InputJsonDelta { partial_json } if !partial_json.is_empty() => {
                    if let Some(open) = self.open_provider.get_mut(&index) {
                        open.input.push_str(&partial_json);
                        return Ok(Flow::More);
                    }
                    let ours = self.open_calls.get(&index).copied().ok_or_else(|| {
                        LlmError::Protocol(format!(
                            "input_json_delta for content block {index}, which is not an open tool_use block"
                        ))
                    })?;
                    out.push(StreamEvent::ToolCallDelta {
                        index: ours,
                        arguments: partial_json,
                    });
                }
                _ => {}
            },
            Event::ContentBlockStop { index } => {
                if let Some(ours) = self.open_calls.remove(&index) {
                    out.push(StreamEvent::ToolCallEnd { index: ours });
                }
                if let Some(open) = self.open_provider.remove(&index) {
                    out.push(StreamEvent::ProviderBlock {
                        block: open.close()?,
                    });
                }
            }
            Event::MessageDelta { delta, usage } => {
                if let Some(reason) = delta.stop_reason {
                    self.stop_reason = Some(reason);
                }
                if let Some(usage) = usage {
                    self.usage(&usage);
                }
            }
            Event::MessageStop => return Ok(Flow::Done),
            Event::Error { error } => {
                let error = ProviderError::from_value(&serde_json::json!({ "error": error }))
                    .unwrap_or_default();
                return Err(classify::classify_in_stream(error, self.secret.as_deref()));
            }
            Event::Other => {}
        }
        Ok(Flow::More)
    }
}

impl Decoder for EventDecoder {
    fn message(
        &mut self,
        _event: Option<&str>,
        data: &str,
        out: &mut Vec<StreamEvent>,
    ) -> Result<Flow, LlmError> {
        // The `type` inside the data names the event as well as the `event:` line does.
        let event: Event = sse::parse("Anthropic", data)?;
        self.event(event, out)
    }

    fn end(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        let reason = self.stop_reason.take().ok_or_else(|| {
            LlmError::Protocol("the stream ended before the model finished its answer".into())
        })?;
        // Blocks left open by a server that skipped `content_block_stop`.
        let mut open: Vec<usize> = self.open_calls.drain().map(|(_, ours)| ours).collect();
        open.sort_unstable();
        out.extend(
            open.into_iter()
                .map(|index| StreamEvent::ToolCallEnd { index }),
        );
        let mut blocks: Vec<(u64, OpenBlock)> = self.open_provider.drain().collect();
        blocks.sort_unstable_by_key(|(index, _)| *index);
        for (_, open) in blocks {
            out.push(StreamEvent::ProviderBlock {
                block: open.close()?,
            });
        }
        if let Some(usage) = self.usage.take() {
            out.push(StreamEvent::Usage { usage });
        }
        out.push(StreamEvent::Finish {
            reason: stop_reason(&reason),
        });
        Ok(())
    }
}

fn stop_reason(reason: &str) -> FinishReason {
    match reason {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "tool_use" => FinishReason::ToolCalls,
        "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
        "refusal" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(messages: &[&str]) -> (Vec<StreamEvent>, Result<(), LlmError>) {
        let mut decoder = EventDecoder::new(None);
        let mut out = Vec::new();
        for data in messages {
            match decoder.message(None, data, &mut out) {
                Ok(Flow::More) => {}
                Ok(Flow::Done) => break,
                Err(error) => return (out, Err(error)),
            }
        }
        let result = decoder.end(&mut out);
        (out, result)
    }

    #[test]
    fn tool_indexes_count_tool_blocks_only() {
        let (events, result) = decode(&[
            r#"{"type":"message_start","message":{"usage":{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":1}}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Sure"}}"#,
            r#"{"type":"content_block_stop","index":1}"#,
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}"#,
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}"#,
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"a\":1}"}}"#,
            r#"{"type":"content_block_stop","index":2}"#,
            r#"{"type":"ping"}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":7}}"#,
            r#"{"type":"message_stop"}"#,
        ]);
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(
            events,
            vec![
                StreamEvent::TextDelta {
                    text: "Sure".into()
                },
                StreamEvent::ToolCallStart {
                    index: 0,
                    id: "toolu_1".into(),
                    name: "f".into()
                },
                StreamEvent::ToolCallDelta {
                    index: 0,
                    arguments: "{\"a\":1}".into()
                },
                StreamEvent::ToolCallEnd { index: 0 },
                StreamEvent::Usage {
                    usage: Usage {
                        input_tokens: 15,
                        output_tokens: 7
                    }
                },
                StreamEvent::Finish {
                    reason: FinishReason::ToolCalls
                },
            ]
        );
    }

    #[test]
    fn stop_reasons_map() {
        assert_eq!(stop_reason("end_turn"), FinishReason::Stop);
        assert_eq!(stop_reason("stop_sequence"), FinishReason::Stop);
        assert_eq!(stop_reason("max_tokens"), FinishReason::Length);
        assert_eq!(stop_reason("refusal"), FinishReason::ContentFilter);
        assert_eq!(
            stop_reason("pause_turn"),
            FinishReason::Other("pause_turn".into())
        );
    }

    #[test]
    fn error_events_and_cut_streams_fail() {
        let (_, result) = decode(&[
            r#"{"type":"message_start","message":{"usage":{"input_tokens":1}}}"#,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ]);
        assert!(matches!(
            result,
            Err(LlmError::Upstream { status: 529, message }) if message == "Overloaded"
        ));
        let (_, result) = decode(&[r#"{"type":"message_start","message":{}}"#]);
        assert!(matches!(result, Err(LlmError::Protocol(_))));
    }

    /// The response of Anthropic's tool search documentation ("Response format"), streamed as
    /// its "Streaming" section shows: the `server_tool_use` opens without its input, which
    /// streams; the result comes whole in its start.
    #[test]
    fn tool_search_blocks_pass_whole_and_in_order() {
        let (events, result) = decode(&[
            r#"{"type":"message_start","message":{"usage":{"input_tokens":50}}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"I'll search for tools to help with the weather information."}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"server_tool_use","id":"srvtoolu_01ABC123","name":"tool_search_tool_regex"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"query\":"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"weather\"}"}}"#,
            r#"{"type":"content_block_stop","index":1}"#,
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_01ABC123","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"get_weather"}]}}}"#,
            r#"{"type":"content_block_stop","index":2}"#,
            r#"{"type":"content_block_start","index":3,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"I found a weather tool."}}"#,
            r#"{"type":"content_block_stop","index":3}"#,
            r#"{"type":"content_block_start","index":4,"content_block":{"type":"tool_use","id":"toolu_01XYZ789","name":"get_weather","input":{}}}"#,
            r#"{"type":"content_block_delta","index":4,"delta":{"type":"input_json_delta","partial_json":"{\"location\": \"San Francisco\", \"unit\": \"fahrenheit\"}"}}"#,
            r#"{"type":"content_block_stop","index":4}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":30}}"#,
            r#"{"type":"message_stop"}"#,
        ]);
        assert!(result.is_ok(), "{result:?}");
        let search = serde_json::json!({
            "type": "server_tool_use",
            "id": "srvtoolu_01ABC123",
            "name": "tool_search_tool_regex",
            "input": {"query": "weather"},
        });
        let found = serde_json::json!({
            "type": "tool_search_tool_result",
            "tool_use_id": "srvtoolu_01ABC123",
            "content": {
                "type": "tool_search_tool_search_result",
                "tool_references": [{"type": "tool_reference", "tool_name": "get_weather"}],
            },
        });
        let kinds: Vec<&str> = events
            .iter()
            .map(|e| match e {
                StreamEvent::TextDelta { .. } => "text",
                StreamEvent::ProviderBlock { .. } => "provider",
                StreamEvent::ToolCallStart { .. } => "call",
                StreamEvent::ToolCallDelta { .. } => "arguments",
                StreamEvent::ToolCallEnd { .. } => "end",
                StreamEvent::Usage { .. } => "usage",
                StreamEvent::Finish { .. } => "finish",
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "text",
                "provider",
                "provider",
                "text",
                "call",
                "arguments",
                "end",
                "usage",
                "finish"
            ]
        );
        let mut assembler = crate::Assembler::default();
        for event in events {
            assembler.push(event);
        }
        let done = assembler.finish().expect("a whole answer");
        assert_eq!(done.provider_blocks, vec![search, found]);
        assert_eq!(done.tool_calls.len(), 1);
        assert_eq!(done.tool_calls[0].name, "get_weather");
        assert_eq!(done.tool_calls[0].arguments["location"], "San Francisco");
        assert_eq!(
            done.text,
            "I'll search for tools to help with the weather information.I found a weather tool."
        );
    }

    /// As the API streams it in fact: the start carries `input: {}`, and the input opens with
    /// an empty fragment. Fields this code does not know are kept.
    #[test]
    fn a_server_tool_use_keeps_unknown_fields_and_an_empty_start() {
        let (events, result) = decode(&[
            r#"{"type":"message_start","message":{}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_bm25","input":{},"caller":{"type":"direct"}}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\":\"weather forecast\"}"}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"}}"#,
        ]);
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(
            events[0],
            StreamEvent::ProviderBlock {
                block: serde_json::json!({
                    "type": "server_tool_use",
                    "id": "srvtoolu_1",
                    "name": "tool_search_tool_bm25",
                    "input": {"query": "weather forecast"},
                    "caller": {"type": "direct"},
                })
            }
        );
    }

    #[test]
    fn a_server_tool_input_that_is_not_json_fails() {
        let (_, result) = decode(&[
            r#"{"type":"message_start","message":{}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_bm25","input":{}}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\":"}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
        ]);
        assert!(matches!(result, Err(LlmError::Protocol(_))), "{result:?}");
    }
}
