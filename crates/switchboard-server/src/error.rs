//! The one place errors become HTTP responses: `{code, message, timestamp}` with the status of
//! the code (DESIGN.md "HTTP API"). Handlers return `Result<_, ApiError>` and use `?`; every
//! domain error converts here. Details of 5xx errors are logged, not sent.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use switchboard_agent::AgentError;
use switchboard_core::ErrorCode;
use switchboard_core::import::{EntryError, ParseError};
use switchboard_mcp::McpError;
use switchboard_store::StoreError;

/// An error on its way to the client.
#[derive(Debug)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    /// Sent as `Retry-After` (whole seconds, rounded up), for 429 answers.
    pub retry_after: Option<std::time::Duration>,
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
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            retry_after: None,
        }
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
        let message = if status.is_server_error() && self.code == ErrorCode::InternalError {
            tracing::error!(message = %self.message, "internal error");
            "an internal error occurred; it has been logged".to_owned()
        } else {
            self.message
        };
        let body = ErrorBody {
            code: self.code.as_str(),
            message,
            timestamp: humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string(),
        };
        let mut response = (status, Json(body)).into_response();
        if let Some(wait) = self.retry_after {
            let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, seconds.max(1).into());
        }
        response
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        ApiError::new(e.code(), e.to_string())
    }
}

impl From<McpError> for ApiError {
    fn from(e: McpError) -> Self {
        ApiError::new(e.code(), e.to_string())
    }
}

impl From<AgentError> for ApiError {
    fn from(e: AgentError) -> Self {
        ApiError::new(e.code(), e.to_string())
    }
}

impl From<ParseError> for ApiError {
    fn from(e: ParseError) -> Self {
        ApiError::new(e.code(), e.to_string())
    }
}

impl From<EntryError> for ApiError {
    fn from(e: EntryError) -> Self {
        ApiError::new(e.code(), e.to_string())
    }
}
