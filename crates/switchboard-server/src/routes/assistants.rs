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
use crate::routes::responses::{
    BadInput, Conflict, NotFound, OwnedEdit, OwnedRead, OwnedWrite, QuotaExceeded, TooLarge,
    Unauthorized,
};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(read, update, remove))
        .routes(routes!(servers, set_servers))
}

/// Lists the caller's assistants.
#[utoipa::path(
    get,
    path = "/api/assistants",
    tag = "assistants",
    operation_id = "list_assistants",
    responses(
        (status = 200, description = "The caller's assistants", body = Vec<Assistant>),
        Unauthorized,
    ),
)]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<axum::Json<Vec<Assistant>>, ApiError> {
    Ok(axum::Json(state.store.assistants(&caller.user.id).await?))
}

/// Creates an assistant.
#[utoipa::path(
    post,
    path = "/api/assistants",
    tag = "assistants",
    operation_id = "create_assistant",
    request_body = AssistantConfig,
    responses(
        (status = 201, description = "Created", body = Assistant),
        BadInput,
        Unauthorized,
        QuotaExceeded,
        NotFound,
        Conflict,
        TooLarge,
    ),
)]
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Json(config): Json<AssistantConfig>,
) -> Result<(StatusCode, axum::Json<Assistant>), ApiError> {
    let created = state.assistants.create(&caller.user.id, &config).await?;
    Ok((StatusCode::CREATED, axum::Json(created)))
}

/// Reads an assistant.
#[utoipa::path(
    get,
    path = "/api/assistants/{id}",
    tag = "assistants",
    operation_id = "read_assistant",
    params(("id" = String, Path, description = "The assistant's id")),
    responses(
        (status = 200, description = "The assistant", body = Assistant),
        OwnedRead,
    ),
)]
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
///
/// Its variables must still declare every variable its tool nodes use (else 400 naming the
/// node, the mapping and the variable).
#[utoipa::path(
    put,
    path = "/api/assistants/{id}",
    tag = "assistants",
    operation_id = "update_assistant",
    params(("id" = String, Path, description = "The assistant's id")),
    request_body = AssistantConfig,
    responses(
        (status = 200, description = "Replaced", body = Assistant),
        OwnedWrite,
    ),
)]
async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Json(config): Json<AssistantConfig>,
) -> Result<axum::Json<Assistant>, ApiError> {
    Ok(axum::Json(
        state
            .assistants
            .replace(&caller.user.id, &id, &config)
            .await?,
    ))
}

/// Deletes an assistant.
#[utoipa::path(
    delete,
    path = "/api/assistants/{id}",
    tag = "assistants",
    operation_id = "delete_assistant",
    params(("id" = String, Path, description = "The assistant's id")),
    responses(
        (status = 204, description = "Deleted"),
        OwnedRead,
    ),
)]
async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.assistants.delete(&caller.user.id, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The ids of the servers the assistant may use, in order (seed 001).
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ServerIds {
    #[schema(value_type = Vec<String>)]
    server_ids: Vec<ServerId>,
}

/// The MCP servers the assistant may use, in order.
#[utoipa::path(
    get,
    path = "/api/assistants/{id}/mcp-servers",
    tag = "assistants",
    operation_id = "list_assistant_servers",
    params(("id" = String, Path, description = "The assistant's id")),
    responses(
        (status = 200, description = "The servers the assistant may use", body = ServerIds),
        OwnedRead,
    ),
)]
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
#[utoipa::path(
    put,
    path = "/api/assistants/{id}/mcp-servers",
    tag = "assistants",
    operation_id = "set_assistant_servers",
    params(("id" = String, Path, description = "The assistant's id")),
    request_body = ServerIds,
    responses(
        (status = 200, description = "The new list", body = ServerIds),
        OwnedEdit,
    ),
)]
async fn set_servers(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Json(body): Json<ServerIds>,
) -> Result<axum::Json<ServerIds>, ApiError> {
    let assistant = state
        .assistants
        .set_servers(&caller.user.id, &id, &body.server_ids)
        .await?;
    Ok(axum::Json(ServerIds {
        server_ids: assistant.server_ids,
    }))
}
