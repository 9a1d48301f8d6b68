//! Why a tool call was not answered, each reason with the code the API reports it with.

use switchboard_core::{ErrorCode, ResolveError};
use switchboard_mcp::McpError;
use switchboard_schema::validate::ArgumentsError;
use switchboard_store::StoreError;

use super::Attempt;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolCallError {
    /// The server is disabled, the tool is switched off, or the server does not list it.
    /// 404 `MCP_TOOL_NOT_FOUND`: to a caller these are one thing, a tool it cannot use.
    #[error("server {server:?} has no enabled tool {tool:?}")]
    ToolNotFound { server: String, tool: String },
    /// The node does not select the tool, or selects it with `enabled: false`. 404
    /// `MCP_TOOL_NOT_FOUND`, as a tool outside the node is not one it can call.
    #[error("tool node {node:?} does not offer the tool {tool:?}")]
    NotSelected { node: String, tool: String },
    /// The node is for another server than the one called. 400 `VALIDATION_ERROR`.
    #[error("tool node {node:?} is for another server than {server:?}")]
    OtherServer { node: String, server: String },
    /// A mapped parameter needs a variable that has no value and no default (seed 002
    /// property 7: never skipped silently). 400 `MCP_INVALID_PARAMS`.
    #[error(transparent)]
    MissingVariable(#[from] ResolveError),
    /// The arguments, mappings applied, do not fit the tool's schema (400
    /// `MCP_INVALID_PARAMS`), or the schema cannot be used (500 `SCHEMA_ERROR`).
    #[error(transparent)]
    InvalidParams(#[from] ArgumentsError),
    /// The server could not list its tools, or the call failed after every attempt allowed.
    #[error("{error}")]
    Mcp {
        #[source]
        error: McpError,
        /// The attempts made; empty when the tool could not be looked up.
        attempts: Vec<Attempt>,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl ToolCallError {
    pub fn code(&self) -> ErrorCode {
        match self {
            ToolCallError::ToolNotFound { .. } | ToolCallError::NotSelected { .. } => {
                ErrorCode::McpToolNotFound
            }
            ToolCallError::OtherServer { .. } => ErrorCode::ValidationError,
            ToolCallError::MissingVariable(_) => ErrorCode::McpInvalidParams,
            ToolCallError::InvalidParams(e) => e.code(),
            ToolCallError::Mcp { error, .. } => error.code(),
            ToolCallError::Store(e) => e.code(),
        }
    }

    /// The attempts made before the call failed (none when it was refused before sending).
    pub fn attempts(&self) -> &[Attempt] {
        match self {
            ToolCallError::Mcp { attempts, .. } => attempts,
            _ => &[],
        }
    }
}

impl From<McpError> for ToolCallError {
    /// A failure with no attempt made (a listing).
    fn from(error: McpError) -> Self {
        ToolCallError::Mcp {
            error,
            attempts: Vec::new(),
        }
    }
}
