//! Turns run again: a failed turn retried, an answer regenerated, a message of the person's
//! edited and sent again. Each answers 202 once the conversation is ready and the run has
//! started; the run's events come through `GET /api/events` as a sent message's do.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
use crate::routes::messages::Started;
use crate::routes::responses::{BadInput, Conflict, OwnedRead, OwnedWrite};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(retry))
        .routes(routes!(regenerate))
        .routes(routes!(resend))
}

type Answer = Result<(StatusCode, axum::Json<Started>), ApiError>;

fn started(message: switchboard_store::Message) -> Answer {
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(Started {
            conversation_id: message.conversation_id.clone(),
            message,
        }),
    ))
}

/// Runs a conversation's failed last turn again.
///
/// The turn's failure (`metadata.failure`) is cleared and the run goes on from what the turn
/// stored: a model round that broke off is asked again, tool calls already made are not
/// made again. A person's message that no run began answering (a stop before the answer)
/// is answered. 409 when the last turn did not fail, or a run is going on.
#[utoipa::path(
    post,
    path = "/api/conversations/{id}/retry",
    tag = "messages",
    operation_id = "retry_turn",
    params(("id" = String, Path, description = "The conversation")),
    responses(
        (status = 202, description = "The turn runs again: its message (or the person's message it answers)", body = Started),
        OwnedRead,
        Conflict,
    ),
)]
async fn retry(State(state): State<AppState>, caller: Caller, Path(id): Path<String>) -> Answer {
    started(state.runs.retry(&caller.user.id, &id).await?)
}

/// Regenerates an answer.
///
/// The conversation forks after the person's message that this answer answered: the answer
/// and every later message are deleted (the model's next request holds none of them), and
/// the person's message is answered anew. 400 for a message that is not an assistant's
/// answer; 409 while a run is going on.
#[utoipa::path(
    post,
    path = "/api/messages/{id}/regenerate",
    tag = "messages",
    operation_id = "regenerate_answer",
    params(("id" = String, Path, description = "The assistant's answer")),
    responses(
        (status = 202, description = "The person's message is being answered again", body = Started),
        BadInput,
        OwnedRead,
        Conflict,
    ),
)]
async fn regenerate(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Answer {
    started(state.runs.regenerate(&caller.user.id, &id).await?)
}

/// A message's new text.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Resend {
    /// What the person wrote instead.
    content: String,
}

/// Edits a message of the person's and sends it again.
///
/// The conversation forks at the message: a new message with this text replaces it (the
/// resources and prompt it carried stay with it), every later message is deleted (the
/// model's next request holds none of them), and the new message is answered. 400 for a
/// message the person did not write; 409 while a run is going on.
#[utoipa::path(
    post,
    path = "/api/messages/{id}/resend",
    tag = "messages",
    operation_id = "resend_message",
    params(("id" = String, Path, description = "The person's message")),
    request_body = Resend,
    responses(
        (status = 202, description = "The new message, being answered", body = Started),
        OwnedWrite,
    ),
)]
async fn resend(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Json(body): Json<Resend>,
) -> Answer {
    started(
        state
            .runs
            .resend(&caller.user.id, &id, &body.content)
            .await?,
    )
}
