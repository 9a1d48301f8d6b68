//! The [`ServerPool`] and [`ToolBackend`] of the [`Router`]: each method asks the local manager
//! or the server's node.

use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::model::{
    CallToolResult, CompleteRequestParams, CompleteResult, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, JsonObject, Prompt, ReadResourceResult, Resource,
    ResourceTemplate,
};
use switchboard_core::{OwnerId, ServerSpec, ToolInfo};
use switchboard_mcp::oauth::PendingSignIn;
use switchboard_mcp::{
    CallOptions, ConnectionSnapshot, ConnectionStatus, ManagerConfig, McpError, NodeHealth,
    PerServer, PromptInput, ResourceUpdate, ServerPool, ServerReport, Started, StatusChange,
    TaskState, TaskStep,
};
use tokio::sync::broadcast;

use super::{Route, Router};

impl Router {
    async fn tools_of(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
    ) -> Result<Arc<Vec<ToolInfo>>, McpError> {
        match self.route(spec)? {
            Route::Local => self.local.list_tools(owner, spec).await,
            // A node's gRPC call is a large future; boxed, a local listing does not carry
            // (and copy) its size.
            Route::Node(node) => {
                Box::pin(self.on_node(owner, spec, node, |server| async move {
                    node.get_tools(spec, server).await
                }))
                .await
            }
        }
    }

    async fn call_tool(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        tool: &str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> Result<CallToolResult, McpError> {
        match self.route(spec)? {
            Route::Local => {
                self.local
                    .call_tool(owner, spec, tool, arguments, options)
                    .await
            }
            // Boxed, as in `tools_of`.
            Route::Node(node) => {
                Box::pin(self.on_node(owner, spec, node, |server| {
                    let (arguments, options) = (arguments.clone(), options.clone());
                    async move { node.call_tool(spec, server, tool, arguments, options).await }
                }))
                .await
            }
        }
    }
}

impl PerServer for Router {
    fn server_listing<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Arc<Vec<ToolInfo>>, McpError>> {
        Box::pin(self.tools_of(owner, spec))
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

    /// A tool may run as a task wherever its server runs: a node's server starts it on the
    /// node's connection, which the task's later steps reach (see `task_state`).
    fn server_start_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        tool: &'a str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> BoxFuture<'a, Result<Started, McpError>> {
        Box::pin(async move {
            match self.route(spec)? {
                Route::Local => {
                    self.local
                        .start_tool_task(owner, spec, tool, arguments, options)
                        .await
                }
                Route::Node(node) => {
                    self.on_node(owner, spec, node, |server| {
                        let (arguments, options) = (arguments.clone(), options.clone());
                        async move {
                            node.start_task(spec, server, tool, arguments, options)
                                .await
                        }
                    })
                    .await
                }
            }
        })
    }

    /// A node keeps no task: each step names the task, and the node sends it on the
    /// connection of the same (owner, server), which started it.
    fn server_task_state<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        step: TaskStep<'a>,
    ) -> BoxFuture<'a, Result<TaskState, McpError>> {
        Box::pin(async move {
            match self.route(spec)? {
                Route::Local => self.local.server_task_state(owner, spec, step).await,
                Route::Node(node) => {
                    self.on_node(owner, spec, node, |server| async move {
                        node.get_task(spec, server, step).await
                    })
                    .await
                }
            }
        })
    }

    fn server_task_outcome<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        step: TaskStep<'a>,
        options: CallOptions,
        wait: std::time::Duration,
    ) -> BoxFuture<'a, Result<CallToolResult, McpError>> {
        Box::pin(async move {
            match self.route(spec)? {
                Route::Local => {
                    self.local
                        .server_task_outcome(owner, spec, step, options, wait)
                        .await
                }
                Route::Node(node) => {
                    self.on_node(owner, spec, node, |server| {
                        let options = options.clone();
                        async move { node.task_outcome(spec, server, step, options, wait).await }
                    })
                    .await
                }
            }
        })
    }

    fn server_cancel_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        step: TaskStep<'a>,
    ) -> BoxFuture<'a, Result<TaskState, McpError>> {
        Box::pin(async move {
            match self.route(spec)? {
                Route::Local => self.local.server_cancel_task(owner, spec, step).await,
                Route::Node(node) => {
                    self.on_node(owner, spec, node, |server| async move {
                        node.cancel_task(spec, server, step).await
                    })
                    .await
                }
            }
        })
    }

    fn server_update_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        step: TaskStep<'a>,
        responses: rmcp::model::InputResponses,
    ) -> BoxFuture<'a, Result<(), McpError>> {
        Box::pin(async move {
            match self.route(spec)? {
                Route::Local => {
                    self.local
                        .server_update_task(owner, spec, step, responses)
                        .await
                }
                Route::Node(node) => {
                    self.on_node(owner, spec, node, |server| {
                        let responses = &responses;
                        async move { node.update_task(spec, server, step, responses).await }
                    })
                    .await
                }
            }
        })
    }
}

impl ServerPool for Router {
    fn config(&self) -> &ManagerConfig {
        self.local.config()
    }

    fn list_tools<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Arc<Vec<ToolInfo>>, McpError>> {
        Box::pin(self.tools_of(owner, spec))
    }

    fn list_resources<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Vec<Resource>, McpError>> {
        Box::pin(async move {
            match self.route(spec)? {
                Route::Local => self.local.list_resources(owner, spec).await,
                Route::Node(node) => {
                    self.on_node(owner, spec, node, |server| async move {
                        node.list_resources(spec, server).await
                    })
                    .await
                }
            }
        })
    }

    fn read_resource<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        uri: &'a str,
    ) -> BoxFuture<'a, Result<ReadResourceResult, McpError>> {
        Box::pin(async move {
            match self.route(spec)? {
                Route::Local => self.local.read_resource(owner, spec, uri).await,
                Route::Node(node) => {
                    self.on_node(owner, spec, node, |server| async move {
                        node.read_resource(spec, server, uri).await
                    })
                    .await
                }
            }
        })
    }

    fn list_resource_templates<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Vec<ResourceTemplate>, McpError>> {
        Box::pin(async move {
            match self.route(spec)? {
                Route::Local => self.local.list_resource_templates(owner, spec).await,
                Route::Node(node) => {
                    self.on_node(owner, spec, node, |server| async move {
                        node.list_resource_templates(spec, server).await
                    })
                    .await
                }
            }
        })
    }

    fn subscribe_resource<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        uri: &'a str,
    ) -> BoxFuture<'a, Result<(), McpError>> {
        Box::pin(async move {
            match self.route(spec)? {
                Route::Local => self.local.subscribe_resource(owner, spec, uri, true).await,
                Route::Node(node) => {
                    self.on_node(owner, spec, node, |server| async move {
                        node.subscribe_resource(spec, server, uri, true).await
                    })
                    .await
                }
            }
        })
    }

    fn unsubscribe_resource<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        uri: &'a str,
    ) -> BoxFuture<'a, Result<(), McpError>> {
        Box::pin(async move {
            match self.route(spec)? {
                Route::Local => self.local.subscribe_resource(owner, spec, uri, false).await,
                Route::Node(node) => {
                    self.on_node(owner, spec, node, |server| async move {
                        node.subscribe_resource(spec, server, uri, false).await
                    })
                    .await
                }
            }
        })
    }

    /// The local manager's and every node's (carried on the node's watch stream).
    fn resource_updates(&self) -> broadcast::Receiver<ResourceUpdate> {
        self.heard.updates.subscribe()
    }

    fn complete<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        params: CompleteRequestParams,
    ) -> BoxFuture<'a, Result<CompleteResult, McpError>> {
        Box::pin(async move {
            match self.route(spec)? {
                Route::Local => self.local.complete(owner, spec, params).await,
                Route::Node(node) => {
                    self.on_node(owner, spec, node, |server| {
                        let params = &params;
                        async move { node.complete(spec, server, params).await }
                    })
                    .await
                }
            }
        })
    }

    fn list_prompts<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Vec<Prompt>, McpError>> {
        Box::pin(async move {
            match self.route(spec)? {
                Route::Local => self.local.list_prompts(owner, spec).await,
                Route::Node(node) => {
                    self.on_node(owner, spec, node, |server| async move {
                        node.list_prompts(spec, server).await
                    })
                    .await
                }
            }
        })
    }

    fn get_prompt<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        name: &'a str,
        arguments: Option<JsonObject>,
    ) -> BoxFuture<'a, Result<GetPromptResult, McpError>> {
        Box::pin(async move {
            match self.route(spec)? {
                Route::Local => self.local.get_prompt(owner, spec, name, arguments).await,
                Route::Node(node) => {
                    self.on_node(owner, spec, node, |server| {
                        let arguments = arguments.clone();
                        async move { node.get_prompt(spec, server, name, arguments).await }
                    })
                    .await
                }
            }
        })
    }

    fn get_prompt_with<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        params: GetPromptRequestParams,
        input: PromptInput,
    ) -> BoxFuture<'a, Result<GetPromptResponse, McpError>> {
        Box::pin(async move {
            match self.route(spec)? {
                Route::Local => self.local.get_prompt_with(owner, spec, params, input).await,
                Route::Node(node) => self.prompt_on_node(owner, spec, node, params, input).await,
            }
        })
    }

    fn test_connection<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<ServerReport, McpError>> {
        Box::pin(async move {
            match self.route(spec)? {
                Route::Local => self.local.test_connection(owner, spec).await,
                Route::Node(node) => {
                    self.on_node(owner, spec, node, |server| async move {
                        node.test_connection(spec, server).await
                    })
                    .await
                }
            }
        })
    }

    fn start_sign_in<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        redirect_uri: &'a str,
    ) -> BoxFuture<'a, Result<String, McpError>> {
        Box::pin(self.start_sign_in_for(owner, spec, redirect_uri))
    }

    fn finish_sign_in<'a>(
        &'a self,
        spec: &'a ServerSpec,
        pending: PendingSignIn,
        code: &'a str,
        issuer: Option<&'a str>,
    ) -> BoxFuture<'a, Result<(), McpError>> {
        Box::pin(self.finish_sign_in_for(spec, pending, code, issuer))
    }

    fn snapshot(&self, owner: &OwnerId, spec: &ServerSpec) -> ConnectionSnapshot {
        match self.route(spec) {
            Ok(Route::Local) => self.local.snapshot(owner, &spec.id),
            Ok(Route::Node(node)) => node.snapshot(owner, &spec.id),
            Err(error) => ConnectionSnapshot {
                status: ConnectionStatus::Error,
                last_error: Some(error.to_string()),
                last_active_at: None,
                server: None,
            },
        }
    }

    fn status_changes(&self) -> broadcast::Receiver<StatusChange> {
        self.changes.subscribe()
    }

    /// The local manager's and every node's (carried on the node's watch stream).
    fn list_changes(&self) -> broadcast::Receiver<switchboard_mcp::ListChange> {
        self.heard.lists.subscribe()
    }

    /// The local connection always (the server may have run here before it was moved to a
    /// node), and the node's when the server names one.
    fn disconnect<'a>(&'a self, owner: &'a OwnerId, spec: &'a ServerSpec) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            self.local.disconnect(owner, &spec.id).await;
            if let Ok(Route::Node(node)) = self.route(spec)
                && let Err(error) = node.disconnect(owner, &spec.id).await
            {
                tracing::debug!(node = node.name(), %error, "could not close a connection on a node");
            }
        })
    }

    fn update_roots(&self, owner: &OwnerId, spec: &ServerSpec) {
        if !matches!(self.route(spec), Ok(Route::Node(_))) {
            self.local.update_roots(owner, spec);
        }
    }

    /// The local manager's lines for a server that runs here; a node's server's lines as its
    /// watch stream brought them.
    fn server_log(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
    ) -> Vec<switchboard_mcp::ServerLogLine> {
        match self.route(spec) {
            Ok(Route::Node(_)) => self.heard.logs.lines(owner, &spec.id),
            _ => self.local.server_log(owner, &spec.id),
        }
    }

    fn nodes(&self) -> Vec<NodeHealth> {
        self.nodes.iter().map(|node| node.health()).collect()
    }

    fn shutdown(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            self.stop.cancel();
            self.local.shutdown().await;
        })
    }
}
