//! `read_result`: how a model reads a tool result too large to be given whole. Such a
//! result reaches the model as a preview (its head and tail, and the shape of its structured
//! content) with a handle, the call's id; `read_result` reads further pages by offset, or the
//! lines that contain a text. The whole result stays with the call, for the person and for
//! these reads. Like `search_tools`, it is answered by Switchboard itself.

use serde_json::{Value, json};
use switchboard_core::ToolCallRecord;
use switchboard_llm::{ResultPart, ToolDefinition};
use switchboard_store::{Message, ToolMode};

use super::FoundCall;
use super::search::SERVER;
use crate::results::{MappedResult, map_stored};

pub const NAME: &str = "read_result";

const DESCRIPTION: &str = "Reads more of a tool result that was too large to be shown whole. \
     Give its handle and an offset (a character position) to read the next page, or a query \
     to get the places of the result that contain it.";

/// What a read asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadCall {
    pub handle: String,
    pub offset: usize,
    pub query: Option<String>,
}

/// The function definition (native mode).
pub fn definition() -> ToolDefinition {
    ToolDefinition {
        name: NAME.into(),
        description: DESCRIPTION.into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "handle": {"type": "string", "description": "The handle the result's preview gave."},
                "offset": {"type": "integer", "minimum": 0, "description": "Where to start reading (a character position)."},
                "query": {"type": "string", "description": "Instead of a page: the places that contain this text."}
            },
            "required": ["handle"]
        }),
        strict: false,
    }
}

/// Its line in the meta mode's description or the prompt mode's listing, under [`SERVER`].
pub fn line(kind: ToolMode) -> String {
    match kind {
        ToolMode::Meta => format!(
            "  - Operation '{NAME}': {DESCRIPTION} Parameters: handle (string, required), \
             offset (integer), query (string).\n"
        ),
        _ => format!(
            "- **{NAME}**: {DESCRIPTION}\n  Parameters: handle (string, required), offset \
             (integer), query (string)\n"
        ),
    }
}

/// The read a found call asks for, if it is one: a call of [`NAME`] (on [`SERVER`], where the
/// mode names servers) that no offered tool answers to.
pub fn read_call(found: &FoundCall) -> Option<ReadCall> {
    if found.target.is_ok() || found.tool_name != NAME {
        return None;
    }
    if !(found.server_name.is_empty() || found.server_name == SERVER) {
        return None;
    }
    let text = |key: &str| {
        found
            .arguments
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    Some(ReadCall {
        handle: text("handle").unwrap_or_default(),
        offset: found
            .arguments
            .get("offset")
            .and_then(Value::as_u64)
            .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX)),
        query: text("query").filter(|q| !q.trim().is_empty()),
    })
}

/// Whether a stored call is one of Switchboard's own (a search or a read), whose result is
/// never cut.
pub fn is_own_record(call: &ToolCallRecord) -> bool {
    call.server_id.0.is_empty() && (call.tool_name == NAME || call.tool_name == super::search::NAME)
}

/// What the model is given of a result whose text is over `budget` characters: its head and
/// tail, the shape of its structured content, and how to read on. `None` when it fits.
pub fn preview(
    record: &ToolCallRecord,
    mapped: &MappedResult,
    budget: usize,
) -> Option<MappedResult> {
    let text = text_of(mapped);
    let total = text.chars().count();
    if total <= budget || is_own_record(record) {
        return None;
    }
    let head_chars = budget * 3 / 4;
    let tail_chars = budget / 8;
    let head: String = text.chars().take(head_chars).collect();
    let tail: String = text
        .chars()
        .skip(total.saturating_sub(tail_chars))
        .collect();
    let mut preview = format!("{head}\n[…]\n{tail}\n\n");
    if let Some(shape) = record
        .response
        .as_ref()
        .and_then(|r| r.get("structuredContent"))
        .filter(|v| !v.is_null())
    {
        preview.push_str(&format!(
            "Shape of the structured content: {}\n",
            shape_of(shape, 0)
        ));
    }
    preview.push_str(&format!(
        "[This result is {total} characters; shown: the first {head_chars} and the last \
         {tail_chars}. Read on with {NAME} {{\"handle\": \"{}\", \"offset\": {head_chars}}}, or \
         find text in it with {{\"handle\": \"{}\", \"query\": \"...\"}}.]",
        record.id, record.id
    ));
    let mut parts = vec![ResultPart::Text(preview)];
    parts.extend(
        mapped
            .parts
            .iter()
            .filter(|p| matches!(p, ResultPart::Image { .. }))
            .cloned(),
    );
    Some(MappedResult {
        parts,
        is_error: mapped.is_error,
    })
}

/// The answer to a read: a page of `page` characters from the offset, or the lines that
/// contain the query (as many as fit in a page), each with its offset.
pub fn answer(messages: &[Message], call: &ReadCall, page: usize) -> Value {
    let Some(record) = messages
        .iter()
        .flat_map(|m| &m.tool_calls)
        .find(|c| c.id == call.handle && !is_own_record(c))
    else {
        return failed(&format!(
            "there is no result with the handle {:?}",
            call.handle
        ));
    };
    let mapped = map_stored(
        record.response.as_ref(),
        record.is_error.unwrap_or(false),
        usize::MAX,
    );
    let text = text_of(&mapped);
    let total = text.chars().count();
    let body = match &call.query {
        Some(query) => matching_lines(&text, query, page),
        None => {
            let start = call.offset.min(total);
            let chunk: String = text.chars().skip(start).take(page).collect();
            let end = start + chunk.chars().count();
            let next = if end < total {
                format!("[characters {start}-{end} of {total}; read on from offset {end}]")
            } else {
                format!("[characters {start}-{end} of {total}; the end of the result]")
            };
            format!("{chunk}\n{next}")
        }
    };
    json!({"content": [{"type": "text", "text": body}], "isError": false})
}

fn failed(message: &str) -> Value {
    json!({"content": [{"type": "text", "text": message}], "isError": true})
}

/// Characters shown on each side of a match.
const CONTEXT: usize = 80;

/// The places of `text` that contain `query` (letters compared without case), each with the
/// character offset it starts at and some text around it, as many as fit in `page`
/// characters.
fn matching_lines(text: &str, query: &str, page: usize) -> String {
    let fold = |c: char| c.to_lowercase().next().unwrap_or(c);
    let chars: Vec<char> = text.chars().collect();
    let folded: Vec<char> = chars.iter().copied().map(fold).collect();
    let wanted: Vec<char> = query.chars().map(fold).collect();
    let mut out = String::new();
    let mut shown_to = 0;
    let mut found = 0;
    let mut left_out = 0;
    let mut at = 0;
    while !wanted.is_empty() && at + wanted.len() <= folded.len() {
        if folded[at..at + wanted.len()] != wanted[..] {
            at += 1;
            continue;
        }
        let start = at.saturating_sub(CONTEXT).max(shown_to);
        let end = (at + wanted.len() + CONTEXT).min(chars.len());
        at += wanted.len();
        if start >= end {
            continue;
        }
        let snippet: String = chars[start..end].iter().collect();
        let entry = format!("@{start}: {}\n", snippet.replace('\n', " "));
        if out.chars().count() + entry.chars().count() <= page {
            out.push_str(&entry);
            shown_to = end;
            found += 1;
        } else {
            left_out += 1;
        }
    }
    if found == 0 && left_out == 0 {
        return format!("nothing in the result contains {query:?}");
    }
    if left_out > 0 {
        out.push_str(&format!(
            "[{left_out} more places contain it; narrow the query]"
        ));
    }
    out
}

/// Every text part of a result, joined.
fn text_of(mapped: &MappedResult) -> String {
    mapped
        .parts
        .iter()
        .filter_map(|p| match p {
            ResultPart::Text(t) => Some(t.as_str()),
            ResultPart::Image { .. } => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A short description of a JSON value's shape: object keys, array lengths, value types.
fn shape_of(value: &Value, depth: usize) -> String {
    match value {
        Value::Object(map) if depth < 2 => {
            let fields: Vec<String> = map
                .iter()
                .take(20)
                .map(|(k, v)| format!("{k}: {}", shape_of(v, depth + 1)))
                .collect();
            let more = if map.len() > 20 { ", …" } else { "" };
            format!("{{{}{more}}}", fields.join(", "))
        }
        Value::Object(map) => format!("object of {} keys", map.len()),
        Value::Array(items) => match items.first() {
            Some(first) => format!("array of {} × {}", items.len(), shape_of(first, depth + 1)),
            None => "empty array".into(),
        },
        Value::String(_) => "string".into(),
        Value::Number(_) => "number".into(),
        Value::Bool(_) => "boolean".into(),
        Value::Null => "null".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_core::{ServerId, ToolCallStatus};

    fn record(text: &str) -> ToolCallRecord {
        ToolCallRecord {
            id: "call_1".into(),
            server_id: ServerId("files".into()),
            server_name: "files".into(),
            tool_name: "read".into(),
            display_name: "mcp__files__read".into(),
            arguments: Default::default(),
            status: ToolCallStatus::Done,
            response: Some(json!({"content": [{"type": "text", "text": text}]})),
            is_error: Some(false),
            round: 0,
            approved: Some(true),
            question: None,
            pending_input: None,
            task: None,
            resolved_arguments: None,
            mapped_parameters: Default::default(),
        }
    }

    fn message(records: Vec<ToolCallRecord>) -> Message {
        Message {
            id: "m".into(),
            conversation_id: "c".into(),
            role: switchboard_store::MessageRole::Assistant,
            content: String::new(),
            tool_calls: records,
            metadata: Default::default(),
            created_at: switchboard_store::Timestamp(0),
            updated_at: switchboard_store::Timestamp(0),
        }
    }

    #[test]
    fn a_result_over_the_budget_is_previewed_with_its_handle_and_read_back_in_pages() {
        let text: String = (0..2000).map(|i| format!("line {i}\n")).collect();
        let record = record(&text);
        let mapped = map_stored(record.response.as_ref(), false, usize::MAX);
        let preview = preview(&record, &mapped, 1000).unwrap();
        let shown = preview.text();
        assert!(shown.starts_with("line 0\n"), "{shown}");
        assert!(shown.contains("line 1999"), "{shown}");
        assert!(shown.contains("\"handle\": \"call_1\""), "{shown}");
        assert!(shown.chars().count() < 1400, "{}", shown.len());

        let messages = vec![message(vec![record.clone()])];
        let page = answer(
            &messages,
            &ReadCall {
                handle: "call_1".into(),
                offset: 750,
                query: None,
            },
            500,
        );
        let page = page["content"][0]["text"].as_str().unwrap();
        assert_eq!(&page[..500], &text[750..1250]);
        assert!(page.contains("read on from offset 1250"), "{page}");

        let found = answer(
            &messages,
            &ReadCall {
                handle: "call_1".into(),
                offset: 0,
                query: Some("LINE 1234".into()),
            },
            500,
        );
        let found = found["content"][0]["text"].as_str().unwrap();
        assert!(found.contains("line 1234"), "{found}");
        assert!(found.starts_with('@'), "{found}");
    }

    #[test]
    fn a_result_within_the_budget_is_given_whole_and_an_unknown_handle_is_an_error() {
        let record = record("short");
        let mapped = map_stored(record.response.as_ref(), false, usize::MAX);
        assert!(preview(&record, &mapped, 1000).is_none());
        let answer = answer(
            &[message(vec![record])],
            &ReadCall {
                handle: "nope".into(),
                offset: 0,
                query: None,
            },
            500,
        );
        assert_eq!(answer["isError"], true);
    }
}
