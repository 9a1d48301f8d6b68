//! MCP tool results as the model sees them.
//!
//! Faithful, not flattened: text stays text; images become image parts (the provider adapter
//! sends them as its image blocks where it can); an embedded resource gives its text, or a
//! note naming it when it is binary; `structuredContent` is given as JSON when the text does
//! not already carry it; `isError` makes an error result the model can react to. Text beyond
//! a configurable budget is cut with a note saying so, so one huge result cannot blow the
//! model's context.
//!
//! The input is the result's JSON (the MCP wire form, which is also what the store keeps), so a
//! stored conversation replays to the model exactly as it first went.

use serde_json::Value;
use switchboard_core::ErrorCode;
use switchboard_llm::ResultPart;

/// What the model gets for one call.
#[derive(Debug, Clone, PartialEq)]
pub struct MappedResult {
    pub parts: Vec<ResultPart>,
    pub is_error: bool,
}

impl MappedResult {
    /// An error the agent itself reports (unknown tool, invalid arguments, rejection).
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            parts: vec![ResultPart::Text(text.into())],
            is_error: true,
        }
    }

    /// All text parts joined, images named.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for part in &self.parts {
            if !out.is_empty() {
                out.push('\n');
            }
            match part {
                ResultPart::Text(text) => out.push_str(text),
                ResultPart::Image { media_type, .. } => {
                    out.push_str(&format!("[image: {media_type}]"));
                }
            }
        }
        out
    }
}

/// Maps a `CallToolResult` in its JSON form, keeping at most `max_chars` characters of text.
pub fn map_result(result: &Value, max_chars: usize) -> MappedResult {
    let mut parts = Vec::new();
    let mut texts_seen = Vec::new();
    for item in result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let kind = item.get("type").and_then(Value::as_str).unwrap_or_default();
        let str_of = |key: &str| item.get(key).and_then(Value::as_str).unwrap_or_default();
        match kind {
            "text" => {
                texts_seen.push(str_of("text").to_owned());
                parts.push(ResultPart::Text(str_of("text").to_owned()));
            }
            "image" => parts.push(ResultPart::Image {
                media_type: str_of("mimeType").to_owned(),
                data: str_of("data").to_owned(),
            }),
            "audio" => parts.push(ResultPart::Text(format!(
                "[audio ({}) that cannot be shown to the model]",
                str_of("mimeType")
            ))),
            "resource" => parts.push(ResultPart::Text(resource_text(item.get("resource")))),
            "resource_link" => parts.push(ResultPart::Text(format!(
                "[resource link: {}{}]",
                str_of("uri"),
                match str_of("name") {
                    "" => String::new(),
                    name => format!(" ({name})"),
                }
            ))),
            other => parts.push(ResultPart::Text(format!("[{other} content]"))),
        }
    }
    if let Some(structured) = result.get("structuredContent").filter(|v| !v.is_null()) {
        let json = structured.to_string();
        let already_there = texts_seen.iter().any(|text| {
            serde_json::from_str::<Value>(text).is_ok_and(|parsed| &parsed == structured)
        });
        if !already_there {
            parts.push(ResultPart::Text(json));
        }
    }
    let is_error = result
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    MappedResult {
        parts: truncate(parts, max_chars),
        is_error,
    }
}

/// The result kept in a tool call record: an MCP result, or `{"error": {code, message}}` for a
/// call that failed before or instead of reaching its server.
pub fn map_stored(response: Option<&Value>, is_error: bool, max_chars: usize) -> MappedResult {
    match response {
        Some(Value::Object(map)) if map.contains_key("error") && !map.contains_key("content") => {
            let error = &map["error"];
            let code = error.get("code").and_then(Value::as_str).unwrap_or("ERROR");
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("failed");
            MappedResult::error(format!("{code}: {message}"))
        }
        Some(result) => {
            let mut mapped = map_result(result, max_chars);
            mapped.is_error |= is_error;
            mapped
        }
        None => MappedResult::error("the call has no result"),
    }
}

/// The stored form of an error the agent reports for a call.
pub fn error_response(code: ErrorCode, message: &str) -> Value {
    serde_json::json!({"error": {"code": code.as_str(), "message": message}})
}

fn resource_text(resource: Option<&Value>) -> String {
    let Some(resource) = resource else {
        return "[empty resource]".into();
    };
    let uri = resource.get("uri").and_then(Value::as_str).unwrap_or("?");
    match resource.get("text").and_then(Value::as_str) {
        Some(text) => format!("[resource {uri}]\n{text}"),
        None => format!(
            "[binary resource {uri} ({})]",
            resource
                .get("mimeType")
                .and_then(Value::as_str)
                .unwrap_or("unknown type")
        ),
    }
}

/// Keeps text parts within `max_chars` characters in all, cutting the part that crosses the
/// limit and saying how much was left out.
fn truncate(parts: Vec<ResultPart>, max_chars: usize) -> Vec<ResultPart> {
    let total: usize = parts
        .iter()
        .map(|p| match p {
            ResultPart::Text(t) => t.chars().count(),
            ResultPart::Image { .. } => 0,
        })
        .sum();
    if total <= max_chars {
        return parts;
    }
    let mut left = max_chars;
    let mut out = Vec::with_capacity(parts.len() + 1);
    for part in parts {
        match part {
            ResultPart::Text(text) if left == 0 => drop(text),
            ResultPart::Text(text) => {
                let count = text.chars().count();
                if count <= left {
                    left -= count;
                    out.push(ResultPart::Text(text));
                } else {
                    out.push(ResultPart::Text(text.chars().take(left).collect()));
                    left = 0;
                }
            }
            image => out.push(image),
        }
    }
    out.push(ResultPart::Text(format!(
        "[result truncated: {total} characters, the first {max_chars} shown]"
    )));
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_content_kind_is_kept() {
        let result = json!({
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": "aGk=", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside"}},
                {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AA==", "mimeType": "application/zip"}},
                {"type": "resource_link", "uri": "file:///c", "name": "c"},
            ],
            "structuredContent": {"n": 1},
            "isError": false
        });
        let mapped = map_result(&result, 10_000);
        assert!(!mapped.is_error);
        assert_eq!(mapped.parts[0], ResultPart::Text("hello".into()));
        assert_eq!(
            mapped.parts[1],
            ResultPart::Image {
                media_type: "image/png".into(),
                data: "aGk=".into()
            }
        );
        let text = mapped.text();
        assert!(text.contains("inside"), "{text}");
        assert!(
            text.contains("binary resource file:///b.bin (application/zip)"),
            "{text}"
        );
        assert!(text.contains("file:///c (c)"), "{text}");
        assert!(text.contains("{\"n\":1}"), "{text}");
    }

    #[test]
    fn structured_content_already_in_the_text_is_not_repeated() {
        let result = json!({
            "content": [{"type": "text", "text": "{\"n\": 1}"}],
            "structuredContent": {"n": 1}
        });
        assert_eq!(map_result(&result, 100).parts.len(), 1);
    }

    #[test]
    fn is_error_is_kept() {
        let result = json!({"content": [{"type": "text", "text": "boom"}], "isError": true});
        assert!(map_result(&result, 100).is_error);
    }

    #[test]
    fn long_text_is_cut_with_a_note() {
        let result = json!({"content": [
            {"type": "text", "text": "x".repeat(60)},
            {"type": "text", "text": "q".repeat(60)},
        ]});
        let mapped = map_result(&result, 100);
        let text = mapped.text();
        assert_eq!(text.matches('x').count(), 60);
        assert_eq!(text.matches('q').count(), 40);
        assert!(text.contains("truncated: 120 characters, the first 100 shown"));
    }
}
