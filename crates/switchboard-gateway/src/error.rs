//! What can go wrong in the gateway, and how each is answered over MCP.

use rmcp::ErrorData;
use switchboard_core::ErrorCode;
use switchboard_mcp::McpError;
use switchboard_store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// A request reached the handler without a scope (a server wiring bug, never a client's).
    #[error("the request carries no caller")]
    NoScope,
    #[error("this session belongs to another caller or view")]
    SessionMismatch,
    #[error("no view named `{0}`")]
    ViewNotFound(String),
    #[error("no tool named `{0}`")]
    ToolNotFound(String),
    #[error("no prompt named `{0}`")]
    PromptNotFound(String),
    #[error("no resource `{0}`")]
    ResourceNotFound(String),
    /// Unknown, or started by another person or through another view.
    #[error("no task `{0}`")]
    TaskNotFound(String),
    #[error("task `{0}` takes no input through the gateway")]
    TaskTakesNoInput(String),
    /// A 2025-11-25 client asked for a task of a tool not listed as one.
    #[error("`{0}` does not run as a task")]
    NotATaskTool(String),
    /// `tasks/result` waited as long as it may.
    #[error("task `{0}` is still running: ask for its result again")]
    TaskStillRunning(String),
    #[error("task `{0}` was cancelled")]
    TaskCancelled(String),
    #[error("the cursor is not one this server gave")]
    BadCursor,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Mcp(#[from] McpError),
}

impl GatewayError {
    pub fn code(&self) -> ErrorCode {
        match self {
            GatewayError::NoScope => ErrorCode::InternalError,
            GatewayError::SessionMismatch => ErrorCode::Forbidden,
            GatewayError::ViewNotFound(_) => ErrorCode::NotFound,
            GatewayError::ToolNotFound(_) => ErrorCode::McpToolNotFound,
            GatewayError::PromptNotFound(_)
            | GatewayError::ResourceNotFound(_)
            | GatewayError::TaskNotFound(_) => ErrorCode::NotFound,
            GatewayError::TaskTakesNoInput(_)
            | GatewayError::NotATaskTool(_)
            | GatewayError::BadCursor => ErrorCode::ValidationError,
            GatewayError::TaskStillRunning(_) => ErrorCode::TaskPending,
            GatewayError::TaskCancelled(_) => ErrorCode::Cancelled,
            GatewayError::Store(e) => e.code(),
            GatewayError::Mcp(e) => e.code(),
        }
    }
}

impl From<GatewayError> for ErrorData {
    fn from(error: GatewayError) -> Self {
        let message = error.to_string();
        let data = Some(serde_json::json!({ "code": error.code() }));
        match error {
            GatewayError::ToolNotFound(_)
            | GatewayError::PromptNotFound(_)
            | GatewayError::ViewNotFound(_)
            | GatewayError::TaskNotFound(_)
            | GatewayError::TaskTakesNoInput(_)
            | GatewayError::BadCursor => ErrorData::invalid_params(message, data),
            // The 2025-11-25 revision: a task asked of a tool that is not one is -32601.
            GatewayError::NotATaskTool(_) => {
                ErrorData::new(rmcp::model::ErrorCode::METHOD_NOT_FOUND, message, data)
            }
            GatewayError::TaskStillRunning(_) | GatewayError::TaskCancelled(_) => {
                ErrorData::internal_error(message, data)
            }
            // SEP-2164: the requested URI goes back in `data.uri`; it is the client's own.
            GatewayError::ResourceNotFound(uri) => ErrorData::resource_not_found(
                message,
                Some(serde_json::json!({ "code": ErrorCode::NotFound, "uri": uri })),
            ),
            GatewayError::SessionMismatch => ErrorData::invalid_request(message, data),
            // An MCP error's text is made to be quoted (see switchboard-mcp's upstream_text).
            GatewayError::Mcp(_) => ErrorData::internal_error(message, data),
            // A store error of the caller's making (not found, a quota) says so in our words.
            GatewayError::Store(ref e) if e.code().http_status() < 500 => {
                ErrorData::internal_error(message, data)
            }
            // Ours or the database's detail (sqlx's words, a row's content) is for the log,
            // not for the client.
            GatewayError::NoScope | GatewayError::Store(_) => {
                tracing::error!(%error, "gateway: internal error");
                ErrorData::internal_error("internal error", data)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_errors_reach_the_client_without_their_detail() {
        let error = GatewayError::Store(StoreError::Corrupt {
            entity: switchboard_store::Entity::Server,
            id: "s1".into(),
            reason: "password=hunter2 in row".into(),
        });
        let code = error.code();
        let data = ErrorData::from(error);
        assert_eq!(data.message, "internal error");
        assert!(!data.to_string().contains("hunter2"));
        assert_eq!(data.data, Some(serde_json::json!({ "code": code })));
    }

    #[test]
    fn a_missing_resource_names_the_requested_uri() {
        let error = ErrorData::from(GatewayError::ResourceNotFound("test://gone".to_owned()));
        assert_eq!(error.code, rmcp::model::ErrorCode::RESOURCE_NOT_FOUND);
        let data = error.data.unwrap_or_default();
        assert_eq!(data["uri"], "test://gone");
        assert_eq!(data["code"], serde_json::json!(ErrorCode::NotFound));
    }
}
