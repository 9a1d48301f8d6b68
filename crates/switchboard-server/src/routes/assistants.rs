//! Assistants and the MCP servers each may use (seed 001 `assistant_mcp_servers`).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use switchboard_core::ServerId;
use switchboard_store::{Assistant, AssistantConfig};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(read, update, remove))
        .routes(routes!(servers, set_servers))
}

/// Lists the caller's assistants.
#[utoipa::path(get, path = "/api/assistants", tag = "assistants", operation_id = "list_assistants", responses((status = 200, description = "The caller's assistants", body = serde_json::Value), (status = 401, description = "No valid API token", body = crate::error::ErrorBody)))]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<axum::Json<Vec<Assistant>>, ApiError> {
    Ok(axum::Json(state.store.assistants(&caller.user.id).await?))
}

/// Creates an assistant.
#[utoipa::path(post, path = "/api/assistants", tag = "assistants", operation_id = "create_assistant", request_body = serde_json::Value, responses((status = 201, description = "Created", body = serde_json::Value), (status = 400, description = "Bad input: malformed JSON, wrong types, unknown fields, invalid values", body = crate::error::ErrorBody), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody), (status = 403, description = "The caller has as many as the quota allows (QUOTA_EXCEEDED)", body = crate::error::ErrorBody), (status = 409, description = "Conflicts with the current state", body = crate::error::ErrorBody), (status = 413, description = "The body is too large", body = crate::error::ErrorBody)))]
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Json(config): Json<AssistantConfig>,
) -> Result<(StatusCode, axum::Json<Assistant>), ApiError> {
    let created = state
        .store
        .create_assistant_within(&caller.user.id, &config, state.config.limits.max_assistants)
        .await?;
    Ok((StatusCode::CREATED, axum::Json(created)))
}

/// Reads an assistant.
#[utoipa::path(get, path = "/api/assistants/{id}", tag = "assistants", operation_id = "read_assistant", params(("id" = String, Path, description = "The id")), responses((status = 200, description = "The assistant", body = serde_json::Value), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody)))]
async fn read(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<Assistant>, ApiError> {
    Ok(axum::Json(
        state.store.assistant(&caller.user.id, &id).await?,
    ))
}

/// Replaces an assistant's configuration.
#[utoipa::path(put, path = "/api/assistants/{id}", tag = "assistants", operation_id = "update_assistant", params(("id" = String, Path, description = "The id")), request_body = serde_json::Value, responses((status = 200, description = "Replaced", body = serde_json::Value), (status = 400, description = "Bad input: malformed JSON, wrong types, unknown fields, invalid values", body = crate::error::ErrorBody), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody), (status = 409, description = "Conflicts with the current state", body = crate::error::ErrorBody), (status = 413, description = "The body is too large", body = crate::error::ErrorBody)))]
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

/// Deletes an assistant.
#[utoipa::path(delete, path = "/api/assistants/{id}", tag = "assistants", operation_id = "delete_assistant", params(("id" = String, Path, description = "The id")), responses((status = 204, description = "Deleted"), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody)))]
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

/// The MCP servers the assistant may use, in order.
#[utoipa::path(get, path = "/api/assistants/{id}/mcp-servers", tag = "assistants", operation_id = "list_assistant_servers", params(("id" = String, Path, description = "The id")), responses((status = 200, description = "{serverIds}: the servers the assistant may use", body = serde_json::Value), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody)))]
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
#[utoipa::path(put, path = "/api/assistants/{id}/mcp-servers", tag = "assistants", operation_id = "set_assistant_servers", params(("id" = String, Path, description = "The id")), request_body = serde_json::Value, responses((status = 200, description = "The new list", body = serde_json::Value), (status = 400, description = "Bad input: malformed JSON, wrong types, unknown fields, invalid values", body = crate::error::ErrorBody), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody), (status = 413, description = "The body is too large", body = crate::error::ErrorBody)))]
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
