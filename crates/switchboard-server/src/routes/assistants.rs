//! Assistants and the MCP servers each may use (seed 001 `assistant_mcp_servers`).

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::get;
use serde::{Deserialize, Serialize};
use switchboard_core::ServerId;
use switchboard_store::{Assistant, AssistantConfig};

use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/assistants", get(list).post(create))
        .route("/api/assistants/{id}", get(read).put(update).delete(remove))
        .route(
            "/api/assistants/{id}/mcp-servers",
            get(servers).put(set_servers),
        )
}

async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<axum::Json<Vec<Assistant>>, ApiError> {
    Ok(axum::Json(state.store.assistants(&caller.user.id).await?))
}

async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Json(config): Json<AssistantConfig>,
) -> Result<(StatusCode, axum::Json<Assistant>), ApiError> {
    let created = state
        .store
        .create_assistant(&caller.user.id, &config)
        .await?;
    Ok((StatusCode::CREATED, axum::Json(created)))
}

async fn read(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<Assistant>, ApiError> {
    Ok(axum::Json(
        state.store.assistant(&caller.user.id, &id).await?,
    ))
}

async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Json(config): Json<AssistantConfig>,
) -> Result<axum::Json<Assistant>, ApiError> {
    Ok(axum::Json(
        state
            .store
            .update_assistant(&caller.user.id, &id, &config)
            .await?,
    ))
}

async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.store.delete_assistant(&caller.user.id, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The ids of the servers the assistant may use, in order (seed 001).
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ServerIds {
    server_ids: Vec<ServerId>,
}

async fn servers(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<ServerIds>, ApiError> {
    let assistant = state.store.assistant(&caller.user.id, &id).await?;
    Ok(axum::Json(ServerIds {
        server_ids: assistant.server_ids,
    }))
}

/// Replaces the list; every server must be the caller's (another user's is not found).
async fn set_servers(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Json(body): Json<ServerIds>,
) -> Result<axum::Json<ServerIds>, ApiError> {
    let assistant = state
        .store
        .set_assistant_servers(&caller.user.id, &id, &body.server_ids)
        .await?;
    Ok(axum::Json(ServerIds {
        server_ids: assistant.server_ids,
    }))
}
