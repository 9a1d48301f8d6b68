//! Fuzzing the two stream decoders with proptest, bounded for CI (256 cases; run
//! longer with `PROPTEST_CASES=100000 cargo test -p switchboard-llm fuzz`): whatever messages
//! an endpoint streams (JSON shaped like OpenAI chunks or Anthropic events, broken JSON, text),
//! decoding never panics, every error is a typed one, and nothing grows past what was sent. A
//! failing input is kept by proptest in `proptest-regressions/` and replayed first.

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::anthropic::decode::EventDecoder;
use crate::openai::decode::ChunkDecoder;
use crate::sse::{Decoder, Flow};
use crate::types::StreamEvent;

/// The field names both wire formats use, so generated objects reach the decoders' branches.
const KEYS: &[&str] = &[
    "choices",
    "delta",
    "content",
    "role",
    "tool_calls",
    "index",
    "id",
    "type",
    "function",
    "name",
    "arguments",
    "finish_reason",
    "usage",
    "prompt_tokens",
    "completion_tokens",
    "message",
    "content_block",
    "text",
    "partial_json",
    "input",
    "stop_reason",
    "error",
    "input_tokens",
    "output_tokens",
    "text_delta",
    "input_json_delta",
    "tool_use",
    "message_start",
    "content_block_start",
    "content_block_delta",
    "message_delta",
    "message_stop",
];

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-2i64..4).prop_map(Value::from),
        prop::sample::select(KEYS).prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..6).prop_map(|fields| {
                Value::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

/// One streamed message: an `event:` name (Anthropic's, or none) and its data.
fn message() -> impl Strategy<Value = (Option<String>, String)> {
    let data = prop_oneof![
        4 => value().prop_map(|v| v.to_string()),
        1 => Just("[DONE]".to_owned()),
        1 => ".{0,40}",
        1 => Just(json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
            "function": {"arguments": "{\"a\":"}}]}}]}).to_string()),
    ];
    let event = prop_oneof![
        Just(None),
        prop::sample::select(KEYS).prop_map(|k| Some(k.to_owned())),
        Just(Some("ping".to_owned())),
    ];
    (event, data)
}

fn drive(mut decoder: impl Decoder, messages: &[(Option<String>, String)]) -> Vec<StreamEvent> {
    let mut out = Vec::new();
    for (event, data) in messages {
        match decoder.message(event.as_deref(), data, &mut out) {
            Ok(Flow::More) => {}
            Ok(Flow::Done) | Err(_) => return out,
        }
    }
    let _ = decoder.end(&mut out);
    out
}

/// The text the events carry is text that was sent.
fn carried(events: &[StreamEvent]) -> usize {
    events
        .iter()
        .map(|event| match event {
            StreamEvent::TextDelta { text } => text.len(),
            other => format!("{other:?}").len().min(64),
        })
        .sum()
}

proptest! {
    #[test]
    fn openai_chunks_of_any_shape_never_panic(
        messages in prop::collection::vec(message(), 0..24),
    ) {
        let sent: usize = messages.iter().map(|(_, d)| d.len() + 64).sum();
        let events = drive(ChunkDecoder::new(Some("sk-secret".into())), &messages);
        prop_assert!(carried(&events) <= sent + 64 * 4);
    }

    #[test]
    fn anthropic_events_of_any_shape_never_panic(
        messages in prop::collection::vec(message(), 0..24),
    ) {
        let sent: usize = messages.iter().map(|(_, d)| d.len() + 64).sum();
        let events = drive(EventDecoder::new(Some("sk-secret".into())), &messages);
        prop_assert!(carried(&events) <= sent + 64 * 4);
    }
}
