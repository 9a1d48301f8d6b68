//! Conversations and their history (seed 000 `GET /api/chat/conversations/{id}`).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use switchboard_store::{Conversation, Message, NewConversation};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(read, rename, remove))
        .routes(routes!(cancel))
        .routes(routes!(read_alias))
}

/// Lists the caller's conversations, most recent first.
#[utoipa::path(get, path = "/api/conversations", tag = "conversations", operation_id = "list_conversations", responses((status = 200, description = "The caller's conversations, most recent first", body = serde_json::Value), (status = 401, description = "No valid API token", body = crate::error::ErrorBody)))]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<axum::Json<Vec<Conversation>>, ApiError> {
    Ok(axum::Json(
        state.store.conversations(&caller.user.id).await?,
    ))
}

/// Creates a conversation, optionally with one of the caller's assistants.
#[utoipa::path(post, path = "/api/conversations", tag = "conversations", operation_id = "create_conversation", request_body = serde_json::Value, responses((status = 201, description = "Created", body = serde_json::Value), (status = 400, description = "Bad input: malformed JSON, wrong types, unknown fields, invalid values", body = crate::error::ErrorBody), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody), (status = 413, description = "The body is too large", body = crate::error::ErrorBody)))]
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Json(new): Json<NewConversation>,
) -> Result<(StatusCode, axum::Json<Conversation>), ApiError> {
    if let Some(assistant) = &new.assistant_id {
        // Another user's assistant is not found, like every other id.
        state.store.assistant(&caller.user.id, assistant).await?;
    }
    let created = state
        .store
        .create_conversation(&caller.user.id, &new)
        .await?;
    Ok((StatusCode::CREATED, axum::Json(created)))
}

/// A conversation with its messages, oldest first; each assistant message carries its tool
/// calls, so pending approvals show after a reload.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct History {
    #[serde(flatten)]
    pub conversation: Conversation,
    pub messages: Vec<Message>,
    /// Whether a run is answering in this process.
    pub running: bool,
}

/// Reads a conversation with its messages and their tool calls.
#[utoipa::path(get, path = "/api/conversations/{id}", tag = "conversations", operation_id = "read_conversation", params(("id" = String, Path, description = "The id")), responses((status = 200, description = "The conversation with its messages and their tool calls", body = serde_json::Value), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody)))]
async fn read(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<History>, ApiError> {
    let conversation = state.store.conversation(&caller.user.id, &id).await?;
    let messages = state.store.messages(&caller.user.id, &id).await?;
    Ok(axum::Json(History {
        running: state.agent.is_running(&id),
        conversation,
        messages,
    }))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Rename {
    title: String,
}

/// Renames a conversation.
#[utoipa::path(patch, path = "/api/conversations/{id}", tag = "conversations", operation_id = "rename_conversation", params(("id" = String, Path, description = "The id")), request_body = serde_json::Value, responses((status = 200, description = "Renamed", body = serde_json::Value), (status = 400, description = "Bad input: malformed JSON, wrong types, unknown fields, invalid values", body = crate::error::ErrorBody), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody), (status = 413, description = "The body is too large", body = crate::error::ErrorBody)))]
async fn rename(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Json(body): Json<Rename>,
) -> Result<axum::Json<Conversation>, ApiError> {
    Ok(axum::Json(
        state
            .store
            .rename_conversation(&caller.user.id, &id, &body.title)
            .await?,
    ))
}

/// Deletes a conversation, cancelling its run.
#[utoipa::path(delete, path = "/api/conversations/{id}", tag = "conversations", operation_id = "delete_conversation", params(("id" = String, Path, description = "The id")), responses((status = 204, description = "Deleted (its run cancelled)"), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody)))]
async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    // Checked first: another user's conversation must not be cancelled either.
    state.store.conversation(&caller.user.id, &id).await?;
    state.runs.cancel(&id);
    state
        .store
        .delete_conversation(&caller.user.id, &id)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Cancels the conversation's run.
///
/// Cancels the conversation's run: its waiting and running calls are cancelled and the turn
/// ends. 409 when nothing is running.
#[utoipa::path(post, path = "/api/conversations/{id}/cancel", tag = "conversations", operation_id = "cancel_run", params(("id" = String, Path, description = "The id")), responses((status = 202, description = "The run is being cancelled"), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody), (status = 409, description = "Conflicts with the current state", body = crate::error::ErrorBody)))]
async fn cancel(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.store.conversation(&caller.user.id, &id).await?;
    if state.runs.cancel(&id) {
        Ok(StatusCode::ACCEPTED)
    } else {
        Err(ApiError::new(
            switchboard_core::ErrorCode::Conflict,
            format!("conversation {id:?} has no run to cancel"),
        ))
    }
}

/// Seed 000's `GET /api/chat/conversations/{id}`.
#[utoipa::path(get, path = "/api/chat/conversations/{id}", tag = "conversations", operation_id = "read_chat_conversation", params(("id" = String, Path, description = "The id")), responses((status = 200, description = "Seed 000's path for reading a conversation", body = serde_json::Value), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody)))]
async fn read_alias(
    state: State<AppState>,
    caller: Caller,
    id: Path<String>,
) -> Result<axum::Json<History>, ApiError> {
    read(state, caller, id).await
}
