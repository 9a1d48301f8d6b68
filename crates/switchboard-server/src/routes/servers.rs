//! MCP servers (seed 001 `/api/mcp-servers`; seed 002's `/api/mcp/servers/{id}/test` and seed
//! 000's `/api/mcp/servers/{id}/health` answer too). Reads are masked; only the connection
//! code sees secrets in clear.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Serialize;
use serde_json::Value;
use switchboard_core::{ErrorCode, ServerId, ServerSpec, ToolInfo, TransportKind};
use switchboard_mcp::{ConnectionSnapshot, ServerReport};
use switchboard_store::StoredServer;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::destinations::check_saved_url;
use crate::error::ApiError;
use crate::json::Json;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(read, update, remove))
        .routes(routes!(test))
        .routes(routes!(health))
        .routes(routes!(tools))
        // Aliases of the seeds' own paths.
        .routes(routes!(test_alias))
        .routes(routes!(connect_alias))
        .routes(routes!(health_alias))
}

/// A server as sent by a client: a [`ServerSpec`] whose `id` may be left out (it then comes
/// from the name).
fn spec_from(mut body: Value, id: Option<&str>) -> Result<ServerSpec, ApiError> {
    let object = body.as_object_mut().ok_or_else(|| {
        ApiError::new(ErrorCode::ValidationError, "the body must be a JSON object")
    })?;
    crate::unknown_fields::check_server(object)?;
    if let Some(id) = id {
        object.insert("id".into(), Value::String(id.to_owned()));
    } else if !object.contains_key("id") {
        let name = object
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        object.insert("id".into(), Value::String(ServerId::from_name(name).0));
    }
    match object.get("transport") {
        Some(transport) => {
            if serde_json::from_value::<TransportKind>(transport.clone()).is_err() {
                return Err(ApiError::new(
                    ErrorCode::UnsupportedTransport,
                    format!("transport {transport} is not one of stdio, streamable_http, sse"),
                ));
            }
        }
        // Seed 001: a URL without a transport is Streamable HTTP when it ends in /mcp, else
        // SSE.
        None => {
            if let Some(url) = object.get("url").and_then(Value::as_str) {
                let kind = TransportKind::infer_from_url(url);
                object.insert("transport".into(), Value::String(kind.as_str().into()));
            }
        }
    }
    serde_json::from_value(body).map_err(|e| {
        ApiError::new(
            ErrorCode::ValidationError,
            format!("the server does not fit: {e}"),
        )
    })
}

/// A stdio server runs its command on the host: admins may configure any, members only one
/// that fits a launch template (checked again at every spawn by the
/// [`ServerPolicy`](crate::ServerPolicy)).
fn check_command(state: &AppState, caller: &Caller, spec: &ServerSpec) -> Result<(), ApiError> {
    crate::policy::may_launch(&state.config, caller.user.role, spec).map_err(|refusal| {
        ApiError::new(
            ErrorCode::LaunchNotAllowed,
            format!("this stdio server may not be started by a member: {refusal}"),
        )
    })
}

/// What a caller may save: a stdio server that fits the launch rules, a URL the destination
/// guard lets them reach. Checked on every save (create, import, update), and again by the
/// connection policy before every start.
fn check_member_rules(
    state: &AppState,
    caller: &Caller,
    spec: &ServerSpec,
) -> Result<(), ApiError> {
    check_command(state, caller, spec)?;
    check_saved_url(state, caller, spec.url.as_deref())
}

/// Creates `spec` for the caller, within their rules and their server quota.
pub(super) async fn create_checked(
    state: &AppState,
    caller: &Caller,
    spec: &ServerSpec,
) -> Result<StoredServer, ApiError> {
    check_member_rules(state, caller, spec)?;
    let max = state.config.limits.max_servers;
    Ok(state
        .store
        .create_server_within(&caller.user.id, spec, max)
        .await?)
}

/// Lists the caller's MCP servers, secrets masked.
#[utoipa::path(get, path = "/api/mcp-servers", tag = "servers", operation_id = "list_servers", responses((status = 200, description = "The caller's MCP servers, secrets masked", body = serde_json::Value), (status = 401, description = "No valid API token", body = crate::error::ErrorBody)))]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<axum::Json<Vec<StoredServer>>, ApiError> {
    Ok(axum::Json(state.store.servers(&caller.user.id).await?))
}

/// Creates an MCP server (its id comes from the name unless given).
#[utoipa::path(post, path = "/api/mcp-servers", tag = "servers", operation_id = "create_server", request_body = serde_json::Value, responses((status = 201, description = "Created", body = serde_json::Value), (status = 400, description = "Bad input: malformed JSON, wrong types, unknown fields, invalid values", body = crate::error::ErrorBody), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 403, description = "Not allowed for this user", body = crate::error::ErrorBody), (status = 409, description = "Conflicts with the current state", body = crate::error::ErrorBody), (status = 413, description = "The body is too large", body = crate::error::ErrorBody)))]
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<Value>,
) -> Result<(StatusCode, axum::Json<StoredServer>), ApiError> {
    let spec = spec_from(body, None)?;
    let created = create_checked(&state, &caller, &spec).await?;
    Ok((StatusCode::CREATED, axum::Json(created)))
}

/// Reads an MCP server, secrets masked.
#[utoipa::path(get, path = "/api/mcp-servers/{id}", tag = "servers", operation_id = "read_server", params(("id" = String, Path, description = "The id")), responses((status = 200, description = "The server, secrets masked", body = serde_json::Value), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody)))]
async fn read(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<StoredServer>, ApiError> {
    Ok(axum::Json(
        state.store.server(&caller.user.id, &ServerId(id)).await?,
    ))
}

/// Replaces an MCP server; masked secrets keep the stored ones, and the next use reconnects.
#[utoipa::path(put, path = "/api/mcp-servers/{id}", tag = "servers", operation_id = "update_server", params(("id" = String, Path, description = "The id")), request_body = serde_json::Value, responses((status = 200, description = "Replaced; masked secrets keep the stored ones", body = serde_json::Value), (status = 400, description = "Bad input: malformed JSON, wrong types, unknown fields, invalid values", body = crate::error::ErrorBody), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 403, description = "Not allowed for this user", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody), (status = 409, description = "Conflicts with the current state", body = crate::error::ErrorBody), (status = 413, description = "The body is too large", body = crate::error::ErrorBody)))]
async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> Result<axum::Json<StoredServer>, ApiError> {
    let id = ServerId(id);
    // Not found before forbidden: another user's server must not be confirmed to exist.
    state.store.server(&caller.user.id, &id).await?;
    let spec = spec_from(body, Some(&id.0))?;
    // Every field is checked, env and cwd included, not only a changed command.
    check_member_rules(&state, &caller, &spec)?;
    let updated = state
        .store
        .update_server(&caller.user.id, &id, &spec)
        .await?;
    // The next use connects with the new configuration.
    state.manager.disconnect(&caller.user.id, &id).await;
    Ok(axum::Json(updated))
}

/// Deletes an MCP server and closes its connection.
#[utoipa::path(delete, path = "/api/mcp-servers/{id}", tag = "servers", operation_id = "delete_server", params(("id" = String, Path, description = "The id")), responses((status = 204, description = "Deleted"), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody)))]
async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let id = ServerId(id);
    state.store.delete_server(&caller.user.id, &id).await?;
    state.manager.disconnect(&caller.user.id, &id).await;
    Ok(StatusCode::NO_CONTENT)
}

/// Seed 002's test-connection flow: connect, initialize, list tools, disconnect.
#[utoipa::path(post, path = "/api/mcp-servers/{id}/test", tag = "servers", operation_id = "test_server", params(("id" = String, Path, description = "The id")), responses((status = 200, description = "Connected, initialized and listed: server info and tools", body = serde_json::Value), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody), (status = 502, description = "The MCP server or the model could not be reached or failed", body = crate::error::ErrorBody), (status = 504, description = "The MCP server did not answer in time", body = crate::error::ErrorBody)))]
async fn test(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<ServerReport>, ApiError> {
    let spec = state
        .store
        .connection_spec(&caller.user.id, &ServerId(id))
        .await?;
    Ok(axum::Json(
        state
            .manager
            .test_connection(&caller.user.id, &spec)
            .await?,
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
#[utoipa::path(get, path = "/api/mcp-servers/{id}/health", tag = "servers", operation_id = "server_health", params(("id" = String, Path, description = "The id")), responses((status = 200, description = "Connection status, last error, last activity", body = serde_json::Value), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody)))]
async fn health(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<Health>, ApiError> {
    let id = ServerId(id);
    state.store.server(&caller.user.id, &id).await?;
    let snapshot = state.manager.snapshot(&caller.user.id, &id);
    Ok(axum::Json(Health {
        id,
        snapshot,
        checked_at: humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string(),
    }))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolWithFlags {
    #[serde(flatten)]
    tool: ToolInfo,
    display_name: String,
    is_enabled: bool,
    is_auto_approve: bool,
}

/// Every tool of the server (disabled ones included, flagged), seed 001's `McpToolWithServer`.
#[utoipa::path(get, path = "/api/mcp-servers/{id}/tools", tag = "servers", operation_id = "list_server_tools", params(("id" = String, Path, description = "The id")), responses((status = 200, description = "The server's tools with their switches", body = serde_json::Value), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody), (status = 502, description = "The MCP server or the model could not be reached or failed", body = crate::error::ErrorBody), (status = 504, description = "The MCP server did not answer in time", body = crate::error::ErrorBody)))]
async fn tools(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<Vec<ToolWithFlags>>, ApiError> {
    let spec = state
        .store
        .connection_spec(&caller.user.id, &ServerId(id))
        .await?;
    let listed = state.manager.list_tools(&caller.user.id, &spec).await?;
    let names = switchboard_core::NameTable::new(
        listed.iter().map(|t| (spec.id.0.clone(), t.name.clone())),
    );
    Ok(axum::Json(
        listed
            .iter()
            .map(|tool| ToolWithFlags {
                display_name: names
                    .mangled(&spec.id.0, &tool.name)
                    .unwrap_or_default()
                    .to_owned(),
                is_enabled: !spec.disabled_tools.contains(&tool.name),
                is_auto_approve: spec.auto_approved_tools.contains(&tool.name),
                tool: tool.clone(),
            })
            .collect(),
    ))
}

/// Seed 002's `POST /api/mcp/servers/{id}/test`.
#[utoipa::path(post, path = "/api/mcp/servers/{id}/test", tag = "servers", operation_id = "test_server_seed_002", params(("id" = String, Path, description = "The id")), responses((status = 200, description = "As POST /api/mcp-servers/{id}/test", body = serde_json::Value), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody), (status = 502, description = "The MCP server could not be reached or failed", body = crate::error::ErrorBody)))]
async fn test_alias(
    state: State<AppState>,
    caller: Caller,
    id: Path<String>,
) -> Result<axum::Json<ServerReport>, ApiError> {
    test(state, caller, id).await
}

/// Seed 001's `POST /api/mcp-servers/{id}/connect`: the connection test.
#[utoipa::path(post, path = "/api/mcp-servers/{id}/connect", tag = "servers", operation_id = "connect_server_seed_001", params(("id" = String, Path, description = "The id")), responses((status = 200, description = "As POST /api/mcp-servers/{id}/test", body = serde_json::Value), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody), (status = 502, description = "The MCP server could not be reached or failed", body = crate::error::ErrorBody)))]
async fn connect_alias(
    state: State<AppState>,
    caller: Caller,
    id: Path<String>,
) -> Result<axum::Json<ServerReport>, ApiError> {
    test(state, caller, id).await
}

/// Seed 000's `GET /api/mcp/servers/{id}/health`.
#[utoipa::path(get, path = "/api/mcp/servers/{id}/health", tag = "servers", operation_id = "server_health_seed_000", params(("id" = String, Path, description = "The id")), responses((status = 200, description = "As GET /api/mcp-servers/{id}/health", body = serde_json::Value), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody)))]
async fn health_alias(
    state: State<AppState>,
    caller: Caller,
    id: Path<String>,
) -> Result<axum::Json<Health>, ApiError> {
    health(state, caller, id).await
}
