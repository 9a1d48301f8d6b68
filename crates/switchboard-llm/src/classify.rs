//! Turning a provider's refusal into an [`LlmError`].
//!
//! Both wire formats explain a failure in an `error` object with a `message` and a `type`
//! (OpenAI: `{"error":{"message","type","code"}}`; Anthropic:
//! `{"type":"error","error":{"type","message"}}`), and the OpenAI-compatible servers mostly
//! follow OpenAI, with a few variations (`{"error": "text"}`, vLLM's top-level `message`,
//! FastAPI's `detail`). The class of the error comes from the HTTP status first, because every
//! server gets that right; the body only refines it (a 400 that says the context is too long,
//! Anthropic's `overloaded_error`). Errors that arrive inside a stream have no status, so their
//! `type` is mapped back to the status the provider documents for it.
//!
//! The provider's own message is kept, short and without control characters, with the API
//! key blanked out should the provider have echoed it. A body that is not an error document
//! is never quoted: a member's `baseUrl` may point at a service that is not a model at all,
//! and its pages must not come back through the error (only the status's reason phrase does).

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;
use serde_json::Value;

use crate::error::LlmError;

/// The longest provider message kept, in characters.
const MAX_MESSAGE: usize = 200;
/// How much of an error body is read; an error document is far smaller.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// Message fragments (lowercase) by which servers say the conversation does not fit.
const CONTEXT_TOO_LONG_HINTS: &[&str] = &[
    "context length",
    "context_length",
    "context window",
    "context size",
    "context limit",
    "maximum context",
    "prompt is too long",
    "prompt too long",
];

/// A provider's explanation of a failure.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ProviderError {
    pub(crate) message: String,
    /// `error.type`: `invalid_request_error`, `overloaded_error`, ...
    pub(crate) kind: Option<String>,
    /// OpenAI's `error.code`: `context_length_exceeded`, `invalid_api_key`, ...
    pub(crate) code: Option<String>,
}

impl ProviderError {
    /// Reads an error response body of either wire format; falls back to the status's reason
    /// phrase when the body is not an error document (it is never quoted).
    pub(crate) fn from_body(status: u16, body: &str) -> Self {
        if let Ok(value) = serde_json::from_str::<Value>(body)
            && let Some(mut error) = Self::from_value(&value)
        {
            error.message = short_text(&error.message, MAX_MESSAGE);
            if !error.message.is_empty() {
                return error;
            }
        }
        let message = reqwest::StatusCode::from_u16(status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("no message")
            .to_owned();
        Self {
            message,
            ..Self::default()
        }
    }

    /// Reads a JSON error document (`{"error": {...}}`, `{"error": "..."}`, `{"message": ...}`,
    /// `{"detail": ...}`), or the `error` object itself.
    pub(crate) fn from_value(value: &Value) -> Option<Self> {
        match value.get("error") {
            Some(Value::Object(error)) => {
                let message = error
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or_else(|| Value::Object(error.clone()).to_string());
                Some(Self {
                    message,
                    kind: string_field(error.get("type")),
                    code: string_field(error.get("code")),
                })
            }
            Some(Value::String(message)) => Some(Self {
                message: message.clone(),
                ..Self::default()
            }),
            _ => {
                let message = value
                    .get("message")
                    .or_else(|| value.get("detail"))
                    .and_then(Value::as_str)?;
                Some(Self {
                    message: message.to_owned(),
                    kind: string_field(value.get("type")),
                    code: string_field(value.get("code")),
                })
            }
        }
    }

    /// The error with every occurrence of `secret` replaced, so an echoed key goes no further.
    pub(crate) fn redacted(mut self, secret: Option<&str>) -> Self {
        if let Some(secret) = secret.filter(|s| !s.is_empty()) {
            self.message = self.message.replace(secret, "[redacted]");
        }
        self
    }

    fn says_context_too_long(&self) -> bool {
        if self.code.as_deref() == Some("context_length_exceeded") {
            return true;
        }
        let message = self.message.to_lowercase();
        CONTEXT_TOO_LONG_HINTS
            .iter()
            .any(|hint| message.contains(hint))
    }
}

/// The class of a failed call, from its HTTP status and the provider's explanation.
pub(crate) fn classify(
    status: u16,
    retry_after: Option<Duration>,
    error: ProviderError,
) -> LlmError {
    let message = error.message.clone();
    match status {
        401 | 403 => LlmError::Auth { status, message },
        429 => LlmError::RateLimited {
            retry_after,
            message,
        },
        400..=499 if error.says_context_too_long() => LlmError::ContextTooLong { message },
        _ if status >= 500 || error.kind.as_deref() == Some("overloaded_error") => {
            LlmError::Upstream { status, message }
        }
        400..=499 => LlmError::BadRequest { status, message },
        _ => LlmError::Protocol(format!("unexpected HTTP status {status}: {message}")),
    }
}

/// The status a provider documents for an error `type`, for errors that arrive inside a
/// stream (Anthropic's `error` event, an OpenAI-compatible `{"error": ...}` chunk). Unknown
/// types count as a server failure.
pub(crate) fn status_of_kind(kind: Option<&str>) -> u16 {
    match kind {
        Some("invalid_request_error") => 400,
        Some("authentication_error") => 401,
        Some("permission_error" | "permission_denied") => 403,
        Some("not_found_error") => 404,
        Some("request_too_large") => 413,
        Some("rate_limit_error" | "rate_limit_exceeded" | "tokens") => 429,
        Some("overloaded_error") => 529,
        _ => 500,
    }
}

/// An error reported inside a stream, classified as if it had been the response's status.
pub(crate) fn classify_in_stream(error: ProviderError, secret: Option<&str>) -> LlmError {
    let status = status_of_kind(error.kind.as_deref());
    classify(status, None, error.redacted(secret))
}

/// How long the provider asked us to wait: `retry-after-ms` (OpenAI), else `retry-after` in
/// seconds or as an HTTP date (relative to `now`).
pub(crate) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = header("retry-after")?;
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Reads a non-success response and classifies it. At most [`MAX_ERROR_BODY`] of the body is
/// read; if that fails, the status alone decides.
pub(crate) async fn from_response(response: reqwest::Response, secret: Option<&str>) -> LlmError {
    let status = response.status().as_u16();
    let retry_after = retry_after(response.headers(), SystemTime::now());
    let body = read_prefix(response, MAX_ERROR_BODY).await;
    let body = String::from_utf8_lossy(&body);
    let error = ProviderError::from_body(status, &body).redacted(secret);
    classify(status, retry_after, error)
}

fn string_field(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Up to about `limit` bytes of the body; a body that fails halfway yields what was read.
async fn read_prefix(mut response: reqwest::Response, limit: usize) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < limit {
        match response.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk),
            Ok(None) | Err(_) => break,
        }
    }
    body
}

pub(crate) use switchboard_core::upstream_text::short_text;

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn openai(message: &str, kind: &str, code: Option<&str>) -> String {
        serde_json::json!({"error": {"message": message, "type": kind, "code": code}}).to_string()
    }

    fn anthropic(kind: &str, message: &str) -> String {
        serde_json::json!({"type": "error", "error": {"type": kind, "message": message}})
            .to_string()
    }

    fn class(status: u16, body: &str) -> LlmError {
        classify(status, None, ProviderError::from_body(status, body))
    }

    #[test]
    fn statuses_pick_the_class_and_the_message_is_kept() {
        let body = openai("Incorrect API key", "invalid_request_error", None);
        assert!(
            matches!(class(401, &body), LlmError::Auth { status: 401, message } if message == "Incorrect API key")
        );
        assert!(matches!(
            class(403, "nope"),
            LlmError::Auth { status: 403, .. }
        ));
        assert!(matches!(
            class(429, &anthropic("rate_limit_error", "slow")),
            LlmError::RateLimited { message, .. } if message == "slow"
        ));
        assert!(matches!(
            class(500, "boom"),
            LlmError::Upstream { status: 500, message } if message == "Internal Server Error"
        ));
        assert!(matches!(
            class(529, &anthropic("overloaded_error", "Overloaded")),
            LlmError::Upstream { status: 529, .. }
        ));
        assert!(matches!(
            class(404, &openai("no such model", "invalid_request_error", Some("model_not_found"))),
            LlmError::BadRequest { status: 404, message } if message == "no such model"
        ));
        assert!(matches!(class(302, ""), LlmError::Protocol(_)));
    }

    #[test]
    fn context_too_long_is_recognised_in_both_dialects() {
        let openai_body = openai(
            "This model's maximum context length is 128000 tokens.",
            "invalid_request_error",
            Some("context_length_exceeded"),
        );
        assert!(matches!(
            class(400, &openai_body),
            LlmError::ContextTooLong { .. }
        ));
        let by_code_only = openai(
            "too big",
            "invalid_request_error",
            Some("context_length_exceeded"),
        );
        assert!(matches!(
            class(400, &by_code_only),
            LlmError::ContextTooLong { .. }
        ));
        let anthropic_body = anthropic(
            "invalid_request_error",
            "prompt is too long: 210000 tokens > 200000 maximum",
        );
        assert!(matches!(
            class(400, &anthropic_body),
            LlmError::ContextTooLong { .. }
        ));
        let vllm = serde_json::json!({"object": "error", "message": "This model's maximum context length is 4096 tokens", "type": "BadRequestError", "code": 400}).to_string();
        assert!(matches!(class(400, &vllm), LlmError::ContextTooLong { .. }));
        assert!(matches!(
            class(400, &openai("bad field", "invalid_request_error", None)),
            LlmError::BadRequest { .. }
        ));
    }

    #[test]
    fn odd_bodies_still_give_a_message() {
        assert_eq!(ProviderError::from_body(502, "").message, "Bad Gateway");
        assert_eq!(
            ProviderError::from_body(500, "{\"error\": \"model crashed\"}").message,
            "model crashed"
        );
        assert_eq!(
            ProviderError::from_body(422, "{\"detail\": \"bad input\"}").message,
            "bad input"
        );
        let long = "x".repeat(5000);
        assert_eq!(
            ProviderError::from_body(500, &long).message,
            "Internal Server Error"
        );
    }

    #[test]
    fn bodies_are_not_quoted_and_messages_are_short_and_plain() {
        let page = format!("<html>SECRET-PAGE {}</html>", "y".repeat(20_000));
        let error = ProviderError::from_body(500, &page);
        assert_eq!(error.message, "Internal Server Error");
        let json = serde_json::json!({"error": {"message": format!("bad\n\u{1b}[31mred {}", "z".repeat(500))}});
        let message = ProviderError::from_body(400, &json.to_string()).message;
        assert!(message.starts_with("bad [31mred zzz"), "{message}");
        assert!(message.chars().count() <= 203, "{}", message.len());
        assert!(!message.contains('\u{1b}') && !message.contains('\n'));
    }

    #[test]
    fn an_echoed_key_is_blanked() {
        let error = ProviderError::from_body(401, &openai("bad key sk-secret-1", "x", None))
            .redacted(Some("sk-secret-1"));
        assert_eq!(error.message, "bad key [redacted]");
    }

    #[test]
    fn in_stream_errors_are_classified_by_type() {
        let error = |kind: &str| ProviderError {
            message: "m".into(),
            kind: Some(kind.into()),
            code: None,
        };
        assert!(matches!(
            classify_in_stream(error("overloaded_error"), None),
            LlmError::Upstream { status: 529, .. }
        ));
        assert!(matches!(
            classify_in_stream(error("rate_limit_error"), None),
            LlmError::RateLimited { .. }
        ));
        assert!(matches!(
            classify_in_stream(error("invalid_request_error"), None),
            LlmError::BadRequest { status: 400, .. }
        ));
        assert!(matches!(
            classify_in_stream(error("api_error"), None),
            LlmError::Upstream { status: 500, .. }
        ));
    }

    #[test]
    fn retry_after_reads_milliseconds_seconds_and_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_480); // 2015-10-21 07:28:00
        let headers = |pairs: &[(&'static str, &'static str)]| {
            let mut map = HeaderMap::new();
            for (name, value) in pairs {
                map.insert(*name, HeaderValue::from_static(value));
            }
            map
        };
        assert_eq!(retry_after(&headers(&[]), now), None);
        assert_eq!(
            retry_after(&headers(&[("retry-after", "2")]), now),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "1.5")]), now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after", "2"), ("retry-after-ms", "250")]),
                now
            ),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after", "Wed, 21 Oct 2015 07:28:30 GMT")]),
                now
            ),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after", "Wed, 21 Oct 2015 07:27:00 GMT")]),
                now
            ),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after(&headers(&[("retry-after", "soon")]), now), None);
    }
}
