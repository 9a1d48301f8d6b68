//! Finding one enabled tool of one of the caller's servers, for the routes that describe a
//! single tool (seed 003's action recall and tool detail): the same lookup the tool-call
//! service makes before every call ([`ToolCalls::lookup`]), so that a tool the proxy would
//! refuse is never described as callable.
//!
//! A server that is disabled, a tool switched off on it, and a tool the server does not list
//! all answer the same 404 `MCP_TOOL_NOT_FOUND`: to a caller they are one thing, a tool it
//! cannot use.

use switchboard_agent::{ToolCallError, ToolCalls};
use switchboard_core::{OwnerId, ServerId, ServerSpec, ToolInfo};

use crate::state::AppState;

/// The caller's server `id` with its secrets in clear, for connecting.
pub async fn server(
    state: &AppState,
    owner: &OwnerId,
    id: &str,
) -> Result<ServerSpec, ToolCallError> {
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
) -> Result<ToolInfo, ToolCallError> {
    ToolCalls::lookup(&state.tool_calls, owner, spec, tool).await
}
