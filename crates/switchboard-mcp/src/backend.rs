//! The interface through which the agent and the HTTP server reach tools, whether the servers
//! run here ([`ConnectionManager`]) or on a remote MCP node.

use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::model::{CallToolResult, JsonObject};
use switchboard_core::{OwnerId, ServerSpec, ToolInfo};

use crate::connection::CallOptions;
use crate::error::McpError;
use crate::manager::ConnectionManager;

/// The tools of one server, or why they could not be listed; one server failing does not hide
/// the others.
pub type ServerTools = (ServerSpec, Result<Arc<Vec<ToolInfo>>, McpError>);

pub trait ToolBackend: Send + Sync {
    /// The enabled tools of each enabled server in `servers`.
    fn tools<'a>(
        &'a self,
        owner: &'a OwnerId,
        servers: &'a [ServerSpec],
    ) -> BoxFuture<'a, Vec<ServerTools>>;

    /// The enabled tools of one server, as a call finds its tool: without a listing's
    /// fan-out over servers (a `join_all`, a copy of the spec, a list of results), which the
    /// proxy paid on every call. The caller checks that the server is enabled.
    fn server_tools<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Arc<Vec<ToolInfo>>, McpError>> {
        Box::pin(async move {
            let listed = self.tools(owner, std::slice::from_ref(server)).await;
            match listed.into_iter().next() {
                Some((_, tools)) => tools,
                None => Ok(Arc::new(Vec::new())),
            }
        })
    }

    /// Calls one tool.
    fn call<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        tool: &'a str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> BoxFuture<'a, Result<CallToolResult, McpError>>;
}

/// A pool that reaches servers one at a time: it lists one server's tools and calls one
/// tool. Every such pool (the local manager, the router over nodes) is a [`ToolBackend`] in
/// the same way, so which servers and tools a listing offers is decided once, here.
pub trait PerServer: Send + Sync {
    /// Every tool `spec`'s server lists (switched-off ones included).
    fn server_listing<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Arc<Vec<ToolInfo>>, McpError>>;

    /// Calls one tool of `spec`'s server.
    fn server_call<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        tool: &'a str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> BoxFuture<'a, Result<CallToolResult, McpError>>;
}

impl<T: PerServer> ToolBackend for T {
    fn tools<'a>(
        &'a self,
        owner: &'a OwnerId,
        servers: &'a [ServerSpec],
    ) -> BoxFuture<'a, Vec<ServerTools>> {
        Box::pin(enabled_tools(servers, move |spec| {
            self.server_listing(owner, spec)
        }))
    }

    fn server_tools<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Arc<Vec<ToolInfo>>, McpError>> {
        let listing = self.server_listing(owner, server);
        Box::pin(async move { Ok(without_disabled(server, listing.await?)) })
    }

    fn call<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        tool: &'a str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> BoxFuture<'a, Result<CallToolResult, McpError>> {
        self.server_call(owner, server, tool, arguments, options)
    }
}

impl PerServer for ConnectionManager {
    fn server_listing<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Arc<Vec<ToolInfo>>, McpError>> {
        Box::pin(self.list_tools(owner, spec))
    }

    fn server_call<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        tool: &'a str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> BoxFuture<'a, Result<CallToolResult, McpError>> {
        Box::pin(self.call_tool(owner, spec, tool, arguments, options))
    }
}

/// What every [`ToolBackend::tools`] answers, wherever the servers run: the tools of each enabled
/// server in `servers`, listed (concurrently) by `list`, without the ones its owner turned off.
pub async fn enabled_tools<'a, F, Fut>(servers: &'a [ServerSpec], list: F) -> Vec<ServerTools>
where
    F: Fn(&'a ServerSpec) -> Fut,
    Fut: Future<Output = Result<Arc<Vec<ToolInfo>>, McpError>>,
{
    let enabled = servers.iter().filter(|spec| spec.enabled);
    let lists = futures::future::join_all(enabled.map(|spec| {
        let listed = list(spec);
        async move {
            let tools = listed.await.map(|tools| without_disabled(spec, tools));
            (spec.clone(), tools)
        }
    }));
    lists.await
}

/// `tools` without those switched off on `spec`.
pub fn without_disabled(spec: &ServerSpec, tools: Arc<Vec<ToolInfo>>) -> Arc<Vec<ToolInfo>> {
    if spec.disabled_tools.is_empty() {
        return tools;
    }
    let kept = tools
        .iter()
        .filter(|tool| spec.offers(&tool.name))
        .cloned()
        .collect();
    Arc::new(kept)
}
