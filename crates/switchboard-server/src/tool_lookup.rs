//! Finding one enabled tool of one of the caller's servers: the check every route that names a
//! single tool makes before it uses it (the proxy before a call, seed 003's action recall and
//! tool detail before they describe it), so that a tool the proxy would refuse is never
//! described as callable.
//!
//! A server that is disabled, a tool switched off on it, and a tool the server does not list
//! all answer the same 404 `MCP_TOOL_NOT_FOUND`: to a caller they are one thing, a tool it
//! cannot use.

use switchboard_core::{ErrorCode, OwnerId, ServerId, ServerSpec, ToolInfo};
use switchboard_mcp::McpError;
use switchboard_store::StoreError;

use crate::state::AppState;

/// Why a tool could not be found.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LookupError {
    /// The server is not the caller's, or the store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The server could not list its tools (down, refused, timed out).
    #[error(transparent)]
    Mcp(#[from] McpError),
    /// The server is disabled, the tool is switched off, or the server has no such tool.
    #[error("server {server:?} has no enabled tool {tool:?}")]
    ToolNotFound { server: String, tool: String },
}

impl LookupError {
    pub fn code(&self) -> ErrorCode {
        match self {
            LookupError::Store(e) => e.code(),
            LookupError::Mcp(e) => e.code(),
            LookupError::ToolNotFound { .. } => ErrorCode::McpToolNotFound,
        }
    }
}

/// The caller's server `id` with its secrets in clear, for connecting.
pub async fn server(
    state: &AppState,
    owner: &OwnerId,
    id: &str,
) -> Result<ServerSpec, LookupError> {
    Ok(state
        .store
        .connection_spec(owner, &ServerId(id.to_owned()))
        .await?)
}

/// The tool `tool` of `spec` as the server lists it, when the server is enabled and the tool
/// not switched off.
pub async fn enabled_tool(
    state: &AppState,
    owner: &OwnerId,
    spec: &ServerSpec,
    tool: &str,
) -> Result<ToolInfo, LookupError> {
    let not_found = || LookupError::ToolNotFound {
        server: spec.name.clone(),
        tool: tool.to_owned(),
    };
    if !spec.enabled || spec.disabled_tools.contains(tool) {
        return Err(not_found());
    }
    let tools = state.manager.list_tools(owner, spec).await?;
    tools
        .iter()
        .find(|t| t.name == tool)
        .cloned()
        .ok_or_else(not_found)
}
