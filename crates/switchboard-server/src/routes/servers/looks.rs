//! The looks at one of the caller's stored MCP servers (seed 001 `/api/mcp-servers/{id}/...`):
//! the connection test (and seed 001's `connect` alias), the connection's health, and the
//! server's tools with their switches. Each goes through `servers.rs`'s shared looks
//! (`test_stored`, `tools_of`), which the seeds' own routes use too.

use axum::extract::{Path, State};
use serde::Serialize;
use switchboard_core::{ServerId, ToolInfo};
use switchboard_mcp::{ConnectionSnapshot, ServerReport};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::routes::responses::{OwnedRead, Upstream, UpstreamTimeout};
use crate::routes::servers::bodies::{ServerHealth, ServerReport as ServerReportBody};
use crate::routes::servers::{health_of, test_stored, tools_of};
use crate::state::AppState;

pub(crate) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(test))
        .routes(routes!(health))
        .routes(routes!(tools))
        // Alias of seed 001's own path.
        .routes(routes!(connect_alias))
        .merge(crate::routes::servers::content::routes())
}

/// Seed 002's test-connection flow: connect, initialize, list tools, disconnect.
#[utoipa::path(
    post,
    path = "/api/mcp-servers/{id}/test",
    tag = "servers",
    operation_id = "test_server",
    params(("id" = String, Path, description = "The id")),
    responses(
        (status = 200, description = "Connected, initialized and listed: server info and tools", body = ServerReportBody),
        OwnedRead,
        (status = 502, description = "The MCP server could not be reached, refused the credentials or failed", body = ErrorBody),
        UpstreamTimeout,
    ),
)]
async fn test(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<ServerReport>, ApiError> {
    Ok(axum::Json(
        test_stored(&state, &caller, &ServerId(id)).await?,
    ))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Health {
    id: ServerId,
    #[serde(flatten)]
    snapshot: ConnectionSnapshot,
    checked_at: String,
}

/// Seed 000's health: the connection's status, last error and last activity.
#[utoipa::path(
    get,
    path = "/api/mcp-servers/{id}/health",
    tag = "servers",
    operation_id = "server_health",
    params(("id" = String, Path, description = "The id")),
    responses(
        (status = 200, description = "Connection status, last error, last activity", body = ServerHealth),
        OwnedRead,
    ),
)]
async fn health(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<Health>, ApiError> {
    let id = ServerId(id);
    let (snapshot, checked_at) = health_of(&state, &caller, &id).await?;
    Ok(axum::Json(Health {
        id,
        snapshot,
        checked_at,
    }))
}

/// A tool with its switches (seed 001's `McpToolWithServer`).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ToolWithFlags {
    #[serde(flatten)]
    tool: ToolInfo,
    display_name: String,
    is_enabled: bool,
    is_auto_approve: bool,
}

/// Every tool of the server (disabled ones included, flagged), seed 001's `McpToolWithServer`.
#[utoipa::path(
    get,
    path = "/api/mcp-servers/{id}/tools",
    tag = "servers",
    operation_id = "list_server_tools",
    params(("id" = String, Path, description = "The id")),
    responses(
        (status = 200, description = "The server's tools with their switches", body = Vec<ToolWithFlags>),
        OwnedRead,
        Upstream,
    ),
)]
async fn tools(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<Vec<ToolWithFlags>>, ApiError> {
    let (spec, listed) = tools_of(&state, &caller, &ServerId(id)).await?;
    let names =
        switchboard_core::NameTable::of_servers(listed.iter().map(|t| (&spec, t.name.as_str())));
    Ok(axum::Json(
        listed
            .iter()
            .map(|tool| ToolWithFlags {
                display_name: names
                    .name_of(&spec, &tool.name)
                    .unwrap_or_default()
                    .to_owned(),
                is_enabled: !spec.disabled_tools.contains(&tool.name),
                is_auto_approve: spec.auto_approves(&tool.name),
                tool: tool.clone(),
            })
            .collect(),
    ))
}

/// Seed 001's `POST /api/mcp-servers/{id}/connect`: the connection test.
#[utoipa::path(
    post,
    path = "/api/mcp-servers/{id}/connect",
    tag = "servers",
    operation_id = "connect_server_seed_001",
    params(("id" = String, Path, description = "The id")),
    responses(
        (status = 200, description = "As POST /api/mcp-servers/{id}/test", body = ServerReportBody),
        OwnedRead,
        Upstream,
    ),
)]
async fn connect_alias(
    state: State<AppState>,
    caller: Caller,
    id: Path<String>,
) -> Result<axum::Json<ServerReport>, ApiError> {
    test(state, caller, id).await
}
