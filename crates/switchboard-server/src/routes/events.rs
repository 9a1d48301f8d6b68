//! `GET /api/events`: the caller's live events over SSE, resumable with `Last-Event-ID`.

use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use switchboard_core::ErrorCode;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::live::{Scope, sse_response};
use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new().route("/api/events", get(events))
}

/// Every event of the caller: `message.created`, `message.delta`,
/// `assistant.toolCall.updated`, `message.completed`, `run.failed` and `server.status`, each
/// with an `id`. A client that reconnects with `Last-Event-ID` first gets what it missed; when
/// that is no longer kept, a `stream.reset` event tells it to reload.
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
                })?,
        ),
    };
    let subscription = state.events.subscribe(&caller.user.id, after);
    let scope = Scope {
        owner: caller.user.id,
        conversation_id: None,
        until_run_ends: false,
    };
    Ok(sse_response(subscription, scope))
}
