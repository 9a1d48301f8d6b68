//! A stored server's resources, prompts and log for people: list the resources and
//! resource templates, read one, list the prompts, get one with its arguments, read what the
//! server logged. Through the
//! pool's connection like the tools, with the server's own secrets cut out of what comes back
//! (the pool does that); the chat attaches resources and starts turns from prompts with the
//! same answers.
//!
//! The bodies are MCP's own shapes (`Resource`, `ResourceTemplate`, `ReadResourceResult`,
//! `Prompt`, `GetPromptResult` of the protocol revision the server speaks), passed as they
//! came; the OpenAPI document names them and links the specification rather than copying it.

use axum::extract::{Path, Query, State};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use switchboard_core::ServerId;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
use crate::routes::responses::{BadInput, OwnedRead, Upstream};
use crate::routes::schemas::{McpPrompt, McpPromptMessages, McpResource, McpResourceContents};
use crate::state::AppState;

pub(crate) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(resources))
        .routes(routes!(read))
        .routes(routes!(prompts))
        .routes(routes!(prompt))
        .routes(routes!(logs))
}

/// What the caller's server `id` logged lately (its `notifications/message`), oldest first.
///
/// The last 200 lines this process kept for it, each cut to 2,000 characters, the server's
/// own secrets cut out; empty for a server that has not logged or runs on a node.
#[utoipa::path(
    get,
    path = "/api/mcp-servers/{id}/logs",
    tag = "servers",
    operation_id = "server_log",
    params(("id" = String, Path, description = "The server's id")),
    responses(
        (status = 200, description = "The server's recent log lines", body = Vec<crate::routes::schemas::ServerLogLine>),
        OwnedRead,
    ),
)]
async fn logs(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<Value>, ApiError> {
    let spec = spec_of(&state, &caller, id).await?;
    Ok(axum::Json(json_of(
        &state.pool.server_log(&caller.user.id, &spec),
    )?))
}

/// A server's resources and resource templates.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ResourceList {
    /// MCP `Resource`s: `uri`, `name`, and optionally `title`, `description`, `mimeType`,
    /// `size` (https://modelcontextprotocol.io/specification/2025-11-25/server/resources).
    #[schema(value_type = Vec<McpResource>)]
    resources: Value,
    /// MCP `ResourceTemplate`s: `uriTemplate` (RFC 6570), `name`, ...
    #[schema(value_type = Vec<McpResource>)]
    templates: Value,
}

/// The caller's server `id`, secrets in clear (for connecting); another's is not found.
async fn spec_of(
    state: &AppState,
    caller: &Caller,
    id: String,
) -> Result<switchboard_core::ServerSpec, ApiError> {
    Ok(state
        .store
        .connection_spec(&caller.user.id, &ServerId(id))
        .await?)
}

fn json_of<T: Serialize>(value: &T) -> Result<Value, ApiError> {
    serde_json::to_value(value).map_err(|e| {
        ApiError::new(
            switchboard_core::ErrorCode::InternalError,
            format!("cannot encode the server's answer: {e}"),
        )
    })
}

/// The resources and resource templates of the caller's server `id`.
#[utoipa::path(
    get,
    path = "/api/mcp-servers/{id}/resources",
    tag = "servers",
    operation_id = "list_server_resources",
    params(("id" = String, Path, description = "The server's id")),
    responses(
        (status = 200, description = "Resources and templates, as the server listed them", body = ResourceList),
        OwnedRead,
        Upstream,
    ),
)]
async fn resources(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<ResourceList>, ApiError> {
    let spec = spec_of(&state, &caller, id).await?;
    let owner = &caller.user.id;
    let listed = state.pool.list_resources(owner, &spec).await?;
    let templates = state.pool.list_resource_templates(owner, &spec).await?;
    Ok(axum::Json(ResourceList {
        resources: json_of(&listed)?,
        templates: json_of(&templates)?,
    }))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct ReadQuery {
    /// The resource's URI (a listed one, or a template expanded).
    uri: String,
}

/// Reads a resource of the caller's server `id`.
#[utoipa::path(
    get,
    path = "/api/mcp-servers/{id}/resources/read",
    tag = "servers",
    operation_id = "read_server_resource",
    params(("id" = String, Path, description = "The server's id"), ReadQuery),
    responses(
        (status = 200, description = "The resource's contents", body = McpResourceContents),
        BadInput,
        OwnedRead,
        Upstream,
    ),
)]
async fn read(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Query(query): Query<ReadQuery>,
) -> Result<axum::Json<Value>, ApiError> {
    let spec = spec_of(&state, &caller, id).await?;
    let result = state
        .pool
        .read_resource(&caller.user.id, &spec, &query.uri)
        .await?;
    Ok(axum::Json(json_of(&result)?))
}

/// The prompts of the caller's server `id`.
#[utoipa::path(
    get,
    path = "/api/mcp-servers/{id}/prompts",
    tag = "servers",
    operation_id = "list_server_prompts",
    params(("id" = String, Path, description = "The server's id")),
    responses(
        (status = 200, description = "The server's prompts", body = Vec<McpPrompt>),
        OwnedRead,
        Upstream,
    ),
)]
async fn prompts(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<Value>, ApiError> {
    let spec = spec_of(&state, &caller, id).await?;
    let listed = state.pool.list_prompts(&caller.user.id, &spec).await?;
    Ok(axum::Json(json_of(&listed)?))
}

/// The arguments of a prompt.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct PromptBody {
    /// The prompt's arguments by name (strings, as MCP prompts take them).
    #[serde(default)]
    #[schema(value_type = crate::routes::schemas::PromptArguments)]
    arguments: Map<String, Value>,
}

/// Gets a prompt of the caller's server `id`: its messages, with the arguments filled in.
#[utoipa::path(
    post,
    path = "/api/mcp-servers/{id}/prompts/{name}",
    tag = "servers",
    operation_id = "get_server_prompt",
    params(
        ("id" = String, Path, description = "The server's id"),
        ("name" = String, Path, description = "The prompt's name"),
    ),
    request_body = PromptBody,
    responses(
        (status = 200, description = "The prompt's messages, its arguments filled in", body = McpPromptMessages),
        BadInput,
        OwnedRead,
        Upstream,
    ),
)]
async fn prompt(
    State(state): State<AppState>,
    caller: Caller,
    Path((id, name)): Path<(String, String)>,
    Json(body): Json<PromptBody>,
) -> Result<axum::Json<Value>, ApiError> {
    let spec = spec_of(&state, &caller, id).await?;
    let arguments = (!body.arguments.is_empty()).then_some(body.arguments);
    let result = state
        .pool
        .get_prompt(&caller.user.id, &spec, &name, arguments)
        .await?;
    Ok(axum::Json(json_of(&result)?))
}
