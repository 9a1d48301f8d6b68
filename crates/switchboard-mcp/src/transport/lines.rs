//! Decoding the lines a stdio server writes, with a direct path for a tool's answer.
//!
//! rmcp decodes every message as a `JsonRpcMessage` whose result is `ServerResult`, an
//! untagged union of twenty result types tried in order. A `CallToolResult` is the sixteenth,
//! so every tool answer was parsed fifteen times in vain first, each failure with a formatted
//! error: a fifth of the instructions of a call through the proxy. [`decode`]
//! parses a response whose result holds only the fields of a `CallToolResult` as one,
//! directly, with rmcp's own types (so the same checks apply); every other line is decoded
//! as rmcp decodes it. The direct path gives what rmcp gives: of the result types before
//! `CallToolResult` in the union, only `SubscriptionsListenResult` has all its required
//! fields among those (`resultType` and `_meta`), so a result with both goes the long way;
//! no other can take an object with only those fields, which the tests check against rmcp
//! itself.

use std::borrow::Cow;
use std::fmt;

use rmcp::model::{
    CallToolResult, JsonRpcMessage, JsonRpcResponse, JsonRpcVersion2_0, RequestId,
    ServerJsonRpcMessage, ServerResult,
};
use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

/// The fields of a `CallToolResult` on the wire.
const TOOL_ANSWER_FIELDS: [&str; 5] = [
    "content",
    "structuredContent",
    "isError",
    "_meta",
    "resultType",
];

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// What one line from the server is.
#[derive(Debug)]
pub(crate) enum Decoded {
    Message(ServerJsonRpcMessage),
    /// An answer to one of our requests that does not parse (invalid UTF-8, nesting deeper
    /// than the parser goes): the request gets this error instead of waiting for its timeout.
    Unreadable(ServerJsonRpcMessage),
    /// Nothing to act on: an empty line, text that is not JSON (answering it could start an
    /// echo of errors with a confused peer), or a notification that cannot be read (a
    /// notification is never answered).
    Skip,
    /// JSON that is not a message we can read: the server is told `Invalid Request`.
    Invalid(serde_json::Error),
}

/// Decodes one line (its newline removed).
pub(crate) fn decode(line: &[u8]) -> Decoded {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(UTF8_BOM).unwrap_or(line);
    if line.is_empty() {
        return Decoded::Skip;
    }
    // The 2025-11-25 tasks dialect, rewritten into what rmcp's types keep.
    let legacy = super::legacy_tasks::rewritten(line);
    let line = legacy.as_deref().unwrap_or(line);
    if let Some(answer) = tool_answer(line) {
        return Decoded::Message(answer);
    }
    match serde_json::from_slice::<ServerJsonRpcMessage>(line) {
        Ok(message) => Decoded::Message(message),
        Err(error) if error.is_syntax() || error.is_eof() => {
            match super::answer_id::answer_id(line) {
                Some(id) => {
                    tracing::warn!(%error, "an answer from the server cannot be read");
                    Decoded::Unreadable(unreadable(
                        id,
                        &format!("the server's answer cannot be read: {error}"),
                    ))
                }
                None => {
                    tracing::debug!(%error, "ignoring a line from the server that is not JSON");
                    Decoded::Skip
                }
            }
        }
        Err(_) if is_notification(line) => {
            tracing::debug!("ignoring a notification from the server that cannot be read");
            Decoded::Skip
        }
        Err(error) => match super::answer_id::answer_id(line) {
            Some(id) => Decoded::Unreadable(unreadable(
                id,
                &format!("the server's answer is not a valid MCP result: {error}"),
            )),
            None => Decoded::Invalid(error),
        },
    }
}

/// The error that ends request `id` when its answer could not be taken (`reason` says why).
pub(crate) fn unreadable(id: RequestId, reason: &str) -> ServerJsonRpcMessage {
    JsonRpcMessage::error(
        rmcp::model::ErrorData::internal_error(reason.to_owned(), None),
        Some(id),
    )
}

/// The line as a response to a tool call, when it is one whose result has only a
/// `CallToolResult`'s fields and reads as one.
fn tool_answer(line: &[u8]) -> Option<ServerJsonRpcMessage> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Response<'a> {
        jsonrpc: JsonRpcVersion2_0,
        id: RequestId,
        #[serde(borrow)]
        result: &'a RawValue,
    }
    let response: Response<'_> = serde_json::from_slice(line).ok()?;
    let fields: Fields = serde_json::from_str(response.result.get()).ok()?;
    if !fields.only_tool_answer || (fields.meta && fields.result_type) {
        return None;
    }
    let result: CallToolResult = serde_json::from_str(response.result.get()).ok()?;
    Some(JsonRpcMessage::Response(JsonRpcResponse {
        jsonrpc: response.jsonrpc,
        id: response.id,
        result: ServerResult::CallToolResult(result),
    }))
}

/// Which fields an object has, as far as the direct path cares (values are skipped, not
/// built).
#[derive(Default)]
struct Fields {
    /// Every field is one of [`TOOL_ANSWER_FIELDS`].
    only_tool_answer: bool,
    meta: bool,
    result_type: bool,
}

impl<'de> Deserialize<'de> for Fields {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(FieldsVisitor)
    }
}

struct FieldsVisitor;

impl<'de> Visitor<'de> for FieldsVisitor {
    type Value = Fields;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields, A::Error> {
        let mut fields = Fields {
            only_tool_answer: true,
            ..Fields::default()
        };
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            fields.only_tool_answer &= TOOL_ANSWER_FIELDS.contains(&key.as_ref());
            fields.meta |= key == "_meta";
            fields.result_type |= key == "resultType";
            map.next_value::<IgnoredAny>()?;
        }
        Ok(fields)
    }
}

/// Whether the line is a JSON object with a `method` and no `id`.
fn is_notification(line: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Shape {
        method: Option<IgnoredAny>,
        id: Option<IgnoredAny>,
    }
    serde_json::from_slice::<Shape>(line)
        .is_ok_and(|shape| shape.method.is_some() && shape.id.is_none())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::*;

    /// What rmcp makes of `line`.
    fn by_rmcp(line: &str) -> Option<Value> {
        serde_json::from_str::<ServerJsonRpcMessage>(line)
            .ok()
            .map(|message| serde_json::to_value(message).unwrap())
    }

    fn by_us(line: &str) -> Option<Value> {
        match decode(line.as_bytes()) {
            Decoded::Message(message) => Some(serde_json::to_value(message).unwrap()),
            _ => None,
        }
    }

    fn is_tool_answer(line: &str) -> bool {
        matches!(
            decode(line.as_bytes()),
            Decoded::Message(JsonRpcMessage::Response(JsonRpcResponse {
                result: ServerResult::CallToolResult(_),
                ..
            }))
        )
    }

    #[test]
    fn every_combination_of_a_tool_answers_fields_reads_as_rmcp_reads_it() {
        let values = [
            ("content", json!([{"type": "text", "text": "hi"}])),
            ("structuredContent", json!({"n": 1})),
            ("isError", json!(true)),
            (
                "_meta",
                json!({"k": "v", "io.modelcontextprotocol/subscriptionId": 1}),
            ),
            ("resultType", json!("complete")),
        ];
        for mask in 0u32..32 {
            let mut result = serde_json::Map::new();
            for (bit, (key, value)) in values.iter().enumerate() {
                if mask & (1 << bit) != 0 {
                    result.insert((*key).to_owned(), value.clone());
                }
            }
            let line = json!({"jsonrpc": "2.0", "id": 7, "result": result}).to_string();
            let rmcp = by_rmcp(&line);
            assert_eq!(by_us(&line), rmcp, "{line}");
            // rmcp reads each as a tool's answer (or not at all), so the direct path takes
            // nothing another result type would have.
            if let Ok(JsonRpcMessage::Response(response)) =
                serde_json::from_str::<ServerJsonRpcMessage>(&line)
                && mask & 1 != 0
                && mask & 0b11000 != 0b11000
            {
                assert!(
                    matches!(response.result, ServerResult::CallToolResult(_)),
                    "{line}"
                );
                assert!(is_tool_answer(&line), "{line}");
            }
        }
    }

    #[test]
    fn other_lines_are_decoded_by_rmcp_or_skipped_or_refused() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#,
            r#"{"jsonrpc":"2.0","id":"a","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"tools":[]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}]},"extra":1}"#,
        ] {
            assert_eq!(by_us(line), by_rmcp(line), "{line}");
        }
        // Not a tool's answer: another version, or content that is not content.
        assert!(!is_tool_answer(
            r#"{"jsonrpc":"1.0","id":1,"result":{"content":[]}}"#
        ));
        assert!(!is_tool_answer(
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":"x"}}"#
        ));
        assert!(matches!(decode(b"not json"), Decoded::Skip));
        assert!(matches!(decode(b"\r"), Decoded::Skip));
        assert!(matches!(
            decode(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":1}"#),
            Decoded::Skip
        ));
        assert!(matches!(decode(br#"{"id":1,"x":2}"#), Decoded::Invalid(_)));
        // A subscription's acknowledgement has a tool answer's fields only, and is not one.
        let listen = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":1},"content":[]}}"#;
        assert_eq!(by_us(listen), by_rmcp(listen));
        assert!(!is_tool_answer(listen));
        let with_bom = "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\r";
        assert!(is_tool_answer(with_bom));
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            ".{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[a-z]{1,6}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    fn content_block() -> impl Strategy<Value = Value> {
        prop_oneof![
            ".{0,24}".prop_map(|text| json!({"type": "text", "text": text})),
            "[a-zA-Z0-9+/]{0,16}"
                .prop_map(|data| json!({"type": "image", "data": data, "mimeType": "image/png"})),
            json_value().prop_map(|anything| json!({"type": "text", "text": anything})),
            json_value(),
        ]
    }

    proptest! {
        /// Whatever a server answers, the direct path and rmcp read it alike.
        #[test]
        fn any_answer_reads_as_rmcp_reads_it(
            content in prop::option::of(prop::collection::vec(content_block(), 0..4)),
            structured in prop::option::of(json_value()),
            is_error in prop::option::of(json_value()),
            meta in prop::option::of(prop_oneof![
                json_value(),
                json_value().prop_map(|id| json!({"io.modelcontextprotocol/subscriptionId": id})),
            ]),
            result_type in prop::option::of(prop_oneof![
                Just(json!("complete")),
                Just(json!("input_required")),
                json_value(),
            ]),
            id in prop_oneof![any::<i64>().prop_map(Value::from), "[a-z0-9]{1,8}".prop_map(Value::String)],
        ) {
            let mut result = serde_json::Map::new();
            if let Some(content) = content {
                result.insert("content".into(), Value::Array(content));
            }
            if let Some(structured) = structured {
                result.insert("structuredContent".into(), structured);
            }
            if let Some(is_error) = is_error {
                result.insert("isError".into(), is_error);
            }
            if let Some(meta) = meta {
                result.insert("_meta".into(), meta);
            }
            if let Some(result_type) = result_type {
                result.insert("resultType".into(), result_type);
            }
            let line = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
            prop_assert_eq!(by_us(&line), by_rmcp(&line), "{}", line);
        }
    }
}
