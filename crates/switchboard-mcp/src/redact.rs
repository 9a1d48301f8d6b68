//! A server's own secrets cut out of what comes back from it.
//!
//! An upstream that repeats the request in an error body (a 401 page listing the headers, a
//! proxy quoting the URL) would otherwise put the bearer token, a secret header or a URL key in
//! the API error, the `server.status` event, the health report and the log. Every error the
//! [`ConnectionManager`](crate::ConnectionManager) hands out for a spec, every status it
//! records, and every tool result passes through [`McpError::redacted`] or [`redact_result`]
//! with that spec's [`Redactor`], so no caller has to remember to.

use rmcp::model::CallToolResult;
use serde_json::Value;
use switchboard_core::spec::Redactor;

use crate::error::{McpError, error_chain};
use crate::tasks::{TaskOutcome, TaskState};

impl McpError {
    /// This error with every secret of `redactor` cut out of its text. Variants stay as they
    /// are; a typed cause that holds a secret is replaced by its redacted message.
    pub(crate) fn redacted(self, redactor: &Redactor) -> McpError {
        if redactor.is_empty() || !redactor.finds(&full_text(&self)) {
            return self;
        }
        let text = |mut s: String| {
            redactor.redact_in_place(&mut s);
            s
        };
        let source = |source: Box<dyn std::error::Error + Send + Sync>| {
            let chain = error_chain(source.as_ref());
            if redactor.finds(&chain) {
                Box::new(Cleaned(redactor.redact(&chain)))
                    as Box<dyn std::error::Error + Send + Sync>
            } else {
                source
            }
        };
        match self {
            McpError::InvalidHeader { field, reason } => McpError::InvalidHeader {
                field,
                reason: text(reason),
            },
            McpError::Spawn { command, cause } => McpError::Spawn {
                command: text(command),
                cause: std::io::Error::new(cause.kind(), redactor.redact(&cause.to_string())),
            },
            McpError::Unreachable {
                url,
                reason,
                detail,
            } => McpError::Unreachable {
                url: text(url),
                reason,
                detail: text(detail),
            },
            McpError::AuthFailed { server, detail } => McpError::AuthFailed {
                server,
                detail: text(detail),
            },
            McpError::ConnectTimeout {
                server,
                timeout,
                stderr,
            } => McpError::ConnectTimeout {
                server,
                timeout,
                stderr: stderr.map(text),
            },
            McpError::ClosedDuringHandshake { server, stderr } => McpError::ClosedDuringHandshake {
                server,
                stderr: stderr.map(text),
            },
            McpError::Handshake {
                server,
                source: cause,
            } => McpError::Handshake {
                server,
                source: source(cause),
            },
            McpError::ConnectFailed {
                server,
                code,
                message,
            } => McpError::ConnectFailed {
                server,
                code,
                message: text(message),
            },
            McpError::Server { server, mut error } => {
                error.message = text(error.message.into_owned()).into();
                error.data = error.data.map(|data| redact_value(data, redactor));
                McpError::Server { server, error }
            }
            McpError::Protocol { server, detail } => McpError::Protocol {
                server,
                detail: text(detail),
            },
            // The rest carry only names Switchboard chose or the user typed (never a secret
            // value) or nothing at all. Should one slip through anyway, its text is what
            // callers see, so it is kept whole only when clean (checked above).
            other => {
                let message = redactor.redact(&other.to_string());
                McpError::ConnectFailed {
                    server: String::new(),
                    code: other.code(),
                    message,
                }
            }
        }
    }
}

/// A tool's result with the server's secrets cut out of every string in it.
pub(crate) fn redact_result(result: CallToolResult, redactor: &Redactor) -> CallToolResult {
    if redactor.is_empty() {
        return result;
    }
    let Ok(value) = serde_json::to_value(&result) else {
        return result;
    };
    if !finds_in(&value, redactor) {
        return result;
    }
    serde_json::from_value(redact_value(value, redactor)).unwrap_or(result)
}

/// A task's state with the server's secrets cut out of its status message, its questions and
/// its outcome.
pub(crate) fn redact_task(mut task: TaskState, redactor: &Redactor) -> TaskState {
    if redactor.is_empty() {
        return task;
    }
    if let Some(message) = &mut task.status_message {
        redactor.redact_in_place(message);
    }
    if let Some(requests) = task.input_requests.take() {
        let requests = Value::Object(requests);
        task.input_requests = match redact_value(requests, redactor) {
            Value::Object(requests) => Some(requests),
            _ => None,
        };
    }
    task.outcome = task.outcome.map(|outcome| match outcome {
        TaskOutcome::Completed(result) => TaskOutcome::Completed(redact_result(result, redactor)),
        TaskOutcome::Failed(mut error) => {
            error.message = redactor.redact(&error.message).into();
            error.data = error.data.map(|data| redact_value(data, redactor));
            TaskOutcome::Failed(error)
        }
    });
    task
}

/// Whether a secret shows in a string (or key) of `value`: a walk, not a serialization, as
/// every result is checked and most hold none.
fn finds_in(value: &Value, redactor: &Redactor) -> bool {
    match value {
        Value::String(text) => redactor.finds(text),
        Value::Array(items) => items.iter().any(|v| finds_in(v, redactor)),
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| redactor.finds(k) || finds_in(v, redactor)),
        _ => false,
    }
}

/// `value` with the secrets cut out of every string (keys included).
pub(crate) fn redact_value(value: Value, redactor: &Redactor) -> Value {
    match value {
        Value::String(text) => Value::String(redactor.redact(&text)),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|v| redact_value(v, redactor))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (redactor.redact(&k), redact_value(v, redactor)))
                .collect(),
        ),
        other => other,
    }
}

/// The message and every cause, as a caller printing the chain would see them.
fn full_text(error: &McpError) -> String {
    let mut text = error.to_string();
    if let McpError::Server { error, .. } = error
        && let Some(data) = &error.data
    {
        text.push(' ');
        text.push_str(&data.to_string());
    }
    if let Some(cause) = std::error::Error::source(error) {
        text.push_str(": ");
        text.push_str(&error_chain(cause));
    }
    text
}

/// A cause reduced to its redacted message.
#[derive(Debug)]
struct Cleaned(String);

impl std::fmt::Display for Cleaned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Cleaned {}

#[cfg(test)]
mod tests {
    use switchboard_core::{Auth, ServerSpec};

    use super::*;

    fn redactor() -> Redactor {
        ServerSpec::http("s", "https://h.example/mcp?api_key=url-secret-123", None)
            .with_header("X-Key", "header-secret")
            .with_auth(Auth::Bearer {
                token: "bearer-secret".into(),
            })
            .redactor()
    }

    #[test]
    fn every_text_of_an_error_is_redacted() {
        let errors = [
            McpError::AuthFailed {
                server: "s".into(),
                detail: "HTTP 401: you sent authorization: Bearer bearer-secret".into(),
            },
            McpError::Handshake {
                server: "s".into(),
                source: Box::new(std::io::Error::other(
                    "x-key: header-secret; GET /mcp?api_key=url-secret-123",
                )),
            },
            McpError::Unreachable {
                url: "https://h.example/mcp?api_key=***".into(),
                reason: switchboard_core::ReachFailure::Other,
                detail: "bearer-secret".into(),
            },
            McpError::Server {
                server: "s".into(),
                error: rmcp::model::ErrorData::internal_error(
                    "token bearer-secret",
                    Some(serde_json::json!({"echo": "header-secret"})),
                ),
            },
        ];
        for error in errors {
            let code = error.code();
            let error = error.redacted(&redactor());
            assert_eq!(error.code(), code);
            let text = full_text(&error);
            for secret in ["bearer-secret", "header-secret", "url-secret-123"] {
                assert!(!text.contains(secret), "{secret} in {text}");
            }
            assert!(text.contains("***"), "{text}");
        }
    }

    #[test]
    fn a_clean_error_is_left_alone() {
        let error = McpError::ConnectionLost { server: "s".into() }.redacted(&redactor());
        assert!(matches!(error, McpError::ConnectionLost { .. }));
    }
}
