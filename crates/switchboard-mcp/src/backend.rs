//! The interface through which the agent and the HTTP server reach tools, whether the servers
//! run here ([`ConnectionManager`]) or on a remote MCP node.

use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::model::{CallToolResult, InputResponses, JsonObject};
use switchboard_core::{OwnerId, ServerSpec, ToolInfo};

use crate::connection::CallOptions;
use crate::error::McpError;
use crate::manager::ConnectionManager;
use crate::tasks::{Started, TaskState};

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

    /// Starts one tool call as a task where its server runs it as one; any other call is
    /// made as [`Self::call`] makes it, and answered at once. A backend that cannot follow
    /// tasks answers every call at once.
    fn start_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        tool: &'a str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> BoxFuture<'a, Result<Started, McpError>> {
        Box::pin(async move {
            let result = self.call(owner, server, tool, arguments, options).await?;
            Ok(Started::Done(result))
        })
    }

    /// The state of the server's task `step.upstream_id` now.
    fn task_state<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        step: TaskStep<'a>,
    ) -> BoxFuture<'a, Result<TaskState, McpError>> {
        let _ = (owner, step);
        Box::pin(async move { Err(no_tasks(server)) })
    }

    /// The outcome of the server's ended task (the tool's result, or the error a plain call
    /// would have given), waiting up to `wait` for it; the server's questions meanwhile go
    /// to `options.requests`.
    fn task_outcome<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        step: TaskStep<'a>,
        options: CallOptions,
        wait: std::time::Duration,
    ) -> BoxFuture<'a, Result<CallToolResult, McpError>> {
        let _ = (owner, step, options, wait);
        Box::pin(async move { Err(no_tasks(server)) })
    }

    /// Asks the server to cancel its task; the task's state after.
    fn cancel_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        step: TaskStep<'a>,
    ) -> BoxFuture<'a, Result<TaskState, McpError>> {
        let _ = (owner, step);
        Box::pin(async move { Err(no_tasks(server)) })
    }

    /// Gives the server's task (of the 2026-07-28 extension) the answers to its questions,
    /// by the keys of its `input_requests` (`tasks/update`); acknowledged at once, taken in
    /// by the server eventually.
    fn update_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        step: TaskStep<'a>,
        responses: InputResponses,
    ) -> BoxFuture<'a, Result<(), McpError>> {
        let _ = (owner, step, responses);
        Box::pin(async move { Err(no_tasks(server)) })
    }
}

/// Which task of a server a step is about: the server's own id of it, and the tool it runs.
#[derive(Debug, Clone, Copy)]
pub struct TaskStep<'a> {
    pub tool: &'a str,
    pub upstream_id: &'a str,
}

/// What a backend that does not follow tasks answers a step of one (it never starts one, so
/// only a task kept from another backend, such as a node's, gets here).
fn no_tasks(server: &ServerSpec) -> McpError {
    McpError::Protocol {
        server: server.name.clone(),
        detail: "its tasks cannot be followed where it runs".to_owned(),
    }
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

    /// [`ToolBackend::start_task`] on `spec`'s server.
    fn server_start_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        tool: &'a str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> BoxFuture<'a, Result<Started, McpError>> {
        Box::pin(async move {
            let result = self
                .server_call(owner, spec, tool, arguments, options)
                .await?;
            Ok(Started::Done(result))
        })
    }

    /// [`ToolBackend::task_state`] on `spec`'s server.
    fn server_task_state<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        step: TaskStep<'a>,
    ) -> BoxFuture<'a, Result<TaskState, McpError>> {
        let _ = (owner, step);
        Box::pin(async move { Err(no_tasks(spec)) })
    }

    /// [`ToolBackend::task_outcome`] on `spec`'s server.
    fn server_task_outcome<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        step: TaskStep<'a>,
        options: CallOptions,
        wait: std::time::Duration,
    ) -> BoxFuture<'a, Result<CallToolResult, McpError>> {
        let _ = (owner, step, options, wait);
        Box::pin(async move { Err(no_tasks(spec)) })
    }

    /// [`ToolBackend::cancel_task`] on `spec`'s server.
    fn server_cancel_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        step: TaskStep<'a>,
    ) -> BoxFuture<'a, Result<TaskState, McpError>> {
        let _ = (owner, step);
        Box::pin(async move { Err(no_tasks(spec)) })
    }

    /// [`ToolBackend::update_task`] on `spec`'s server.
    fn server_update_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        step: TaskStep<'a>,
        responses: InputResponses,
    ) -> BoxFuture<'a, Result<(), McpError>> {
        let _ = (owner, step, responses);
        Box::pin(async move { Err(no_tasks(spec)) })
    }
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

    fn start_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        tool: &'a str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> BoxFuture<'a, Result<Started, McpError>> {
        self.server_start_task(owner, server, tool, arguments, options)
    }

    fn task_state<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        step: TaskStep<'a>,
    ) -> BoxFuture<'a, Result<TaskState, McpError>> {
        self.server_task_state(owner, server, step)
    }

    fn task_outcome<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        step: TaskStep<'a>,
        options: CallOptions,
        wait: std::time::Duration,
    ) -> BoxFuture<'a, Result<CallToolResult, McpError>> {
        self.server_task_outcome(owner, server, step, options, wait)
    }

    fn cancel_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        step: TaskStep<'a>,
    ) -> BoxFuture<'a, Result<TaskState, McpError>> {
        self.server_cancel_task(owner, server, step)
    }

    fn update_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        step: TaskStep<'a>,
        responses: InputResponses,
    ) -> BoxFuture<'a, Result<(), McpError>> {
        self.server_update_task(owner, server, step, responses)
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

    fn server_start_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        tool: &'a str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> BoxFuture<'a, Result<Started, McpError>> {
        Box::pin(self.start_tool_task(owner, spec, tool, arguments, options))
    }

    fn server_task_state<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        step: TaskStep<'a>,
    ) -> BoxFuture<'a, Result<TaskState, McpError>> {
        Box::pin(self.tool_task(
            owner,
            spec,
            step.tool,
            step.upstream_id,
            CallOptions::default(),
        ))
    }

    fn server_task_outcome<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        step: TaskStep<'a>,
        options: CallOptions,
        wait: std::time::Duration,
    ) -> BoxFuture<'a, Result<CallToolResult, McpError>> {
        Box::pin(self.tool_task_result(owner, spec, step.tool, step.upstream_id, options, wait))
    }

    fn server_cancel_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        step: TaskStep<'a>,
    ) -> BoxFuture<'a, Result<TaskState, McpError>> {
        Box::pin(self.cancel_tool_task(owner, spec, step.tool, step.upstream_id))
    }

    fn server_update_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        step: TaskStep<'a>,
        responses: InputResponses,
    ) -> BoxFuture<'a, Result<(), McpError>> {
        Box::pin(self.update_tool_task(owner, spec, step.tool, step.upstream_id, responses))
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
