//! The one place errors become HTTP responses: `{code, message, timestamp}` with the status of
//! the code (DESIGN.md "HTTP API"). Handlers return `Result<_, ApiError>` and use `?`; every
//! domain error converts here. Details of 5xx errors are logged, not sent.
//!
//! The body is written in English here and put in the request's language (zh-Hans or
//! en-US), with the code's `hint`, by [`crate::i18n::localize`]: an error that the server
//! words itself names its locale key with [`ApiError::key`] and [`ApiError::param`].

use std::sync::Arc;

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use switchboard_agent::AgentError;
use switchboard_core::ErrorCode;
use switchboard_core::import::{EntryError, ParseError};
use switchboard_core::type_names::without_type_names;
use switchboard_mcp::McpError;
use switchboard_store::StoreError;

use crate::i18n::ErrorText;

/// An error on its way to the client.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    /// Sent as `Retry-After` (whole seconds, rounded up), for 429 answers.
    pub retry_after: Option<std::time::Duration>,
    /// The locale key of the whole message (`error.msg.*`), when the server worded it.
    pub key: Option<&'static str>,
    /// The key's `{placeholder}` values.
    pub params: Vec<(&'static str, Param)>,
    /// The error this one was made from, kept whole for the log: a 5xx is logged with its
    /// whole chain of causes, never sent.
    pub source: Option<Arc<dyn std::error::Error + Send + Sync>>,
    /// The message says what to do about the error itself, so the code's general hint is
    /// left out ([`ApiError::says_what_to_do`]).
    pub says_what_to_do: bool,
    /// With `TASK_PENDING`: the tasks the conversation's turn waits on (boxed: every
    /// handler returns this error, so it stays small).
    pub tasks: Option<Box<[PendingTaskBody]>>,
}

/// A `{placeholder}` value: text as it is, or words of the locale files put in the
/// request's language with the rest (a lower layer's reason inside the server's sentence).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Param {
    Text(String),
    Words(Words),
}

/// A locale key (`error.msg.*`) with its `{placeholder}` values: a lower layer's error
/// worded for every language (see [`crate::error_words`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Words {
    pub key: &'static str,
    pub params: Vec<(&'static str, String)>,
}

impl Param {
    fn without_type_names(self) -> Self {
        match self {
            Param::Text(text) => Param::Text(without_type_names(&text)),
            Param::Words(words) => Param::Words(Words {
                key: words.key,
                params: words
                    .params
                    .into_iter()
                    .map(|(name, value)| (name, without_type_names(&value)))
                    .collect(),
            }),
        }
    }
}

impl Words {
    pub fn new(key: &'static str) -> Self {
        Self {
            key,
            params: Vec::new(),
        }
    }

    /// A `{name}` value of the key's text.
    pub fn param(mut self, name: &'static str, value: impl ToString) -> Self {
        self.params.push((name, value.to_string()));
        self
    }
}

/// Every error's body (DESIGN.md "HTTP API").
#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// The error code, e.g. `MCP_SERVER_NOT_FOUND`.
    pub code: &'static str,
    /// What went wrong, for a person.
    pub message: String,
    /// When, RFC 3339 in UTC.
    pub timestamp: String,
    /// What the person can do about it (seed 002's hints), in the same language as the
    /// message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// With `TASK_PENDING`: the tasks the conversation's last turn waits on (cancel them, or
    /// send the message again with `onPendingTask: "cancel"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tasks: Option<Vec<PendingTaskBody>>,
}

/// A task a conversation's turn waits on: a tool call running as a task.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PendingTaskBody {
    /// The task's id (`GET /api/tasks/{id}`).
    pub task_id: String,
    pub status: switchboard_core::CallTaskStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was started, in milliseconds since the Unix epoch.
    pub created_at: i64,
    /// The assistant message holding the call.
    pub message_id: String,
    /// The call (`POST /api/messages/{messageId}/tool-calls/{callId}/cancel` cancels it).
    pub call_id: String,
    pub server_name: String,
    pub tool_name: String,
}

impl PendingTaskBody {
    pub fn of(pending: &switchboard_agent::PendingTask) -> Self {
        Self {
            task_id: pending.task.id.clone(),
            status: pending.task.status,
            status_message: pending.task.status_message.clone(),
            created_at: pending.task.created_at,
            message_id: pending.message_id.clone(),
            call_id: pending.call_id.clone(),
            server_name: pending.server_name.clone(),
            tool_name: pending.tool_name.clone(),
        }
    }
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            retry_after: None,
            key: None,
            params: Vec::new(),
            source: None,
            says_what_to_do: false,
            tasks: None,
        }
    }

    /// The error listing `tasks` (a `TASK_PENDING` answer).
    pub fn with_tasks(mut self, tasks: Vec<PendingTaskBody>) -> Self {
        self.tasks = Some(tasks.into_boxed_slice());
        self
    }

    /// The message says what to do about this very error (install Node.js, check the
    /// address), so the answer carries no hint of its code, which would say something more
    /// general, and sometimes something else.
    pub fn says_what_to_do(mut self) -> Self {
        self.says_what_to_do = true;
        self
    }

    /// The error with `source` kept for the log (see [`ApiError::source`]).
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Arc::new(source));
        self
    }

    /// The message is the locale files' `key` (`error.msg.*`), whose English text is the
    /// `message` given to [`ApiError::new`].
    pub fn key(mut self, key: &'static str) -> Self {
        self.key = Some(key);
        self
    }

    /// A `{name}` value of the key's text.
    pub fn param(mut self, name: &'static str, value: impl ToString) -> Self {
        self.params.push((name, Param::Text(value.to_string())));
        self
    }

    /// A `{name}` value that is itself worded by the locale files.
    pub fn param_words(mut self, name: &'static str, words: Words) -> Self {
        self.params.push((name, Param::Words(words)));
        self
    }

    /// The whole message is `words` (whose English text is the `message` given to
    /// [`ApiError::new`]).
    pub fn words(mut self, words: Words) -> Self {
        self.key = Some(words.key);
        self.params = words
            .params
            .into_iter()
            .map(|(name, value)| (name, Param::Text(value)))
            .collect();
        self
    }

    /// The message in `locale`, as an error answer in that language words it: for errors
    /// reported inside a successful answer (an import's skipped entries).
    pub fn message_in(
        &self,
        texts: &crate::i18n::LocaleTexts,
        locale: switchboard_core::Locale,
    ) -> String {
        let text = ErrorText {
            code: self.code,
            message: self.message.clone(),
            key: self.key,
            params: self.params.clone(),
            timestamp: String::new(),
            says_what_to_do: self.says_what_to_do,
            tasks: None,
        };
        text.body(texts, locale).message
    }

    /// The error with a `Retry-After` header.
    pub fn retry_after(mut self, wait: std::time::Duration) -> Self {
        self.retry_after = Some(wait);
        self
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.code.http_status())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        if status.is_server_error() {
            let chain = self.source.as_deref().map(|e| chain(e)).unwrap_or_default();
            if self.code == ErrorCode::InternalError {
                tracing::error!(message = %self.message, %chain, "internal error");
            } else {
                tracing::warn!(code = %self.code, message = %self.message, %chain, "answered with a server error");
            }
        }
        let (message, key, params) =
            if status.is_server_error() && self.code == ErrorCode::InternalError {
                (
                    "an internal error occurred; it has been logged".to_owned(),
                    Some("error.msg.internal"),
                    Vec::new(),
                )
            } else {
                // Lower layers' words may quote serde's, which name our types.
                let params = self
                    .params
                    .into_iter()
                    .map(|(name, param)| (name, param.without_type_names()))
                    .collect();
                (without_type_names(&self.message), self.key, params)
            };
        let text = ErrorText {
            code: self.code,
            message,
            key,
            params,
            timestamp: humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string(),
            says_what_to_do: self.says_what_to_do,
            tasks: self.tasks.map(Vec::from),
        };
        // English, without a hint, until the localising layer rewrites it.
        let body = ErrorBody {
            code: text.code.as_str(),
            message: text.message.clone(),
            timestamp: text.timestamp.clone(),
            hint: None,
            tasks: text.tasks.clone(),
        };
        let mut response = (status, Json(body)).into_response();
        response.extensions_mut().insert(text);
        if let Some(wait) = self.retry_after {
            let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, seconds.max(1).into());
        }
        response
    }
}

/// `error` and each of its causes, `: `-separated.
fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(next) = cause {
        text.push_str(": ");
        text.push_str(&next.to_string());
        cause = next.source();
    }
    text
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        crate::error_words::store(&e).with_source(e)
    }
}

impl From<McpError> for ApiError {
    fn from(e: McpError) -> Self {
        crate::error_words::mcp(&e).with_source(e)
    }
}

impl From<AgentError> for ApiError {
    fn from(e: AgentError) -> Self {
        crate::error_words::agent(&e).with_source(e)
    }
}

impl From<switchboard_agent::ToolCallError> for ApiError {
    fn from(e: switchboard_agent::ToolCallError) -> Self {
        crate::error_words::tool_call(&e).with_source(e)
    }
}

impl From<switchboard_app::recall::RecallError> for ApiError {
    fn from(e: switchboard_app::recall::RecallError) -> Self {
        crate::error_words::recall(&e)
    }
}

impl From<switchboard_app::AppError> for ApiError {
    fn from(e: switchboard_app::AppError) -> Self {
        crate::error_words::app::app(e)
    }
}

impl From<switchboard_core::Refusal> for ApiError {
    fn from(e: switchboard_core::Refusal) -> Self {
        crate::error_words::app::refusal(&e)
    }
}

impl From<crate::tool_nodes::NodeSaveError> for ApiError {
    fn from(e: crate::tool_nodes::NodeSaveError) -> Self {
        crate::error_words::tool_node::save(&e)
    }
}

impl From<crate::tool_nodes::NodeRunError> for ApiError {
    fn from(e: crate::tool_nodes::NodeRunError) -> Self {
        crate::error_words::tool_node::run(e)
    }
}

impl From<crate::views::ViewSaveError> for ApiError {
    fn from(e: crate::views::ViewSaveError) -> Self {
        crate::error_words::view::save(&e)
    }
}

impl From<ParseError> for ApiError {
    fn from(e: ParseError) -> Self {
        crate::error_words::import_file(&e)
    }
}

impl From<EntryError> for ApiError {
    fn from(e: EntryError) -> Self {
        crate::error_words::import_entry(&e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_error_keeps_its_causes_for_the_log_not_the_answer() {
        let error = ApiError::from(StoreError::Io {
            what: "cannot open the database".into(),
            source: std::io::Error::other("disk on fire"),
        });
        assert_eq!(error.code, ErrorCode::InternalError);
        let kept = chain(
            error
                .source
                .as_deref()
                .map(|e| e as &(dyn std::error::Error + 'static))
                .expect("the source is kept"),
        );
        assert!(kept.starts_with("cannot open the database"), "{kept}");
        assert!(kept.ends_with(": disk on fire"), "{kept}");
        let text = error
            .into_response()
            .extensions()
            .get::<ErrorText>()
            .cloned();
        let message = text.expect("the answer's text").message;
        assert!(!message.contains("disk on fire"), "{message}");
    }
}
