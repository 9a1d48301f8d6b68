//! Folding streamed events into a whole answer.

use serde_json::{Map, Value};

use crate::error::LlmError;
use crate::types::{FinishReason, StreamEvent, ToolCall, Usage};

/// A whole answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    /// The provider's own blocks ([`crate::Part::Provider`]), in the order they came: to be
    /// sent back with the answer's text and calls.
    pub provider_blocks: Vec<Value>,
    pub finish: FinishReason,
    pub usage: Usage,
}

/// Collects [`StreamEvent`]s; [`Assembler::finish`] gives the [`Completion`].
#[derive(Debug, Default)]
pub struct Assembler {
    text: String,
    calls: Vec<PartialCall>,
    provider_blocks: Vec<Value>,
    finish: Option<FinishReason>,
    usage: Usage,
}

#[derive(Debug)]
struct PartialCall {
    index: usize,
    id: String,
    name: String,
    arguments: String,
}

impl Assembler {
    pub fn push(&mut self, event: StreamEvent) {
        match event {
            StreamEvent::TextDelta { text } => self.text.push_str(&text),
            StreamEvent::ToolCallStart { index, id, name } => self.calls.push(PartialCall {
                index,
                id,
                name,
                arguments: String::new(),
            }),
            StreamEvent::ToolCallDelta { index, arguments } => {
                if let Some(call) = self.calls.iter_mut().find(|c| c.index == index) {
                    call.arguments.push_str(&arguments);
                }
            }
            StreamEvent::ToolCallEnd { .. } => {}
            StreamEvent::ProviderBlock { block } => self.provider_blocks.push(block),
            StreamEvent::Usage { usage } => {
                self.usage.input_tokens += usage.input_tokens;
                self.usage.output_tokens += usage.output_tokens;
            }
            StreamEvent::Finish { reason } => self.finish = Some(reason),
        }
    }

    /// The text so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The answer; a stream that ended without `Finish` was cut off.
    pub fn finish(self) -> Result<Completion, LlmError> {
        let finish = self
            .finish
            .ok_or_else(|| LlmError::Protocol("the stream ended before the answer did".into()))?;
        let tool_calls = self
            .calls
            .into_iter()
            .map(|call| {
                let (arguments, arguments_error) = parse_arguments(&call.arguments);
                ToolCall {
                    id: call.id,
                    name: call.name,
                    arguments,
                    arguments_error,
                }
            })
            .collect();
        Ok(Completion {
            text: self.text,
            tool_calls,
            provider_blocks: self.provider_blocks,
            finish,
            usage: self.usage,
        })
    }
}

/// Arguments as a JSON object; empty text means no arguments. Anything else is kept as an
/// error for the model to correct.
fn parse_arguments(raw: &str) -> (Map<String, Value>, Option<String>) {
    if raw.trim().is_empty() {
        return (Map::new(), None);
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Object(map)) => (map, None),
        Ok(other) => (
            Map::new(),
            Some(format!("arguments must be a JSON object, got: {other}")),
        ),
        Err(e) => (
            Map::new(),
            Some(format!("arguments are not valid JSON ({e}): {raw}")),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleaved_deltas_land_in_their_calls() {
        let mut a = Assembler::default();
        for event in [
            StreamEvent::TextDelta {
                text: "Let me ".into(),
            },
            StreamEvent::TextDelta {
                text: "check.".into(),
            },
            StreamEvent::ToolCallStart {
                index: 0,
                id: "c0".into(),
                name: "a".into(),
            },
            StreamEvent::ToolCallStart {
                index: 1,
                id: "c1".into(),
                name: "b".into(),
            },
            StreamEvent::ToolCallDelta {
                index: 1,
                arguments: "{\"y\":".into(),
            },
            StreamEvent::ToolCallDelta {
                index: 0,
                arguments: "{\"x\":1}".into(),
            },
            StreamEvent::ToolCallDelta {
                index: 1,
                arguments: "2}".into(),
            },
            StreamEvent::Finish {
                reason: FinishReason::ToolCalls,
            },
        ] {
            a.push(event);
        }
        let done = a.finish().unwrap();
        assert_eq!(done.text, "Let me check.");
        assert_eq!(done.tool_calls[0].arguments["x"], 1);
        assert_eq!(done.tool_calls[1].arguments["y"], 2);
    }

    #[test]
    fn bad_arguments_are_kept_as_an_error() {
        let (args, error) = parse_arguments("{not json");
        assert!(args.is_empty());
        assert!(error.unwrap().contains("{not json"));
        assert_eq!(parse_arguments("").1, None);
        assert!(parse_arguments("[1]").1.is_some());
    }

    #[test]
    fn a_stream_without_finish_is_an_error() {
        assert!(Assembler::default().finish().is_err());
    }
}
