//! Tool calls running as tasks: `GET /api/tasks/{id}` tells where one stands (and its
//! result once it has one), `DELETE` cancels it. A call route answers with a task instead of
//! waiting when asked to (`?mode=task`, or `Prefer: respond-async`): 202 with the task and
//! `Location: /api/tasks/{id}`.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;
use switchboard_agent::tasks::TaskOutcome;
use switchboard_core::ErrorCode;
use switchboard_store::StoredTask;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::routes::responses::{NotFound, Unauthorized};
use crate::routes::schemas::ToolResult;
use crate::state::AppState;
use axum::Json;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(task, cancel))
}

/// How soon a client polling a live task is asked to come back, in seconds.
const POLL_AGAIN: u64 = 2;

/// A tool call running as a task, as its caller sees it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskBody {
    /// The task's id (`tsk_…`).
    task_id: String,
    /// `working`, `input_required`, `completed`, `failed` or `cancelled`.
    status: &'static str,
    /// What the server last said of its progress.
    #[serde(skip_serializing_if = "Option::is_none")]
    status_message: Option<String>,
    /// The server's id.
    server_id: String,
    /// The tool's own name on its server.
    tool: String,
    /// When it was started, in milliseconds since the Unix epoch.
    created_at: i64,
    /// When it last changed.
    updated_at: i64,
    /// How often the server asks to be polled, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    poll_interval_ms: Option<u64>,
    /// Once `completed`: the MCP result as the server sent it (the tool's own error result,
    /// `isError`, included).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<ToolResult>)]
    result: Option<Value>,
    /// Once `failed` or `cancelled`: why, as an error answer would say it.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<TaskError>,
}

/// Why a task ended without a result.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct TaskError {
    #[schema(value_type = String)]
    code: ErrorCode,
    message: String,
}

impl TaskBody {
    pub(crate) fn of(task: &StoredTask) -> Self {
        let (result, error) = match task.outcome.as_ref().and_then(TaskOutcome::from_value) {
            Some(TaskOutcome::Result(result)) => (serde_json::to_value(result).ok(), None),
            Some(TaskOutcome::Error { code, message }) => (None, Some(TaskError { code, message })),
            None => (None, None),
        };
        Self {
            task_id: task.id.clone(),
            status: task.status.as_str(),
            status_message: task.status_message.clone(),
            server_id: task.server_id.0.clone(),
            tool: task.tool.clone(),
            created_at: task.created_at.0,
            updated_at: task.updated_at.0,
            poll_interval_ms: task.poll_interval_ms,
            result,
            error,
        }
    }
}

/// Whether the caller asked not to wait for a call: `?mode=task`, or `Prefer:
/// respond-async` (RFC 7240). Any other `mode` is refused.
pub(crate) fn wants_task(mode: Option<&str>, headers: &HeaderMap) -> Result<bool, ApiError> {
    match mode {
        Some("task") => return Ok(true),
        Some("sync") => return Ok(false),
        Some(_) => {
            return Err(ApiError::new(
                ErrorCode::ValidationError,
                "mode must be `task` or `sync`",
            ));
        }
        None => {}
    }
    Ok(prefers_async(headers))
}

fn prefers_async(headers: &HeaderMap) -> bool {
    headers
        .get_all("prefer")
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|preference| {
            preference
                .split(';')
                .next()
                .is_some_and(|name| name.trim().eq_ignore_ascii_case("respond-async"))
        })
}

/// The answer to a call started as `task`: 202, the task, where to follow it.
pub(crate) fn accepted(task: &StoredTask, headers: &HeaderMap) -> Response {
    let mut response = (StatusCode::ACCEPTED, Json(TaskBody::of(task))).into_response();
    let answer = response.headers_mut();
    if let Ok(location) = HeaderValue::from_str(&format!("/api/tasks/{}", task.id)) {
        answer.insert(header::LOCATION, location);
    }
    answer.insert(header::RETRY_AFTER, HeaderValue::from(POLL_AGAIN));
    if prefers_async(headers) {
        answer.insert(
            "preference-applied",
            HeaderValue::from_static("respond-async"),
        );
    }
    response
}

/// Where a tool call running as a task stands, and its result once it has one.
#[utoipa::path(
    get,
    path = "/api/tasks/{id}",
    tag = "tools",
    operation_id = "get_task",
    params(("id" = String, Path, description = "The task id")),
    responses(
        (status = 200, description = "The task; while it is live, `Retry-After` says when to ask again", body = TaskBody),
        Unauthorized,
        NotFound,
    ),
)]
async fn task(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let task = state.tasks.task(&caller.user.id, &id).await?;
    let mut response = Json(TaskBody::of(&task)).into_response();
    if task.is_live() {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(POLL_AGAIN));
    }
    Ok(response)
}

/// Cancels a tool call running as a task.
///
/// At once when it runs here, else its server is told. A task that has ended is left as it
/// is.
#[utoipa::path(
    delete,
    path = "/api/tasks/{id}",
    tag = "tools",
    operation_id = "cancel_task",
    params(("id" = String, Path, description = "The task id")),
    responses(
        (status = 202, description = "Cancelling; the task as it is now", body = TaskBody),
        Unauthorized,
        NotFound,
        (status = 429, description = "Too many writes", body = ErrorBody),
    ),
)]
async fn cancel(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let task = state.tasks.cancel(&caller.user.id, &id).await?;
    Ok((StatusCode::ACCEPTED, Json(TaskBody::of(&task))).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn respond_async_is_found_among_preferences() {
        let mut headers = HeaderMap::new();
        assert!(!wants_task(None, &headers).unwrap());
        headers.insert(
            "prefer",
            HeaderValue::from_static("return=minimal, respond-async; wait=10"),
        );
        assert!(wants_task(None, &headers).unwrap());
        assert!(!wants_task(Some("sync"), &headers).unwrap());
        assert!(wants_task(Some("task"), &HeaderMap::new()).unwrap());
        assert!(wants_task(Some("later"), &headers).is_err());
    }
}
