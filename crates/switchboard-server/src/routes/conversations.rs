//! Conversations and their history.

use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse as _, Response};
use serde::{Deserialize, Serialize};
use switchboard_store::{Conversation, ConversationCursor, Message, NewConversation, Timestamp};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
use crate::routes::responses::{
    BadInput, Conflict, OwnedEdit, OwnedRead, QuotaExceeded, Unauthorized,
};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(read, rename, remove))
        .routes(routes!(cancel))
        .routes(routes!(set_variables))
}

/// How many conversations a page holds when `limit` is not given, and at most.
const PAGE: u32 = 1_000;

/// The header naming where the next page starts, when there may be one.
const NEXT_CURSOR: &str = "x-next-cursor";

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ListQuery {
    /// How many conversations to answer with (default and at most 1,000).
    limit: Option<u32>,
    /// Start after this conversation: the `X-Next-Cursor` of the previous page.
    after: Option<String>,
    /// Only the conversations whose title or one of whose messages contains this text
    /// (letters compared without case; `%` and `_` are plain characters; at most 200
    /// characters; blank: all of them).
    q: Option<String>,
}

/// Lists the caller's conversations, most recent first, a page at a time; `q` searches them.
///
/// A full page answers `X-Next-Cursor`; send it back as `after` (with the same `q`) for the
/// next one.
#[utoipa::path(
    get,
    path = "/api/conversations",
    tag = "conversations",
    operation_id = "list_conversations",
    params(ListQuery),
    responses(
        (status = 200, description = "The caller's conversations, most recent first", body = Vec<Conversation>,
            headers(("x-next-cursor" = String, description = "Where the next page starts (a full page only)"))),
        BadInput,
        Unauthorized,
    ),
)]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Query(query): Query<ListQuery>,
) -> Result<Response, ApiError> {
    let limit = query.limit.unwrap_or(PAGE).clamp(1, PAGE);
    let after = query.after.as_deref().map(parse_cursor).transpose()?;
    let owner = &caller.user.id;
    let page = match query.q.as_deref().map(str::trim).filter(|q| !q.is_empty()) {
        Some(text) => {
            state
                .store
                .search_conversations(owner, text, after.as_ref(), limit)
                .await?
        }
        None => {
            state
                .store
                .conversations_page(owner, after.as_ref(), limit)
                .await?
        }
    };
    let next = (page.len() == limit as usize)
        .then(|| page.last().map(ConversationCursor::after))
        .flatten();
    let mut response = axum::Json(page).into_response();
    if let Some(next) = next
        && let Ok(value) = HeaderValue::from_str(&format!("{}:{}", next.updated_at.0, next.id))
    {
        response.headers_mut().insert(NEXT_CURSOR, value);
    }
    Ok(response)
}

/// A cursor as `X-Next-Cursor` gave it: `{updatedAt in ms}:{id}`.
fn parse_cursor(text: &str) -> Result<ConversationCursor, ApiError> {
    text.split_once(':')
        .and_then(|(at, id)| {
            Some(ConversationCursor {
                updated_at: Timestamp(at.parse().ok()?),
                id: id.to_owned(),
            })
        })
        .ok_or_else(|| {
            ApiError::new(
                switchboard_core::ErrorCode::ValidationError,
                "after must be the X-Next-Cursor of a previous page",
            )
            .key("error.msg.bad_cursor")
        })
}

/// Creates a conversation, optionally with one of the caller's assistants.
#[utoipa::path(
    post,
    path = "/api/conversations",
    tag = "conversations",
    operation_id = "create_conversation",
    request_body = NewConversation,
    responses(
        (status = 201, description = "Created", body = Conversation),
        OwnedEdit,
        QuotaExceeded,
    ),
)]
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Json(new): Json<NewConversation>,
) -> Result<(StatusCode, axum::Json<Conversation>), ApiError> {
    if let Some(assistant) = &new.assistant_id {
        // Another user's assistant is not found, like every other id.
        state.store.assistant(&caller.user.id, assistant).await?;
    }
    let max = state.limits.max_conversations;
    let created = state
        .store
        .create_conversation_within(&caller.user.id, &new, max)
        .await?;
    Ok((StatusCode::CREATED, axum::Json(created)))
}

/// A conversation with its messages, oldest first; each assistant message carries its tool
/// calls, so pending approvals show after a reload, and a failed turn its failure
/// (`metadata.failure`, a `TurnFailure` in the reader's language).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct History {
    #[serde(flatten)]
    pub conversation: Conversation,
    pub messages: Vec<Message>,
    /// Whether a run is answering in this process.
    pub running: bool,
}

/// Reads a conversation with its messages and their tool calls.
#[utoipa::path(
    get,
    path = "/api/conversations/{id}",
    tag = "conversations",
    operation_id = "read_conversation",
    params(("id" = String, Path, description = "The id")),
    responses(
        (status = 200, description = "The conversation with its messages and their tool calls", body = History),
        OwnedRead,
    ),
)]
async fn read(
    State(state): State<AppState>,
    caller: Caller,
    headers: axum::http::HeaderMap,
    Path(id): Path<String>,
) -> Result<axum::Json<History>, ApiError> {
    let conversation = state.store.conversation(&caller.user.id, &id).await?;
    let mut messages = state.store.messages(&caller.user.id, &id).await?;
    let locale = crate::i18n::reader_locale(&caller.user, &headers);
    crate::i18n::word_failures(&mut messages, &state.locales, locale);
    Ok(axum::Json(History {
        running: state.agent.is_running(&id),
        conversation,
        messages,
    }))
}

/// A conversation's new title.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Rename {
    title: String,
}

/// Renames a conversation.
#[utoipa::path(
    patch,
    path = "/api/conversations/{id}",
    tag = "conversations",
    operation_id = "rename_conversation",
    params(("id" = String, Path, description = "The id")),
    request_body = Rename,
    responses(
        (status = 200, description = "Renamed", body = Conversation),
        OwnedEdit,
    ),
)]
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
#[utoipa::path(
    delete,
    path = "/api/conversations/{id}",
    tag = "conversations",
    operation_id = "delete_conversation",
    params(("id" = String, Path, description = "The id")),
    responses(
        (status = 204, description = "Deleted (its run cancelled)"),
        OwnedRead,
    ),
)]
async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    // Checked first: another user's conversation must not be cancelled either.
    state.store.conversation(&caller.user.id, &id).await?;
    state.runs.cancel(&caller.user.id, &id).await?;
    state
        .store
        .delete_conversation(&caller.user.id, &id)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Cancels the conversation's run.
///
/// Cancels the conversation's run: its waiting and running calls are cancelled (a call
/// running as a task has its task cancelled on its server) and the turn ends; so is a turn
/// that waits on tasks without a run. 409 when nothing is running or waiting.
#[utoipa::path(
    post,
    path = "/api/conversations/{id}/cancel",
    tag = "conversations",
    operation_id = "cancel_run",
    params(("id" = String, Path, description = "The id")),
    responses(
        (status = 202, description = "The run is being cancelled"),
        OwnedRead,
        Conflict,
    ),
)]
async fn cancel(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.store.conversation(&caller.user.id, &id).await?;
    if state.runs.cancel(&caller.user.id, &id).await? {
        Ok(StatusCode::ACCEPTED)
    } else {
        Err(ApiError::new(
            switchboard_core::ErrorCode::Conflict,
            format!("conversation {id:?} has no run to cancel"),
        )
        .key("error.msg.no_run_to_cancel")
        .param("conversation", format!("{id:?}")))
    }
}

/// A conversation's variables, whole.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Variables {
    #[schema(value_type = Object)]
    variables: serde_json::Map<String, serde_json::Value>,
}

/// Replaces a conversation's variables.
///
/// The variables (seed 000 `ChatRequest.context`, merged by each chat request that carries
/// one) are replaced by these; `GET /api/conversations/{id}` shows them.
#[utoipa::path(
    put,
    path = "/api/conversations/{id}/variables",
    tag = "conversations",
    operation_id = "set_conversation_variables",
    params(("id" = String, Path, description = "The id")),
    request_body = Variables,
    responses(
        (status = 200, description = "The conversation's variables as stored", body = Variables),
        OwnedEdit,
    ),
)]
async fn set_variables(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Json(body): Json<Variables>,
) -> Result<axum::Json<Variables>, ApiError> {
    let stored = state
        .store
        .set_variables(&caller.user.id, &id, &body.variables)
        .await?;
    Ok(axum::Json(Variables {
        variables: stored.variables,
    }))
}
