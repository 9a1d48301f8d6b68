//! Tools across servers: listing (for seed 000 `GET /api/chat/tools`), calling (seed 002
//! `POST /api/mcp/tools/call`), the flat-parameter proxy whose whole body is the arguments
//! (seed 003 `POST /api/mcp/proxy/{server}/tools/{tool}/call`), and the per-tool enabled and
//! auto-approve flags.
//!
//! These routes only translate HTTP: the server must be the caller's (404), and the rest of
//! what a call needs (the enabled and node checks, mappings, validation, retries, the audit)
//! is the tool-call service's ([`switchboard_agent::ToolCalls`]). The tool's result is passed
//! through as MCP sent it.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Map, Value};
use switchboard_agent::{CallerKind, Offer, ToolCallOutcome, ToolCallRequest};
use switchboard_core::{ErrorCode, ServerId, ToolInfo, VariableDecl, Variables};
use switchboard_store::{StoredServer, TaskOrigin};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
use crate::routes::responses::{OwnedEdit, Upstream};
use crate::routes::schemas::{ToolArguments, ToolResult};
use crate::routes::tasks::{accepted, wants_task};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(call))
        .routes(routes!(proxy))
        .routes(routes!(set_flags))
}

/// One enabled tool of one of the caller's enabled servers.
pub(crate) struct ListedTool {
    pub server_name: String,
    /// The name the model sees (`mcp__{server}__{tool}`).
    pub display_name: String,
    pub tool: ToolInfo,
    pub auto_approve: bool,
}

/// Every enabled tool of the caller's enabled servers (seed 000 `GET /api/chat/tools` shows
/// them); a server that cannot be reached is left out of the list (and logged) rather than
/// failing it.
pub(crate) async fn listed_tools(
    state: &AppState,
    owner: &switchboard_core::OwnerId,
) -> Result<Vec<ListedTool>, ApiError> {
    let specs = state.store.connection_specs(owner).await?;
    // Through the bounded backend (`switchboard_app::listing`): what one listing loads is
    // capped.
    let offer = Offer::gather(state.tools.as_ref(), owner, &specs, &[]).await;
    for server in &offer.unavailable {
        tracing::warn!(server = %server.server, error = %server.reason, "tools unavailable");
    }
    Ok(offer
        .tools()
        .iter()
        .map(|offered| ListedTool {
            server_name: offered.server.name.clone(),
            display_name: offered.display_name.clone(),
            auto_approve: offered.server.auto_approves(&offered.tool.name),
            tool: offered.tool.clone(),
        })
        .collect())
}

/// A tool call: which tool of which server, with what arguments.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CallBody {
    /// The server's id (`server_id` is accepted too).
    #[serde(alias = "server_id")]
    server_id: String,
    /// The tool's own name on its server (`tool_name` is accepted too).
    #[serde(alias = "tool_name")]
    tool_name: String,
    /// The tool's arguments, checked against its input schema.
    #[serde(default)]
    #[schema(value_type = ToolArguments)]
    arguments: Map<String, Value>,
}

/// How a call is answered.
#[derive(Deserialize)]
struct CallQuery {
    /// `task`: at once, with a task to follow, rather than when the tool answers.
    mode: Option<String>,
}

/// Calls a tool of one of the caller's servers with checked arguments.
///
/// With `?mode=task` (or `Prefer: respond-async`) the call is not waited for: it is
/// answered 202 with a task to follow at `GET /api/tasks/{id}` (`Location`), which holds
/// the result once the tool answers; a task's end is announced on `/api/events`
/// (`task.updated`).
#[utoipa::path(
    post,
    path = "/api/mcp/tools/call",
    tag = "tools",
    operation_id = "call_tool",
    params(
        ("mode" = Option<String>, Query, description = "`task`: answer at once with a task (202) rather than wait for the tool"),
        ("Prefer" = Option<String>, Header, description = "`respond-async`: as `mode=task`"),
    ),
    request_body = CallBody,
    responses(
        (status = 200, description = "The MCP result as the server sent it", body = ToolResult),
        (status = 202, description = "Running as a task (`mode=task`); follow it at `Location`", body = crate::routes::tasks::TaskBody),
        OwnedEdit,
        Upstream,
    ),
)]
async fn call(
    State(state): State<AppState>,
    caller: Caller,
    Query(query): Query<CallQuery>,
    headers: HeaderMap,
    Json(body): Json<CallBody>,
) -> Result<Response, ApiError> {
    let as_task = wants_task(query.mode.as_deref(), &headers)?;
    let spec = state
        .store
        .connection_spec(&caller.user.id, &ServerId(body.server_id))
        .await?;
    let request = ToolCallRequest::new(
        caller.user.id.clone(),
        CallerKind::Api,
        Arc::new(spec),
        body.tool_name,
        body.arguments,
    );
    if as_task {
        let task = state
            .tasks
            .run_in_background(request, TaskOrigin::Api)
            .await?;
        return Ok(accepted(&task, &headers));
    }
    answer(state.tool_calls.call(request).await?)
}

#[derive(Deserialize)]
pub(super) struct ProxyQuery {
    /// A tool node whose selection, mappings, retry and timeout the call runs under.
    node: Option<String>,
    /// The old name of `node`.
    preset: Option<String>,
    /// `task`: answer at once with a task to follow.
    mode: Option<String>,
}

/// The flat-parameter proxy: the body holds the tool's arguments (and a node's variables).
#[utoipa::path(
    post,
    path = "/api/mcp/proxy/{server}/tools/{tool}/call",
    tag = "tools",
    operation_id = "proxy_tool_call",
    params(
        ("server" = String, Path, description = "The server id"),
        ("tool" = String, Path, description = "The tool name"),
        ("node" = Option<String>, Query, description = "A tool node (its id) the call runs under: its mappings fill parameters, and body keys naming a variable it declares are that variable's value rather than arguments"),
        ("preset" = Option<String>, Query, description = "The old name of `node`"),
        ("mode" = Option<String>, Query, description = "`task`: answer at once with a task (202, `Location: /api/tasks/{id}`) rather than wait for the tool"),
        ("Prefer" = Option<String>, Header, description = "`respond-async`: as `mode=task`"),
    ),
    request_body = ToolArguments,
    responses(
        (status = 200, description = "The MCP result as the server sent it", body = ToolResult),
        (status = 202, description = "Running as a task (`mode=task`); follow it at `Location`", body = crate::routes::tasks::TaskBody),
        OwnedEdit,
        Upstream,
    ),
)]
pub(super) async fn proxy(
    State(state): State<AppState>,
    caller: Caller,
    Path((server, tool)): Path<(String, String)>,
    Query(query): Query<ProxyQuery>,
    headers: HeaderMap,
    Json(body): Json<Map<String, Value>>,
) -> Result<Response, ApiError> {
    let started = std::time::Instant::now();
    let answer = proxied(&state, &caller, server, tool, query, &headers, body).await;
    // Counted for the proxy's error rate and latency; a tool's own error result is an
    // answer, not a failure of the proxy.
    let error = answer.as_ref().err().map(|e| e.code.as_str());
    state.metrics.record_proxy(error, started.elapsed());
    answer
}

async fn proxied(
    state: &AppState,
    caller: &Caller,
    server: String,
    tool: String,
    query: ProxyQuery,
    headers: &HeaderMap,
    body: Map<String, Value>,
) -> Result<Response, ApiError> {
    let as_task = wants_task(query.mode.as_deref(), headers)?;
    let owner = &caller.user.id;
    let spec = state
        .store
        .connection_spec(owner, &ServerId(server))
        .await?;
    let mut request = ToolCallRequest::new(
        owner.clone(),
        CallerKind::Proxy,
        Arc::new(spec),
        tool,
        Map::new(),
    );
    match query.node.or(query.preset) {
        None => request.arguments = body,
        Some(node) => {
            let node = state.store.tool_node(owner, &node).await?;
            // A node of an assistant may use the assistant's variables too.
            let outer =
                crate::tool_nodes::assistant_variables(state.store.as_ref(), owner, &node.node)
                    .await?;
            let declared = || node.node.variables.iter().chain(&outer);
            let (arguments, variables) = split_body(body, declared());
            request.arguments = arguments;
            request.variables = Some(
                Variables::new(switchboard_agent::builtins_now(
                    &owner.0,
                    &caller.user.name,
                    None,
                ))
                .with_layer(variables)
                .with_declared(&node.node.variables)
                .with_declared(&outer),
            );
            request.node = Some(Arc::new(node));
        }
    }
    if as_task {
        let task = state
            .tasks
            .run_in_background(request, TaskOrigin::Proxy)
            .await?;
        return Ok(accepted(&task, headers));
    }
    answer(state.tool_calls.call(request).await?)
}

/// A proxy body under a node: keys naming a variable the node (or its assistant) declares
/// are variables, the rest are arguments. Every key is also offered as a variable, so a node
/// stored before variables were declared (a `?preset=` of old, whose `{{name}}` took the
/// body's `name`) resolves as it did.
fn split_body<'a>(
    body: Map<String, Value>,
    declared: impl Iterator<Item = &'a VariableDecl> + Clone,
) -> (Map<String, Value>, Map<String, Value>) {
    let variables = body.clone();
    let arguments = body
        .into_iter()
        .filter(|(key, _)| !declared.clone().any(|d| &d.name == key))
        .collect();
    (arguments, variables)
}

/// A call's answer: the MCP result as the server sent it, encoded once (not turned into a
/// `Value` first: the proxy answers thousands a second).
fn answer(outcome: ToolCallOutcome) -> Result<Response, ApiError> {
    let body = serde_json::to_vec(&outcome.result)
        .map_err(|e| ApiError::new(ErrorCode::McpParseError, e.to_string()))?;
    Ok((
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response())
}

/// A tool's switches; one left out keeps its value.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Flags {
    enabled: Option<bool>,
    auto_approve: Option<bool>,
}

/// Sets a tool's enabled and auto-approve flags (seed 001's per-tool switches).
#[utoipa::path(
    put,
    path = "/api/mcp-servers/{id}/tools/{tool}",
    tag = "servers",
    operation_id = "set_tool_flags",
    params(
        ("id" = String, Path, description = "The id"),
        ("tool" = String, Path, description = "The tool name"),
    ),
    request_body = Flags,
    responses(
        (status = 200, description = "The server with the tool's switches set, secrets masked", body = StoredServer),
        OwnedEdit,
    ),
)]
async fn set_flags(
    State(state): State<AppState>,
    caller: Caller,
    Path((id, tool)): Path<(String, String)>,
    Json(flags): Json<Flags>,
) -> Result<axum::Json<StoredServer>, ApiError> {
    let switches = switchboard_app::ToolSwitches {
        enabled: flags.enabled,
        auto_approve: flags.auto_approve,
    };
    let edited = state
        .servers
        .set_tool_switches(&caller.user.id, &ServerId(id), &tool, switches)
        .await?;
    Ok(axum::Json(edited))
}
