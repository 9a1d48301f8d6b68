//! MCP servers (seed 001 `/api/mcp-servers`; seed 002's `/api/mcp/servers/{id}/test` and seed
//! 000's `/api/mcp/servers/{id}/health` answer too). Reads are masked; only the connection
//! code sees secrets in clear.

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use serde::Serialize;
use serde_json::Value;
use switchboard_core::{ErrorCode, ServerId, ServerSpec, ToolInfo, TransportKind};
use switchboard_mcp::{ConnectionSnapshot, ServerReport};
use switchboard_store::StoredServer;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/mcp-servers", get(list).post(create))
        .route(
            "/api/mcp-servers/{id}",
            get(read).put(update).delete(remove),
        )
        .route("/api/mcp-servers/{id}/test", post(test))
        .route("/api/mcp-servers/{id}/health", get(health))
        .route("/api/mcp-servers/{id}/tools", get(tools))
        // Aliases of the seeds' own paths.
        .route("/api/mcp/servers/{id}/test", post(test))
        .route("/api/mcp/servers/{id}/health", get(health))
}

/// A server as sent by a client: a [`ServerSpec`] whose `id` may be left out (it then comes
/// from the name).
fn spec_from(mut body: Value, id: Option<&str>) -> Result<ServerSpec, ApiError> {
    let object = body.as_object_mut().ok_or_else(|| {
        ApiError::new(ErrorCode::ValidationError, "the body must be a JSON object")
    })?;
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
/// on the configuration's allowlist.
fn check_command(state: &AppState, caller: &Caller, spec: &ServerSpec) -> Result<(), ApiError> {
    if spec.transport == TransportKind::Stdio
        && !state.config.allows_command(spec.command.as_deref())
    {
        caller.require_admin("a stdio server runs a command on the host, so configuring one")?;
    }
    Ok(())
}

async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<axum::Json<Vec<StoredServer>>, ApiError> {
    Ok(axum::Json(state.store.servers(&caller.user.id).await?))
}

async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<Value>,
) -> Result<(StatusCode, axum::Json<StoredServer>), ApiError> {
    let spec = spec_from(body, None)?;
    check_command(&state, &caller, &spec)?;
    let created = state.store.create_server(&caller.user.id, &spec).await?;
    Ok((StatusCode::CREATED, axum::Json(created)))
}

async fn read(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<StoredServer>, ApiError> {
    Ok(axum::Json(
        state.store.server(&caller.user.id, &ServerId(id)).await?,
    ))
}

async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> Result<axum::Json<StoredServer>, ApiError> {
    let id = ServerId(id);
    // Not found before forbidden: another user's server must not be confirmed to exist.
    let old = state.store.connection_spec(&caller.user.id, &id).await?;
    let spec = spec_from(body, Some(&id.0))?;
    if spec.transport == TransportKind::Stdio
        && (old.transport != TransportKind::Stdio
            || old.command != spec.command
            || old.args != spec.args)
    {
        check_command(&state, &caller, &spec)?;
    }
    let updated = state
        .store
        .update_server(&caller.user.id, &id, &spec)
        .await?;
    // The next use connects with the new configuration.
    state.manager.disconnect(&caller.user.id, &id).await;
    Ok(axum::Json(updated))
}

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
async fn test(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<ServerReport>, ApiError> {
    let spec = state
        .store
        .connection_spec(&caller.user.id, &ServerId(id))
        .await?;
    Ok(axum::Json(state.manager.test_connection(&spec).await?))
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
