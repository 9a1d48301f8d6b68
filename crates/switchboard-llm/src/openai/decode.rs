//! Reading an OpenAI chat-completions stream (`chat.completion.chunk` messages, then
//! `data: [DONE]`).
//!
//! Tool calls arrive in pieces under `choices[0].delta.tool_calls[i]`: the first piece of a call
//! has its `index`, `id` and `function.name`, later pieces only the `index` and a fragment of
//! `function.arguments`. Compatible servers bend this in small ways the decoder tolerates:
//! a call may come whole in one piece (Ollama), several calls may reuse `index` 0 with new ids,
//! the name may come after the first piece, arguments may be a JSON object instead of text.
//!
//! `Finish` must come last, but OpenAI sends `finish_reason` before the usage chunk, and some
//! servers repeat a running usage total in every chunk; so both are held, and the decoder emits
//! the last usage seen and then `Finish` when the stream ends. Some servers answer tool calls
//! with `finish_reason: "stop"`; an answer with tool calls is reported as `ToolCalls`.

use serde::Deserialize;
use serde_json::Value;

use crate::classify::{self, ProviderError};
use crate::error::LlmError;
use crate::sse::{self, Decoder, Flow};
use crate::types::{FinishReason, StreamEvent, Usage};

/// The decoder's state for one answer.
#[derive(Debug, Default)]
pub(crate) struct ChunkDecoder {
    calls: Vec<Call>,
    /// Set once `finish_reason` has arrived (and the calls were ended).
    finish: Option<FinishReason>,
    usage: Option<Usage>,
    /// `data: [DONE]` arrived.
    done: bool,
    /// The API key, blanked out of in-stream error messages.
    secret: Option<String>,
}

#[derive(Debug)]
struct Call {
    /// The server's `index` for this call, when it sent one.
    wire_index: Option<u64>,
    id: String,
    /// `None` until the name arrived; `ToolCallStart` waits for it.
    name: Option<String>,
    /// Argument text that arrived before the name.
    pending: String,
    ended: bool,
}

#[derive(Debug, Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct Choice {
    #[serde(default)]
    index: Option<u64>,
    #[serde(default)]
    delta: Option<Delta>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Delta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<ToolCallDelta>>,
}

#[derive(Debug, Deserialize)]
struct ToolCallDelta {
    #[serde(default)]
    index: Option<u64>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<FunctionDelta>,
}

#[derive(Debug, Deserialize)]
struct FunctionDelta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
}

impl ChunkDecoder {
    pub(crate) fn new(secret: Option<String>) -> Self {
        Self {
            secret,
            ..Self::default()
        }
    }

    fn chunk(&mut self, chunk: Chunk, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        if let Some(error) = chunk.error {
            let error = ProviderError::from_value(&serde_json::json!({ "error": error }))
                .unwrap_or_else(|| ProviderError {
                    message: "the provider reported an error".into(),
                    ..ProviderError::default()
                });
            return Err(classify::classify_in_stream(error, self.secret.as_deref()));
        }
        if let Some(usage) = chunk.usage {
            self.usage = Some(Usage {
                input_tokens: usage.prompt_tokens.unwrap_or(0),
                output_tokens: usage.completion_tokens.unwrap_or(0),
            });
        }
        // One answer (n = 1): choice 0, or a choice without an index.
        for choice in chunk
            .choices
            .into_iter()
            .filter(|c| c.index.unwrap_or(0) == 0)
        {
            if let Some(delta) = choice.delta {
                if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
                    out.push(StreamEvent::TextDelta { text });
                }
                for call in delta.tool_calls.unwrap_or_default() {
                    self.tool_call(call, out);
                }
            }
            if let Some(reason) = choice.finish_reason {
                self.end_calls(out)?;
                self.finish = Some(finish_reason(&reason));
            }
        }
        Ok(())
    }

    /// Which of our calls a piece belongs to: the open call with its index (or, without an
    /// index, the last call) unless the piece brings a different id, which starts a new call.
    fn position(&self, piece: &ToolCallDelta) -> Option<usize> {
        let candidate = match piece.index {
            Some(index) => self
                .calls
                .iter()
                .rposition(|c| c.wire_index == Some(index) && !c.ended),
            None => self.calls.len().checked_sub(1),
        }?;
        match piece.id.as_deref() {
            Some(id) if !id.is_empty() && id != self.calls[candidate].id => None,
            _ => Some(candidate),
        }
    }

    fn tool_call(&mut self, piece: ToolCallDelta, out: &mut Vec<StreamEvent>) {
        let position = match self.position(&piece) {
            Some(position) => position,
            None => {
                let position = self.calls.len();
                self.calls.push(Call {
                    wire_index: piece.index,
                    id: piece
                        .id
                        .clone()
                        .filter(|id| !id.is_empty())
                        .unwrap_or_else(|| format!("call_{position}")),
                    name: None,
                    pending: String::new(),
                    ended: false,
                });
                position
            }
        };
        let call = &mut self.calls[position];
        let function = piece.function.unwrap_or(FunctionDelta {
            name: None,
            arguments: None,
        });
        let arguments = match function.arguments {
            Some(Value::String(text)) => text,
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        if call.name.is_none() {
            match function.name.filter(|n| !n.is_empty()) {
                Some(name) => {
                    out.push(StreamEvent::ToolCallStart {
                        index: position,
                        id: call.id.clone(),
                        name: name.clone(),
                    });
                    call.name = Some(name);
                    let pending = std::mem::take(&mut call.pending);
                    if !pending.is_empty() {
                        out.push(StreamEvent::ToolCallDelta {
                            index: position,
                            arguments: pending,
                        });
                    }
                }
                None => {
                    call.pending.push_str(&arguments);
                    return;
                }
            }
        }
        if !arguments.is_empty() {
            out.push(StreamEvent::ToolCallDelta {
                index: position,
                arguments,
            });
        }
    }

    fn end_calls(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        for (index, call) in self.calls.iter_mut().enumerate() {
            if call.ended {
                continue;
            }
            if call.name.is_none() {
                return Err(LlmError::Protocol(format!(
                    "tool call {} ended without a function name",
                    call.id
                )));
            }
            call.ended = true;
            out.push(StreamEvent::ToolCallEnd { index });
        }
        Ok(())
    }
}

impl Decoder for ChunkDecoder {
    fn message(
        &mut self,
        _event: Option<&str>,
        data: &str,
        out: &mut Vec<StreamEvent>,
    ) -> Result<Flow, LlmError> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(Flow::Done);
        }
        let chunk: Chunk = sse::parse("OpenAI", data)?;
        self.chunk(chunk, out)?;
        Ok(Flow::More)
    }

    fn end(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        let finish = match self.finish.take() {
            Some(finish) => finish,
            // `[DONE]` without a finish reason: the answer is complete all the same.
            None if self.done => FinishReason::Stop,
            None => {
                return Err(LlmError::Protocol(
                    "the stream ended before the model finished its answer".into(),
                ));
            }
        };
        self.end_calls(out)?;
        if let Some(usage) = self.usage.take() {
            out.push(StreamEvent::Usage { usage });
        }
        let finish = match finish {
            FinishReason::Stop if !self.calls.is_empty() => FinishReason::ToolCalls,
            other => other,
        };
        out.push(StreamEvent::Finish { reason: finish });
        Ok(())
    }
}

fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "stop" => FinishReason::Stop,
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "length" => FinishReason::Length,
        "content_filter" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assemble::Assembler;

    fn decode(messages: &[&str]) -> (Vec<StreamEvent>, Result<(), LlmError>) {
        let mut decoder = ChunkDecoder::new(Some("sk-key".into()));
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
    fn text_usage_and_finish_come_in_order() {
        let (events, result) = decode(&[
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}"#,
            "[DONE]",
        ]);
        assert!(result.is_ok());
        assert_eq!(
            events,
            vec![
                StreamEvent::TextDelta { text: "Hel".into() },
                StreamEvent::TextDelta { text: "lo".into() },
                StreamEvent::Usage {
                    usage: Usage {
                        input_tokens: 9,
                        output_tokens: 2
                    }
                },
                StreamEvent::Finish {
                    reason: FinishReason::Stop
                },
            ]
        );
    }

    #[test]
    fn calls_sharing_index_zero_with_new_ids_are_separate() {
        let (events, result) = decode(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"x","arguments":{"k":1}}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"y","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#,
        ]);
        assert!(result.is_ok());
        let mut assembler = Assembler::default();
        events.into_iter().for_each(|e| assembler.push(e));
        let done = assembler.finish().map_err(|e| e.to_string());
        let done = done.as_ref().map_err(String::as_str);
        assert_eq!(done.map(|d| d.finish.clone()), Ok(FinishReason::ToolCalls));
        assert_eq!(done.map(|d| d.tool_calls.len()), Ok(2));
        assert_eq!(
            done.map(|d| d.tool_calls[0].arguments["k"].clone()),
            Ok(1.into())
        );
        assert_eq!(done.map(|d| d.tool_calls[1].name.as_str()), Ok("y"));
    }

    #[test]
    fn arguments_before_the_name_are_held() {
        let (events, result) = decode(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"arguments":"{\"k\""}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"x","arguments":":1}"}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
            "[DONE]",
        ]);
        assert!(result.is_ok());
        assert_eq!(
            events[..3],
            [
                StreamEvent::ToolCallStart {
                    index: 0,
                    id: "a".into(),
                    name: "x".into()
                },
                StreamEvent::ToolCallDelta {
                    index: 0,
                    arguments: "{\"k\"".into()
                },
                StreamEvent::ToolCallDelta {
                    index: 0,
                    arguments: ":1}".into()
                },
            ]
        );
        assert_eq!(events[3], StreamEvent::ToolCallEnd { index: 0 });
    }

    #[test]
    fn finish_reasons_map() {
        assert_eq!(finish_reason("length"), FinishReason::Length);
        assert_eq!(finish_reason("content_filter"), FinishReason::ContentFilter);
        assert_eq!(finish_reason("tool_calls"), FinishReason::ToolCalls);
        assert_eq!(finish_reason("eos"), FinishReason::Other("eos".into()));
    }

    #[test]
    fn a_cut_stream_and_an_error_chunk_are_errors() {
        let (_, result) = decode(&[r#"{"choices":[{"delta":{"content":"Hi"}}]}"#]);
        assert!(matches!(result, Err(LlmError::Protocol(_))));
        let (_, result) =
            decode(&[r#"{"error":{"message":"overloaded, key sk-key","type":"server_error"}}"#]);
        match result {
            Err(LlmError::Upstream { message, .. }) => assert!(!message.contains("sk-key")),
            other => panic!("expected Upstream, got {other:?}"),
        }
        let (_, result) = decode(&["not json"]);
        assert!(matches!(result, Err(LlmError::Protocol(_))));
    }
}
