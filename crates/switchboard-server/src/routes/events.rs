//! `GET /api/events`: the caller's live events over SSE, resumable with `Last-Event-ID`.

use std::sync::Arc;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use switchboard_core::ErrorCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::live::{Scope, sse_response_watched};
use crate::routes::responses::Unauthorized;
use crate::state::AppState;
use crate::stream_auth::TokenWatch;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(events))
}

/// Streams the caller's live events (SSE), resumable with `Last-Event-ID`.
///
/// Every event of the caller: `message.created` (an assistant's turn starts with it, its
/// `metadata.unavailableServers` naming the servers the turn was started without), `message.delta`,
/// `assistant.toolCall.updated` (each followed by seed 001's `tool.message.updated`, the
/// message id and the call in the seed's `ToolCallRecord` fields), `message.completed`,
/// `run.failed`, `server.status` and `task.updated` (a tool call running as a task was
/// created, changed or ended: `{taskId, status, statusMessage?, serverId, tool,
/// conversationId?, messageId?, callId?}`), each with an `id`. A client that reconnects with `Last-Event-ID` first gets what it missed; when
/// that is no longer kept, a `stream.reset` event tells it to reload.
#[utoipa::path(
    get,
    path = "/api/events",
    tag = "events",
    operation_id = "stream_events",
    params(("Last-Event-ID" = Option<u64>, Header, description = "Resume after this event")),
    responses(
        (status = 200, description = "The caller's live events; send Last-Event-ID to resume", content_type = "text/event-stream"),
        (status = 400, description = "Last-Event-ID is not the id of an event this server sent", body = ErrorBody),
        Unauthorized,
        (status = 429, description = "As many event streams open as the caller may have", body = ErrorBody),
    ),
)]
async fn events(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let after = match headers.get("last-event-id") {
        None => None,
        Some(value) => Some(
            value
                .to_str()
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .ok_or_else(|| {
                    ApiError::new(
                        ErrorCode::ValidationError,
                        "Last-Event-ID must be the id of an event this server sent",
                    )
                    .key("error.msg.last_event_id")
                })?,
        ),
    };
    // Counted while the stream is open (`Limits::max_event_streams`).
    let slot = state.gate.open_stream(&caller.user.id)?;
    // The stream ends when its token is revoked or expires (see `stream_auth`).
    let watch = match &caller.token {
        Some(token) => TokenWatch::start(
            Arc::clone(&state.store),
            token.clone(),
            caller.user.id.clone(),
            state.config.stream_auth.recheck,
        ),
        None => TokenWatch::never(),
    };
    let subscription = state.events.subscribe(&caller.user.id, after);
    let scope = Scope {
        owner: caller.user.id,
        conversation_id: None,
        until_run_ends: false,
    };
    Ok(crate::limits::held_by(
        sse_response_watched(subscription, scope, watch),
        slot,
    ))
}
