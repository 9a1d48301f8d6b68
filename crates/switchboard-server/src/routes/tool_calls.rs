//! `GET /api/tool-calls`: the caller's own tool-call audit, newest first.
//!
//! Each record says who called which tool of which server, through which way in (the API,
//! the proxy, the agent, a node's execution), how it ended and how long it took; never the
//! arguments or the result, which may carry secrets. The records are written in the
//! background (`switchboard_agent::tool_call`), and this listing waits for the ones still
//! queued, so a caller sees every call it made before asking.

use axum::extract::{Query, State};
use serde::Deserialize;
use switchboard_store::AuditRecord;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::routes::responses::{BadInput, Unauthorized};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list))
}

/// How many records an answer holds when `limit` is not given, and at most.
const DEFAULT_LIMIT: u32 = 100;
const MAX_LIMIT: u32 = 1_000;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ListQuery {
    /// How many of the newest records to answer with (default 100, at most 1,000).
    limit: Option<u32>,
}

/// The caller's newest tool calls, newest first.
#[utoipa::path(
    get,
    path = "/api/tool-calls",
    tag = "tools",
    operation_id = "list_tool_calls",
    params(ListQuery),
    responses(
        (status = 200, description = "The caller's tool calls, newest first; never arguments or results", body = Vec<AuditRecord>),
        BadInput,
        Unauthorized,
    ),
)]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Query(query): Query<ListQuery>,
) -> Result<axum::Json<Vec<AuditRecord>>, ApiError> {
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT).min(MAX_LIMIT);
    Ok(axum::Json(
        state.tool_calls.audit(&caller.user.id, limit).await?,
    ))
}
