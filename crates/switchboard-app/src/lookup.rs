//! Finding one enabled tool of one of a person's servers, for what describes a single tool
//! (seed 003's action recall and tool detail): the same lookup the tool-call service makes
//! before every call ([`ToolCalls::lookup`]), so that a tool the proxy would refuse is never
//! described as callable.
//!
//! A server that is disabled, a tool switched off on it, and a tool the server does not list
//! all answer the same `MCP_TOOL_NOT_FOUND`: to a caller they are one thing, a tool it cannot
//! use. Another person's server is not found.

use switchboard_agent::{ToolCallError, ToolCalls};
use switchboard_core::{OwnerId, ServerId, ServerSpec, ToolInfo};

use crate::App;

impl App {
    /// `owner`'s server `server` (secrets in clear, for connecting) and its enabled tool
    /// `tool` as the server lists it.
    pub async fn enabled_tool(
        &self,
        owner: &OwnerId,
        server: &str,
        tool: &str,
    ) -> Result<(ServerSpec, ToolInfo), ToolCallError> {
        let spec = self
            .store
            .connection_spec(owner, &ServerId(server.to_owned()))
            .await?;
        let tool = ToolCalls::lookup(&self.tool_calls, owner, &spec, tool).await?;
        Ok((spec, tool))
    }
}
