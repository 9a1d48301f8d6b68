//! Rendering a [`Plan`] as OpenAI chat completions: `chat.completion.chunk` messages and
//! `data: [DONE]` when streamed, one `chat.completion` object when not, and
//! `{"error": {"message", "type", "param", "code"}}` for errors.

use serde_json::{Value, json};

use super::turn::HttpError;
use super::{Finish, Plan, data_frame, pieces, reason};

fn finish_reason(finish: Finish) -> &'static str {
    match finish {
        Finish::Stop => "stop",
        Finish::ToolCalls => "tool_calls",
        Finish::Length => "length",
    }
}

/// The SSE frames of a streamed answer. With `include_usage`, every chunk carries
/// `"usage": null` and a last chunk with empty `choices` carries the usage, as OpenAI does.
pub(super) fn streamed(plan: &Plan, include_usage: bool) -> Vec<String> {
    let chunk = |delta: Value, finish: Option<&str>| {
        let mut chunk = json!({
            "id": plan.id,
            "object": "chat.completion.chunk",
            "created": 0,
            "model": plan.model,
            "system_fingerprint": null,
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        });
        if include_usage {
            chunk["usage"] = Value::Null;
        }
        data_frame(&chunk)
    };
    let mut frames = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    for piece in pieces(&plan.text) {
        frames.push(chunk(json!({"content": piece}), None));
    }
    if let Some((kind, message)) = &plan.stream_error {
        // OpenAI reports a failure mid-stream as an error object and closes the stream.
        frames.push(data_frame(&json!({
            "error": {"message": message, "type": kind, "param": null, "code": null}
        })));
        return frames;
    }
    for (index, call) in plan.calls.iter().enumerate() {
        frames.push(chunk(
            json!({"tool_calls": [{
                "index": index,
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }]}),
            None,
        ));
        for piece in pieces(&call.arguments_text()) {
            frames.push(chunk(
                json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
                None,
            ));
        }
    }
    frames.push(chunk(json!({}), Some(finish_reason(plan.finish))));
    if include_usage {
        frames.push(data_frame(&json!({
            "id": plan.id,
            "object": "chat.completion.chunk",
            "created": 0,
            "model": plan.model,
            "system_fingerprint": null,
            "choices": [],
            "usage": usage(plan),
        })));
    }
    frames.push("data: [DONE]\n\n".to_owned());
    frames
}

/// The whole answer of a non-streamed request.
pub(super) fn whole(plan: &Plan) -> Value {
    let mut message = json!({
        "role": "assistant",
        "content": if plan.text.is_empty() { Value::Null } else { json!(plan.text) },
        "refusal": null,
    });
    if !plan.calls.is_empty() {
        message["tool_calls"] = plan
            .calls
            .iter()
            .map(|call| {
                json!({
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments_text()},
                })
            })
            .collect();
    }
    json!({
        "id": plan.id,
        "object": "chat.completion",
        "created": 0,
        "model": plan.model,
        "system_fingerprint": null,
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": null,
            "finish_reason": finish_reason(plan.finish),
        }],
        "usage": usage(plan),
    })
}

fn usage(plan: &Plan) -> Value {
    json!({
        "prompt_tokens": plan.input_tokens,
        "completion_tokens": plan.output_tokens,
        "total_tokens": plan.input_tokens + plan.output_tokens,
    })
}

/// The body of an error response.
pub(super) fn error_body(error: &HttpError) -> Value {
    let kind = error.kind.clone().unwrap_or_else(|| {
        match error.status {
            400..=404 => "invalid_request_error",
            429 => "rate_limit_exceeded",
            _ if error.status >= 500 => "server_error",
            _ => "invalid_request_error",
        }
        .to_owned()
    });
    let message = if error.message.is_empty() {
        reason(error.status)
    } else {
        error.message.clone()
    };
    json!({
        "error": {"message": message, "type": kind, "param": null, "code": error.code}
    })
}
