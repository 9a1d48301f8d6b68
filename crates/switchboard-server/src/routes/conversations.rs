//! Conversations and their history (seed 000 `GET /api/chat/conversations/{id}`).

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use switchboard_store::{Conversation, Message, NewConversation};

use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/conversations", get(list).post(create))
        .route(
            "/api/conversations/{id}",
            get(read).patch(rename).delete(remove),
        )
        .route("/api/conversations/{id}/cancel", post(cancel))
        // Seed 000's path.
        .route("/api/chat/conversations/{id}", get(read))
}

async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<axum::Json<Vec<Conversation>>, ApiError> {
    Ok(axum::Json(
        state.store.conversations(&caller.user.id).await?,
    ))
}

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

/// Cancels the conversation's run: its waiting and running calls are cancelled and the turn
/// ends. 409 when nothing is running.
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
