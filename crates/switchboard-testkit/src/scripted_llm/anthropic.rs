//! Rendering a [`Plan`] as Anthropic Messages: `event:`/`data:` pairs from `message_start` to
//! `message_stop` when streamed (with a `ping` after the start, as the API sends), one `message`
//! object when not, and `{"type": "error", "error": {"type", "message"}}` for errors. A search
//! with the tool search tool comes between the text and the tool calls, as the API orders them.

use serde_json::{Value, json};

use super::turn::HttpError;
use super::{Finish, Plan, empty_object, pieces, reason};

fn stop_reason(finish: Finish) -> &'static str {
    match finish {
        Finish::Stop => "end_turn",
        Finish::ToolCalls => "tool_use",
        Finish::Length => "max_tokens",
    }
}

fn frame(data: &Value) -> String {
    let name = data["type"].as_str().unwrap_or("message");
    format!("event: {name}\ndata: {data}\n\n")
}

/// The SSE frames of a streamed answer.
pub(super) fn streamed(plan: &Plan) -> Vec<String> {
    let mut frames = vec![
        frame(&json!({
            "type": "message_start",
            "message": {
                "id": plan.id,
                "type": "message",
                "role": "assistant",
                "model": plan.model,
                "content": [],
                "stop_reason": null,
                "stop_sequence": null,
                "usage": {"input_tokens": plan.input_tokens, "output_tokens": 1},
            },
        })),
        frame(&json!({"type": "ping"})),
    ];
    let mut block = 0;
    if !plan.text.is_empty() {
        frames.push(frame(&json!({
            "type": "content_block_start",
            "index": block,
            "content_block": {"type": "text", "text": ""},
        })));
        for piece in pieces(&plan.text) {
            frames.push(frame(&json!({
                "type": "content_block_delta",
                "index": block,
                "delta": {"type": "text_delta", "text": piece},
            })));
        }
    }
    if let Some((kind, message)) = &plan.stream_error {
        frames.push(frame(&json!({
            "type": "error",
            "error": {"type": kind, "message": message},
        })));
        return frames;
    }
    if !plan.text.is_empty() {
        frames.push(frame(
            &json!({"type": "content_block_stop", "index": block}),
        ));
        block += 1;
    }
    if let Some(search) = &plan.search {
        // The call opens with an empty input that streams, as a `tool_use` does; the result
        // comes whole in its start.
        let mut start = search.use_block();
        start["input"] = empty_object();
        frames.push(frame(&json!({
            "type": "content_block_start",
            "index": block,
            "content_block": start,
        })));
        let fragments = std::iter::once(String::new()).chain(pieces(&search.input().to_string()));
        for fragment in fragments {
            frames.push(frame(&json!({
                "type": "content_block_delta",
                "index": block,
                "delta": {"type": "input_json_delta", "partial_json": fragment},
            })));
        }
        frames.push(frame(
            &json!({"type": "content_block_stop", "index": block}),
        ));
        block += 1;
        frames.push(frame(&json!({
            "type": "content_block_start",
            "index": block,
            "content_block": search.result_block(),
        })));
        frames.push(frame(
            &json!({"type": "content_block_stop", "index": block}),
        ));
        block += 1;
    }
    for call in &plan.calls {
        frames.push(frame(&json!({
            "type": "content_block_start",
            "index": block,
            "content_block": {"type": "tool_use", "id": call.id, "name": call.name, "input": empty_object()},
        })));
        // The API opens every input with an empty fragment.
        let fragments = std::iter::once(String::new()).chain(pieces(&call.arguments_text()));
        for fragment in fragments {
            frames.push(frame(&json!({
                "type": "content_block_delta",
                "index": block,
                "delta": {"type": "input_json_delta", "partial_json": fragment},
            })));
        }
        frames.push(frame(
            &json!({"type": "content_block_stop", "index": block}),
        ));
        block += 1;
    }
    frames.push(frame(&json!({
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason(plan.finish), "stop_sequence": null},
        "usage": {"output_tokens": plan.output_tokens},
    })));
    frames.push(frame(&json!({"type": "message_stop"})));
    frames
}

/// The whole answer of a non-streamed request.
pub(super) fn whole(plan: &Plan) -> Value {
    let mut content = Vec::new();
    if !plan.text.is_empty() {
        content.push(json!({"type": "text", "text": plan.text}));
    }
    if let Some(search) = &plan.search {
        content.push(search.use_block());
        content.push(search.result_block());
    }
    content.extend(plan.calls.iter().map(|call| {
        json!({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments})
    }));
    json!({
        "id": plan.id,
        "type": "message",
        "role": "assistant",
        "model": plan.model,
        "content": content,
        "stop_reason": stop_reason(plan.finish),
        "stop_sequence": null,
        "usage": {"input_tokens": plan.input_tokens, "output_tokens": plan.output_tokens},
    })
}

/// The body of an error response.
pub(super) fn error_body(error: &HttpError) -> Value {
    let kind = error.kind.clone().unwrap_or_else(|| {
        match error.status {
            401 => "authentication_error",
            403 => "permission_error",
            404 => "not_found_error",
            413 => "request_too_large",
            429 => "rate_limit_error",
            529 => "overloaded_error",
            _ if error.status >= 500 => "api_error",
            _ => "invalid_request_error",
        }
        .to_owned()
    });
    let message = if error.message.is_empty() {
        reason(error.status)
    } else {
        error.message.clone()
    };
    json!({"type": "error", "error": {"type": kind, "message": message}})
}
