//! [`ServerPool`]: everything the host does with MCP servers, wherever they run.
//!
//! The local [`ConnectionManager`] is one pool; the router (in `switchboard-grpc`) is
//! another, sending each server with a `node` to that node over gRPC and the rest to a local
//! manager. The HTTP server, the agent and the CLI hold an `Arc<dyn ServerPool>` and never ask
//! where a server runs.

use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, JsonObject, Prompt, ReadResourceResult, Resource, ResourceTemplate,
};
use serde::{Deserialize, Serialize};
use switchboard_core::{OwnerId, ServerSpec, ToolInfo};
use tokio::sync::broadcast;

use crate::backend::ToolBackend;
use crate::config::ManagerConfig;
use crate::connection::PromptInput;
use crate::error::McpError;
use crate::manager::{ConnectionManager, ConnectionSnapshot, ServerReport, StatusChange};
use crate::oauth::PendingSignIn;

/// A pool of MCP servers: the local manager, or a router over nodes and a local manager. Its
/// [`ToolBackend`] half lists and calls tools.
pub trait ServerPool: ToolBackend {
    /// The local manager's settings (time limits, retry policy).
    fn config(&self) -> &ManagerConfig;

    /// Every tool of `spec` (disabled ones included), from the cache when it is fresh.
    fn list_tools<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Arc<Vec<ToolInfo>>, McpError>>;

    fn list_resources<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Vec<Resource>, McpError>>;

    fn read_resource<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        uri: &'a str,
    ) -> BoxFuture<'a, Result<ReadResourceResult, McpError>>;

    /// Every resource template of `spec` (the gateway re-exports them). The
    /// defaults of this and the other issue-16 methods describe a pool with no resources,
    /// templates or completions, so a test double need not implement them.
    fn list_resource_templates<'a>(
        &'a self,
        _owner: &'a OwnerId,
        _spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Vec<ResourceTemplate>, McpError>> {
        Box::pin(async { Ok(Vec::new()) })
    }

    /// Starts `notifications/resources/updated` for `uri` on the connection to `spec`; they
    /// arrive on [`resource_updates`](Self::resource_updates). A server that does not offer
    /// subscriptions is not asked (`Ok`, and no update ever comes). The subscription lasts
    /// as long as the connection: after a reconnect it is gone.
    fn subscribe_resource<'a>(
        &'a self,
        _owner: &'a OwnerId,
        _spec: &'a ServerSpec,
        _uri: &'a str,
    ) -> BoxFuture<'a, Result<(), McpError>> {
        Box::pin(async { Ok(()) })
    }

    /// Ends a subscription made by [`subscribe_resource`](Self::subscribe_resource).
    fn unsubscribe_resource<'a>(
        &'a self,
        _owner: &'a OwnerId,
        _spec: &'a ServerSpec,
        _uri: &'a str,
    ) -> BoxFuture<'a, Result<(), McpError>> {
        Box::pin(async { Ok(()) })
    }

    /// Every `notifications/resources/updated` a server sent (by default none: the channel
    /// is closed at once).
    fn resource_updates(&self) -> broadcast::Receiver<ResourceUpdate> {
        broadcast::channel(1).1
    }

    /// `completion/complete` on `spec`, `params` in the server's own names.
    fn complete<'a>(
        &'a self,
        _owner: &'a OwnerId,
        _spec: &'a ServerSpec,
        _params: CompleteRequestParams,
    ) -> BoxFuture<'a, Result<CompleteResult, McpError>> {
        Box::pin(async { Ok(CompleteResult::default()) })
    }

    fn list_prompts<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Vec<Prompt>, McpError>>;

    fn get_prompt<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        name: &'a str,
        arguments: Option<JsonObject>,
    ) -> BoxFuture<'a, Result<GetPromptResult, McpError>>;

    /// `prompts/get` with the request's own input responses and state, a 2026-07-28 server's
    /// input-required answer handled as `input` says. Where that cannot be carried (a remote
    /// node), the prompt is fetched as [`get_prompt`](Self::get_prompt) does.
    fn get_prompt_with<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        params: GetPromptRequestParams,
        input: PromptInput,
    ) -> BoxFuture<'a, Result<GetPromptResponse, McpError>> {
        let _ = input;
        Box::pin(async move {
            let name = params.name.to_string();
            self.get_prompt(owner, spec, &name, params.arguments)
                .await
                .map(GetPromptResponse::Complete)
        })
    }

    /// Connects to `spec` just to look, then closes that connection; the pool is not touched.
    fn test_connection<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<ServerReport, McpError>>;

    /// Starts `owner`'s OAuth sign-in to `spec` (see [`ConnectionManager::start_sign_in`]):
    /// the authorization URL, which comes back to `redirect_uri`. The flow is kept by the
    /// host's sign-ins; its requests go out from where the server runs.
    fn start_sign_in<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        redirect_uri: &'a str,
    ) -> BoxFuture<'a, Result<String, McpError>>;

    /// Finishes a sign-in taken with [`SignIns::take`](crate::oauth::SignIns::take) (see
    /// [`ConnectionManager::finish_sign_in`]), wherever the server runs.
    fn finish_sign_in<'a>(
        &'a self,
        spec: &'a ServerSpec,
        pending: PendingSignIn,
        code: &'a str,
        issuer: Option<&'a str>,
    ) -> BoxFuture<'a, Result<(), McpError>>;

    /// The state of the connection to `spec` (for a server on a node that cannot be reached:
    /// `error`, saying so).
    fn snapshot(&self, owner: &OwnerId, spec: &ServerSpec) -> ConnectionSnapshot;

    /// Every status change of every connection, local and on nodes.
    fn status_changes(&self) -> broadcast::Receiver<StatusChange>;

    /// Every `notifications/{tools,resources,prompts}/list_changed` a server sent, local and
    /// on nodes (the gateway tells its clients).
    fn list_changes(&self) -> broadcast::Receiver<ListChange>;

    /// Closes the connection to `spec` wherever it is (after it was changed or removed).
    fn disconnect<'a>(&'a self, owner: &'a OwnerId, spec: &'a ServerSpec) -> BoxFuture<'a, ()>;

    /// Tells the open connection to `spec`, if any, its edited roots (by default nothing: a
    /// server on a node learns them with its next request's spec).
    fn update_roots(&self, _owner: &OwnerId, _spec: &ServerSpec) {}

    /// What `spec`'s server logged, kept by the pool (see
    /// [`ConnectionManager::server_log`]); by default nothing (a server on a node: its lines
    /// stay on the node).
    fn server_log(&self, _owner: &OwnerId, _spec: &ServerSpec) -> Vec<crate::ServerLogLine> {
        Vec::new()
    }

    /// The nodes this pool sends servers to, with their health; empty for a local pool.
    fn nodes(&self) -> Vec<NodeHealth> {
        Vec::new()
    }

    /// Closes every local connection (stdio servers end with their process groups) and stops
    /// following nodes.
    fn shutdown(&self) -> BoxFuture<'_, ()>;
}

/// A server said one of its lists changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListChange {
    pub owner: OwnerId,
    pub server: switchboard_core::ServerId,
    pub kind: ListKind,
}

/// A server said a resource it has (by the server's own URI) changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceUpdate {
    pub owner: OwnerId,
    pub server: switchboard_core::ServerId,
    pub uri: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ListKind {
    Tools,
    Resources,
    Prompts,
}

/// One configured node as the host sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeHealth {
    /// Its name in the configuration (`[nodes.NAME]`).
    pub name: String,
    /// Where it is reached.
    pub url: String,
    pub state: NodeState,
    /// Why it is down, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// The node's Switchboard version, once it answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeState {
    /// Not reached yet.
    Connecting,
    /// Its status stream is open.
    Up,
    /// It cannot be reached; the host tries again with backoff.
    Down,
}

impl ServerPool for ConnectionManager {
    fn config(&self) -> &ManagerConfig {
        ConnectionManager::config(self)
    }

    fn list_tools<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Arc<Vec<ToolInfo>>, McpError>> {
        Box::pin(ConnectionManager::list_tools(self, owner, spec))
    }

    fn list_resources<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Vec<Resource>, McpError>> {
        Box::pin(ConnectionManager::list_resources(self, owner, spec))
    }

    fn read_resource<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        uri: &'a str,
    ) -> BoxFuture<'a, Result<ReadResourceResult, McpError>> {
        Box::pin(ConnectionManager::read_resource(self, owner, spec, uri))
    }

    fn list_resource_templates<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Vec<ResourceTemplate>, McpError>> {
        Box::pin(ConnectionManager::list_resource_templates(
            self, owner, spec,
        ))
    }

    fn subscribe_resource<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        uri: &'a str,
    ) -> BoxFuture<'a, Result<(), McpError>> {
        Box::pin(ConnectionManager::subscribe_resource(
            self, owner, spec, uri, true,
        ))
    }

    fn unsubscribe_resource<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        uri: &'a str,
    ) -> BoxFuture<'a, Result<(), McpError>> {
        Box::pin(ConnectionManager::subscribe_resource(
            self, owner, spec, uri, false,
        ))
    }

    fn resource_updates(&self) -> broadcast::Receiver<ResourceUpdate> {
        ConnectionManager::resource_updates(self)
    }

    fn complete<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        params: CompleteRequestParams,
    ) -> BoxFuture<'a, Result<CompleteResult, McpError>> {
        Box::pin(ConnectionManager::complete(self, owner, spec, params))
    }

    fn list_prompts<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Vec<Prompt>, McpError>> {
        Box::pin(ConnectionManager::list_prompts(self, owner, spec))
    }

    fn get_prompt<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        name: &'a str,
        arguments: Option<JsonObject>,
    ) -> BoxFuture<'a, Result<GetPromptResult, McpError>> {
        Box::pin(ConnectionManager::get_prompt(
            self, owner, spec, name, arguments,
        ))
    }

    fn get_prompt_with<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        params: GetPromptRequestParams,
        input: PromptInput,
    ) -> BoxFuture<'a, Result<GetPromptResponse, McpError>> {
        Box::pin(ConnectionManager::get_prompt_with(
            self, owner, spec, params, input,
        ))
    }

    fn test_connection<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<ServerReport, McpError>> {
        Box::pin(ConnectionManager::test_connection(self, owner, spec))
    }

    fn start_sign_in<'a>(
        &'a self,
        owner: &'a OwnerId,
        spec: &'a ServerSpec,
        redirect_uri: &'a str,
    ) -> BoxFuture<'a, Result<String, McpError>> {
        Box::pin(ConnectionManager::start_sign_in(
            self,
            owner,
            spec,
            redirect_uri,
        ))
    }

    fn finish_sign_in<'a>(
        &'a self,
        spec: &'a ServerSpec,
        pending: PendingSignIn,
        code: &'a str,
        issuer: Option<&'a str>,
    ) -> BoxFuture<'a, Result<(), McpError>> {
        Box::pin(ConnectionManager::finish_sign_in(
            self, spec, pending, code, issuer,
        ))
    }

    fn snapshot(&self, owner: &OwnerId, spec: &ServerSpec) -> ConnectionSnapshot {
        ConnectionManager::snapshot(self, owner, &spec.id)
    }

    fn status_changes(&self) -> broadcast::Receiver<StatusChange> {
        ConnectionManager::status_changes(self)
    }

    fn server_log(&self, owner: &OwnerId, spec: &ServerSpec) -> Vec<crate::ServerLogLine> {
        ConnectionManager::server_log(self, owner, &spec.id)
    }

    fn update_roots(&self, owner: &OwnerId, spec: &ServerSpec) {
        ConnectionManager::update_roots(self, owner, spec);
    }

    fn list_changes(&self) -> broadcast::Receiver<crate::ListChange> {
        ConnectionManager::list_changes(self)
    }

    fn disconnect<'a>(&'a self, owner: &'a OwnerId, spec: &'a ServerSpec) -> BoxFuture<'a, ()> {
        Box::pin(ConnectionManager::disconnect(self, owner, &spec.id))
    }

    fn shutdown(&self) -> BoxFuture<'_, ()> {
        Box::pin(ConnectionManager::shutdown(self))
    }
}
