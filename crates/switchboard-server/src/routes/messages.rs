//! Sending messages (a run starts), seed 000's one-shot chat, and decisions on tool calls
//! (seed 001 `tool-confirm`).

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use switchboard_core::ToolCallRecord;
use switchboard_store::{Message, NewConversation};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
use crate::live::{Scope, Subscription, sse_response};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, send))
        .routes(routes!(one_shot))
        .routes(routes!(tool_confirm))
}

/// Lists a conversation's messages, oldest first.
#[utoipa::path(get, path = "/api/conversations/{id}/messages", tag = "messages", operation_id = "list_messages", params(("id" = String, Path, description = "The id")), responses((status = 200, description = "The conversation's messages, oldest first", body = serde_json::Value), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody)))]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<Vec<Message>>, ApiError> {
    Ok(axum::Json(
        state.store.messages(&caller.user.id, &id).await?,
    ))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Send {
    content: String,
}

/// What a started run answers without streaming: the stored user message; the run goes on
/// and its events come through `GET /api/events`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Started {
    conversation_id: String,
    message: Message,
}

/// Sends a message: stores it and starts the conversation's run.
///
/// Stores the user's message and starts the run. With `Accept: text/event-stream` the
/// response streams the run's events (from `message.created` of this message) and ends with
/// `message.completed` or `run.failed`; approvals asked for on the way are given with
/// `tool-confirm` while it streams. Otherwise 202 with the stored message.
#[utoipa::path(post, path = "/api/conversations/{id}/messages", tag = "messages", operation_id = "send_message", params(("id" = String, Path, description = "The id")), request_body = serde_json::Value, responses((status = 202, description = "Stored; the run goes on (with Accept: text/event-stream, 200 and the run's events as SSE)", body = serde_json::Value), (status = 400, description = "Bad input: malformed JSON, wrong types, unknown fields, invalid values", body = crate::error::ErrorBody), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody), (status = 409, description = "Conflicts with the current state", body = crate::error::ErrorBody), (status = 413, description = "The body is too large", body = crate::error::ErrorBody)))]
async fn send(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    Json(body): Json<Send>,
) -> Result<Response, ApiError> {
    let streaming = wants_events(&headers);
    // Subscribed before the run starts, so no event of it is missed.
    let subscription = state.events.subscribe(&caller.user.id, None);
    let message = state.runs.send(&caller.user.id, &id, &body.content).await?;
    if streaming {
        let scope = Scope {
            owner: caller.user.id,
            conversation_id: Some(id),
            until_run_ends: true,
        };
        return Ok(sse_response(subscription, scope));
    }
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(Started {
            conversation_id: id,
            message,
        }),
    )
        .into_response())
}

fn wants_events(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains("text/event-stream"))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct OneShot {
    message: String,
    #[serde(default)]
    conversation_id: Option<String>,
}

/// How a one-shot request left the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum TurnStatus {
    /// The model answered (or the turn ended by its round limit or a cancellation).
    Completed,
    /// A tool call waits for a decision; give it with `tool-confirm`, the run goes on.
    AwaitingApproval,
    /// The run failed; `error` says why.
    Failed,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct OneShotAnswer {
    conversation_id: String,
    status: TurnStatus,
    /// The assistant's message as stored, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Message>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<Value>,
}

/// One-shot chat: sends a message and answers when the turn settles.
///
/// Seed 000's `POST /api/chat/message`: sends `message` (to a new conversation unless
/// `conversationId` names one) and answers when the turn is complete, failed, or waiting for
/// an approval.
#[utoipa::path(post, path = "/api/chat/message", tag = "messages", operation_id = "one_shot_chat", request_body = serde_json::Value, responses((status = 200, description = "The turn completed, failed, or waits for an approval", body = serde_json::Value), (status = 400, description = "Bad input: malformed JSON, wrong types, unknown fields, invalid values", body = crate::error::ErrorBody), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody), (status = 409, description = "Conflicts with the current state", body = crate::error::ErrorBody), (status = 413, description = "The body is too large", body = crate::error::ErrorBody)))]
async fn one_shot(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<OneShot>,
) -> Result<axum::Json<OneShotAnswer>, ApiError> {
    let owner = &caller.user.id;
    let conversation_id = match body.conversation_id {
        Some(id) => id,
        None => {
            let title: String = body.message.chars().take(60).collect();
            let new = NewConversation {
                title,
                assistant_id: None,
            };
            state.store.create_conversation(owner, &new).await?.id
        }
    };
    let subscription = state.events.subscribe(owner, None);
    state
        .runs
        .send(owner, &conversation_id, &body.message)
        .await?;
    let (status, error) = settle(subscription, &conversation_id).await;
    let message = state
        .store
        .messages(owner, &conversation_id)
        .await?
        .into_iter()
        .rev()
        .find(|m| m.role == switchboard_store::MessageRole::Assistant);
    Ok(axum::Json(OneShotAnswer {
        conversation_id,
        status,
        message,
        error,
    }))
}

/// Waits for the conversation's turn to end or to wait for a decision.
async fn settle(
    mut subscription: Subscription,
    conversation_id: &str,
) -> (TurnStatus, Option<Value>) {
    loop {
        let received = tokio::select! {
            () = subscription.closed.cancelled() => return (TurnStatus::Completed, None),
            received = subscription.live.recv() => received,
        };
        let Ok(logged) = received else {
            // Fell behind or closed: the caller reads the stored state instead.
            return (TurnStatus::Completed, None);
        };
        if logged.conversation_id.as_deref() != Some(conversation_id) {
            continue;
        }
        match logged.kind {
            "message.completed" => return (TurnStatus::Completed, None),
            "run.failed" => {
                let data: Value = serde_json::from_str(&logged.data).unwrap_or_default();
                return (TurnStatus::Failed, Some(data));
            }
            "assistant.toolCall.updated" => {
                let data: Value = serde_json::from_str(&logged.data).unwrap_or_default();
                let call = &data["toolCall"];
                if call["status"] == "pending" && call["approved"].is_null() {
                    return (TurnStatus::AwaitingApproval, None);
                }
            }
            _ => {}
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Confirm {
    tool_call_id: String,
    approved: bool,
}

/// Approves or rejects a tool call waiting for a decision.
///
/// Approves or rejects a call waiting for a decision; the run waiting for it goes on, or, if
/// none waits here (after a restart), one is started from what is stored.
#[utoipa::path(post, path = "/api/messages/{id}/tool-confirm", tag = "messages", operation_id = "confirm_tool_call", params(("id" = String, Path, description = "The assistant message holding the call")), request_body = serde_json::Value, responses((status = 200, description = "The decided tool call", body = serde_json::Value), (status = 400, description = "Bad input: malformed JSON, wrong types, unknown fields, invalid values", body = crate::error::ErrorBody), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody), (status = 409, description = "Conflicts with the current state", body = crate::error::ErrorBody), (status = 413, description = "The body is too large", body = crate::error::ErrorBody)))]
async fn tool_confirm(
    State(state): State<AppState>,
    caller: Caller,
    Path(message_id): Path<String>,
    Json(body): Json<Confirm>,
) -> Result<axum::Json<ToolCallRecord>, ApiError> {
    let owner = &caller.user.id;
    let message = state.store.message(owner, &message_id).await?;
    let spec = state.runs.spec_for(owner, &message.conversation_id).await?;
    let call = state
        .agent
        .decide(owner, &message_id, &body.tool_call_id, body.approved)
        .await?;
    state
        .runs
        .resume_after_decision(owner, &message.conversation_id, &message_id, spec)
        .await;
    Ok(axum::Json(call))
}
